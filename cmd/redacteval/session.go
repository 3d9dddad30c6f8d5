package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/tidwall/gjson"
)

// templateSession is a real client session the examples are appended to,
// one user prompt (and a short assistant reply) per example.
const templateSession = "testdata/sessions/2.1.328/multi-turn.jsonl"

// publicSets are the labelled files: gitleaks' rule test cases (data
// other people wrote) and the misses issue 14 lists (written for this
// project). The examples of Nosey Parker and its descendants (Titus,
// Kingfisher) are not used: the project is judged on material drawn from
// them, so they are neither tuned on nor reported.
var publicSets = []struct{ set, path, about string }{
	{"gitleaks", "ops/redact/testdata/public/gitleaks.txt", "gitleaks default-rule test cases (MIT), public"},
	{"issue14", "ops/redact/testdata/issue14.txt", "the misses listed in issue 14, written for ccsurgeon"},
	{"issue31", "ops/redact/testdata/issue31.txt", "the shapes issue 31 names (assignments in every syntax, CLI flags, headers, connection strings, providers), written for ccsurgeon"},
	{"heldout31", "ops/redact/testdata/heldout31.txt", "blind held-out set: providers' documented formats in held-out families, written before it was first run, never tuned on"},
	{"dev-families", "ops/redact/testdata/dev-families.txt", "development examples of the family mechanisms (hash structures, connection-string keywords, CLI tools' password flags, HTTP auth schemes, qualified names), written for ccsurgeon"},
	{"dev-keys-encoded", "ops/redact/testdata/dev-keys-encoded.txt", "development examples of key material (PEM, PPK, JWK, age, WireGuard, Tor, minisign, PKCS#12) and of secrets hidden by an encoding (Basic, docker auth, .npmrc, Kubernetes data, percent-encoding, JWT), written for ccsurgeon from the formats' descriptions"},
	{"dev-keys-encoded2", "ops/redact/testdata/dev-keys-encoded2.txt", "development examples, second round: private keys pasted every way (one line, escaped, YAML, concatenated, arrays, truncated, Proc-Type), bare OpenSSH/DER keys, wallet keys (hex, WIF, xprv, Solana, BIP-39), keystores, and secrets under every encoding the structure names (Basic, Kubernetes, *_ENCODED, base64/base64url JSON, gzip, hex, decoding calls, form bodies, JSON escapes), written for ccsurgeon from the formats' descriptions"},
	{"dev-encoded3", "ops/redact/testdata/dev-encoded3.txt", "development examples, third round of the encoded family: secrets in base64, base64url (also 76-column wrapped), hex, base32, percent-encoding, C/JS/Python string escapes, UTF-16 under base64 and double encodings where nothing around them names a secret or the encoding, and negatives (harmless text, digests, UUIDs, images, PDFs, public keys), written for ccsurgeon from the encodings' definitions"},
	{"dev-encoded4", "ops/redact/testdata/dev-encoded4.txt", "development examples, fourth round of the encoded family: base64 of one token unpadded, wrapped or with JSON \\n and \\/ escapes, docker config.json and X-Registry-Auth, Kubernetes Secrets of every type in YAML and JSON, Helm b64enc and release Secrets, npm/yarn auth, Basic and SMTP/IMAP AUTH in logs, JWT payloads, percent-encoding once and twice, HTML/XML entities, byte arrays of many languages, xxd and hexdump dumps, base64 of whole credential files, gzip and zlib under base64, with negatives of the same contexts, written for ccsurgeon from the formats' public descriptions"},
	{"dev-encoded5", "ops/redact/testdata/dev-encoded5.txt", "development examples, fifth round of the encoded family, written by the classes of why an encoded secret is missed: spans the decoder never saw whole (base64 split over concatenated literals, wrapped over Read line numbers or deep indentation, data: URIs without a text media type, escaped padding, quoted-printable soft breaks), decoded text with no name (user:password, Elasticsearch ApiKey, Kubernetes data under any key), text encoded again differently, and encodings the sweep did not know (Ascii85/base85, uuencode, bytea and SQL hex, separated hex, tcpdump/od/Wireshark dumps, decimal byte lists, HTML5 named references, MIME encoded-words), with non-secrets of the same contexts, written for ccsurgeon from the formats' public descriptions"},
	{"dev-encoded6", "ops/redact/testdata/dev-encoded6.txt", "development examples, sixth round of the encoded family, written by the seven classes behind the 43 encoded misses of blind sets a-d (retired to development) in forms those misses do not hold: auth schemes' values by position (Basic, Proxy-Authorization, git extraheader, SASL in SMTP/IMAP/XMPP/ManageSieve), byte and hex literals bound to a secret's name or printed as one, blobs whose name or decoded prefix says credential, the output of commands that read a secret, percent-encoding once and twice in queries and nested URLs, XML/HTML entities in a value named as a secret, TOTP seeds in base32, with non-secrets of the same contexts, written for ccsurgeon from the formats' and tools' public descriptions"},
	{"dev-general6", "ops/redact/testdata/dev-general6.txt", "development examples, sixth round: password hashes and credential files, tokens in logs and API responses, OAuth flows and session cookies, chat/mail/webhook credentials, CLI and HTTP auth, short generic assignments, prose, form bodies and encoded forms, with over 100 non-secrets of the same contexts, written for ccsurgeon from the formats' public descriptions"},
	{"dev-hashsession", "ops/redact/testdata/dev-hashsession.txt", "development examples of the password-hash/password-file and OAuth/session families: crypt and hashcat formats, RFC 2307 and Dovecot schemes, application and database stores, cookies by framework and cookie jars, OAuth tokens in responses, caches and browser storage, with non-secrets of the same contexts (checksums, digests, CSRF tokens, analytics cookies), written for ccsurgeon from the formats' public descriptions"},
	{"dev-general7", "ops/redact/testdata/dev-general7.txt", "development examples, seventh round: generic assignments in every language and config syntax (struct literals, named arguments, builders, setters, signing calls, XML, HCL, Nix, Dockerfile, systemd, crontab, Windows), credentials printed in logs, debug dumps, HTTP dumps and CLI outputs, and chat/mail/webhook URLs, bot tokens and mail passwords, with over 100 non-secrets of the same contexts, written for ccsurgeon from the formats' public descriptions"},
	{"dev-nonsecrets", "ops/redact/testdata/dev-nonsecrets.txt", "development examples of false positives: keys providers document as public (publishable, site, search-only, client-side keys, client ids), documented example credentials, references and templates of every syntax, masked forms, digests and checksums, ids, public key material, salts, nonces and fixtures, random-looking text that names nothing, with over 90 secrets of the same contexts, written for ccsurgeon from the providers' and formats' public descriptions"},
	{"dev-longtail", "ops/redact/testdata/dev-longtail.txt", "development examples, eighth round: the long tail of providers — regional and smaller clouds and infrastructure services, chat/mail/SMS/push/webhook services, other SaaS (work management, scheduling, forms, e-signature, search, maps, feature flags, analytics, media, CMS, commerce, CRM, auth, captchas, regional payments) — and generic assignments (name/value lists, secret-store CLIs, names real configs use), in transcript contexts, with over 100 non-secrets providers document as public or safe, written for ccsurgeon from the providers' public token docs"},
	{"dev-obsconn", "ops/redact/testdata/dev-obsconn.txt", "development examples, ninth round: observability and analytics vendors' keys in their agents' config files (APM, logging, metrics, error tracking, product analytics, feature flags, alerting), connection strings of every driver and framework, and key material in every container, with non-secrets of the same contexts (public SDK keys, references, password-less strings, public keys), written for ccsurgeon from the vendors' and formats' public descriptions"},
	{"dev-precision2", "ops/redact/testdata/dev-precision2.txt", "development examples of false positives, second round, by class: a provider's name inside a longer word (nonlinear, incoherent, onlooker), the pk_ prefix providers give to publishable and to private keys, keys documented as public in front-end code (Segment analytics.js write keys, Algolia search-only keys, Rollbar post_client_item tokens), values encrypted by a key service under an encrypted name, with secrets of the same shapes and contexts (names as words and name parts, Klaviyo/Courier/ClickUp pk_ keys, server keys, password hashes, Java properties passwords), written for ccsurgeon from the providers' and formats' public descriptions"},
	{"heldout-families", "ops/redact/testdata/heldout-families.txt", "blind held-out set: the families issue 31 names, written from the formats' public descriptions before it was first run, never tuned on"},
	{"blind-20261127", "ops/redact/testdata/blind-20261127.txt", "blind set written by an engineer who had not read the scanner: 16 families from providers' token docs, config-file and shell conventions, logs and API responses, with labelled non-secrets; committed before it was first run, never tuned on"},
	{"blind-20261127b", "ops/redact/testdata/blind-20261127b.txt", "second blind set by an engineer who had not read the scanner: weighted to key material (every private-key container and way of pasting one) and encoded secrets, 16 families, over 100 labelled non-secrets; committed before it was first run, never tuned on"},
	{"blind-20261127c", "ops/redact/testdata/blind-20261127c.txt", "third blind set by an engineer who had not read the scanner: 16 families of at least 25 secrets each, weighted to the long tail of providers (regional clouds, smaller SaaS, CI tools, registries, payment and crypto, mail, maps, flags, CDN and DNS), in transcript contexts (cat of config files, env and docker inspect, logs and stack traces, API responses, code in many languages, encoded forms), with over 120 labelled non-secrets; committed before it was first run, never tuned on"},
	{"blind-20261127d", "ops/redact/testdata/blind-20261127d.txt", "fourth blind set by an engineer who had not read the scanner: 16 families of at least 30 secrets each and over 80 encoded ones (base64 in Kubernetes, Docker, npm and Helm, Basic auth, whole credential files, percent-encoding, JSON/JS/Python/C/Java escapes, hex, HTML/XML entities, JWT payloads, double encodings), over 550 secrets across the long tail of providers, in transcript contexts, with over 150 labelled non-secrets; committed before it was first run, never tuned on"},
	{"blind-20261127e", "ops/redact/testdata/blind-20261127e.txt", "fifth blind set by an engineer who had not read the scanner: 16 families of at least 42 secrets each and over 145 encoded ones (base64 in Kubernetes, Docker, npm and Helm, Basic auth, whole credential files, percent-encoding, JSON/JS/Python/C/Go/Java escapes, hex and byte arrays, HTML/XML entities, JWT payloads, base32 seeds, gzip+base64, UTF-16LE PowerShell, SMTP/SASL AUTH, double encodings), over 900 secrets across the long tail of providers, in transcript contexts, with over 210 labelled non-secrets; committed before it was first run, never tuned on"},
}

// fpDirs are real sessions: every finding in them is a false positive.
// testdata/sessions/*/secrets.jsonl hold planted secrets and are left out.
// The corpus ($CCSURGEON_CORPUS, else ../shared/corpus beside the
// checkout) is left out, said on stderr, when it is not there.
func fpDirs() []string {
	dir, err := testcorpus.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		return []string{"testdata/sessions"}
	}
	return []string{dir, "testdata/sessions"}
}

type evalResult struct {
	n, found int
}

func runPublic(verbose bool, only string) {
	tmp, err := os.MkdirTemp("", "ccsurgeon-redact-eval-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	env := &app.Env{ConfigDir: filepath.Join(tmp, "config"), Quiet: true, JSON: true, Out: io.Discard, Err: io.Discard, In: strings.NewReader("")}

	var all []labelled.Example
	var outs []string
	for _, ps := range publicSets {
		if only != "" && ps.set != only {
			continue
		}
		exs, err := labelled.Load(ps.path, ps.set)
		if err != nil {
			fatal(err)
		}
		out := redactExamples(env, tmp, exs)
		report(ps.set, ps.about, ps.path, exs, out, verbose)
		all, outs = append(all, exs...), append(outs, out...)
	}
	reportFamilies(all, outs, verbose)
	falsePositives(env, tmp, verbose)
}

// reportFamilies prints the recall of every family of kinds in three
// splits: development (what rules are written against), held-out families
// (labelled.HeldOut) and blind sets (labelled.BlindSets: written before
// they were first run, never tuned on), with the three totals. The misses
// of held-out examples are never printed (labelled.IsHeldOut): they are not
// looked at to write rules.
func reportFamilies(exs []labelled.Example, outs []string, verbose bool) {
	type famStat struct {
		n, found, kinds, fp, fpN int
	}
	splitOf, splits := labelled.Split, labelled.Splits
	stats := map[string]*famStat{} // split + "\x00" + family
	kindSeen := map[string]bool{}
	for i, e := range exs {
		key := splitOf(e) + "\x00" + labelled.Family(e.Kind)
		st := stats[key]
		if st == nil {
			st = &famStat{}
			stats[key] = st
		}
		if !kindSeen[e.Set+"/"+e.Kind] {
			kindSeen[e.Set+"/"+e.Kind] = true
			st.kinds++
		}
		if !e.TP {
			st.fpN++
			if outs[i] != e.Text {
				st.fp++
			}
			continue
		}
		st.n++
		if labelled.Caught(e, outs[i]) {
			st.found++
		}
	}
	fmt.Printf("\n== families (held-out and blind examples are never developed against; their misses are not printed) ==\n")
	fmt.Printf("%-28s %-9s %5s %6s %6s %8s %12s\n", "family", "split", "kinds", "n", "found", "recall", "non-secrets")
	totals := map[string]*famStat{}
	for _, split := range splits {
		tot := &famStat{}
		totals[split] = tot
		for _, f := range labelled.Families() {
			st := stats[split+"\x00"+f]
			if st == nil {
				continue
			}
			fmt.Printf("%-28s %-9s %5d %6d %6d %7.1f%% %6d of %d\n", f, split, st.kinds, st.n, st.found, pct(st.found, st.n), st.fp, st.fpN)
			tot.n += st.n
			tot.found += st.found
			tot.kinds += st.kinds
			tot.fp += st.fp
			tot.fpN += st.fpN
		}
	}
	fmt.Println()
	for _, split := range splits {
		tot := totals[split]
		if tot.n+tot.fpN == 0 {
			continue
		}
		name := map[string]string{"dev": "development families", "held-out": "held-out families", "blind": "blind sets"}[split]
		fmt.Printf("%-21s recall %.1f%% (%d of %d examples, %d kinds), labelled non-secrets reported %d of %d\n",
			name+":", pct(tot.found, tot.n), tot.found, tot.n, tot.kinds, tot.fp, tot.fpN)
	}
}

// redactExamples writes one session holding every example as a prompt,
// runs the redactor on it, and returns each prompt's text afterwards.
func redactExamples(env *app.Env, tmp string, exs []labelled.Example) []string {
	uid := func(i, k int) string { return fmt.Sprintf("00000000-0000-4000-8000-%06d%06d", i, k) }
	part := map[string]int{"user": 1, "assistant": 2, "prompt": 3, "message": 4}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	err := gen.PromptChain(w, templateSession, "", func(i int, p string) string { return uid(i, part[p]) },
		func(i int) (string, bool) {
			if i >= len(exs) {
				return "", false
			}
			return exs[i].Text, true
		})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fatal(err)
	}
	in := filepath.Join(tmp, exs[0].Set+".jsonl")
	outPath := filepath.Join(tmp, exs[0].Set+".redacted.jsonl")
	if err := os.WriteFile(in, b.Bytes(), 0o600); err != nil {
		fatal(err)
	}
	if err := env.RunOps(in, app.OpSpec{Redact: true}, app.Dest{Output: outPath}); err != nil {
		fatal(fmt.Errorf("redact %s: %w", in, err))
	}
	outLines, err := readLines(outPath)
	if err != nil {
		fatal(err)
	}
	texts := map[string]string{}
	for _, l := range outLines {
		if u := gjson.Get(l, "uuid").Str; strings.HasPrefix(u, "00000000-0000-4000-8000-") && strings.HasSuffix(u, "000001") {
			texts[u] = gjson.Get(l, "message.content").Str
		}
	}
	res := make([]string, len(exs))
	for i := range exs {
		t, ok := texts[uid(i, 1)]
		if !ok {
			fatal(fmt.Errorf("prompt %d (%s) is missing from the redacted session", i, exs[i].Kind))
		}
		res[i] = t
	}
	return res
}

func report(set, about, path string, exs []labelled.Example, outs []string, verbose bool) {
	byKind := map[string]*evalResult{}
	byForm := map[string]*evalResult{}
	var tp evalResult
	fpN, fpFlagged := 0, 0
	var kinds []string
	for i, e := range exs {
		if !e.TP {
			fpN++
			if outs[i] != e.Text {
				fpFlagged++
				if verbose && !labelled.IsHeldOut(e) {
					fmt.Printf("FP   %-40s %q\n     -> %q\n", e.Kind, clip(e.Text, 200), clip(outs[i], 200))
				}
			}
			continue
		}
		if byKind[e.Kind] == nil {
			byKind[e.Kind] = &evalResult{}
			kinds = append(kinds, e.Kind)
		}
		if byForm[e.Form] == nil {
			byForm[e.Form] = &evalResult{}
		}
		k, f := byKind[e.Kind], byForm[e.Form]
		k.n++
		f.n++
		tp.n++
		if labelled.Caught(e, outs[i]) {
			k.found++
			f.found++
			tp.found++
		} else if verbose && !labelled.IsHeldOut(e) {
			fmt.Printf("MISS %-40s %-18s %q\n     -> %q\n", e.Kind, e.Form, clip(e.Text, 200), clip(outs[i], 200))
		}
	}
	sort.Strings(kinds)
	fmt.Printf("\n== %s: %s (%s) ==\n", set, about, path)
	fmt.Printf("%-48s %5s %5s %7s\n", "kind", "n", "found", "recall")
	macro := 0.0
	full, none := 0, 0
	for _, k := range kinds {
		r := byKind[k]
		if !labelled.IsHeldOut(labelled.Example{Set: set, Kind: k}) { // held-out kinds: only their family's figure
			fmt.Printf("%-48s %5d %5d %6.1f%%\n", k, r.n, r.found, pct(r.found, r.n))
		}
		macro += pct(r.found, r.n)
		if r.found == r.n {
			full++
		}
		if r.found == 0 {
			none++
		}
	}
	var forms []string
	for f := range byForm {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	fmt.Printf("\n%-24s %5s %5s %7s\n", "format", "n", "found", "recall")
	for _, f := range forms {
		r := byForm[f]
		fmt.Printf("%-24s %5d %5d %6.1f%%\n", f, r.n, r.found, pct(r.found, r.n))
	}
	fmt.Printf("\n%s: recall %.1f%% (%d of %d examples), per-kind mean %.1f%%; %d kinds, %d all found, %d none found\n",
		set, pct(tp.found, tp.n), tp.found, tp.n, macro/float64(max(1, len(kinds))), len(kinds), full, none)
	fmt.Printf("%s: labelled non-secrets reported: %d of %d\n", set, fpFlagged, fpN)
}

// falsePositives runs the redactor on every real session and counts what
// it reports, per MB of session file.
func falsePositives(env *app.Env, tmp string, verbose bool) {
	var files []string
	dirs := fpDirs()
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(p, ".jsonl") || filepath.Base(p) == "secrets.jsonl" {
				return nil
			}
			files = append(files, p)
			return nil
		})
	}
	sort.Strings(files)
	var size int64
	findings, failed := 0, 0
	perRule := map[string]int{}
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		var buf bytes.Buffer
		e := *env
		e.Out = &buf
		out := filepath.Join(tmp, fmt.Sprintf("fp-%d.jsonl", i))
		if err := e.RunOps(f, app.OpSpec{Redact: true}, app.Dest{Output: out}); err != nil {
			failed++
			if verbose {
				fmt.Printf("FAIL %s: %v\n", f, err)
			}
			continue
		}
		size += st.Size()
		var res app.WriteResult
		if err := json.Unmarshal(buf.Bytes(), &res); err != nil {
			fatal(fmt.Errorf("%s: %v", f, err))
		}
		abs, _ := filepath.Abs(f)
		for _, r := range res.Redactions {
			if ra, _ := filepath.Abs(r.File); ra != abs {
				continue // a subagent file, counted on its own
			}
			findings++
			perRule[r.Rule]++
			fmt.Printf("REAL %s:%d %s %s\n", f, r.Line, r.Field, r.Rule)
		}
	}
	mb := float64(size) / 1e6
	fmt.Printf("\nreal sessions (%s, without secrets.jsonl): %d files, %.2f MB, %d findings = %.2f per MB %v",
		strings.Join(dirs, ", "), len(files)-failed, mb, findings, float64(findings)/mb, perRule)
	if failed > 0 {
		fmt.Printf(", %d files not loadable", failed)
	}
	fmt.Println()
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var out []string
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
