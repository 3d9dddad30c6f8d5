package redact

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// knownMisses are the labelled examples the scanner does not catch, by set,
// kind and format (README: what it cannot find). A family test fails on any
// other miss, naming its kind, and on a known miss that is now caught (so
// the list stays true).
var knownMisses = map[string]string{
	"gitleaks/database-password/value:BcUpcl":    "a 6-letter password shaped like a CamelCase name, in every format",
	"gitleaks/curl-auth-header/literal":          "Basic of user with an empty password; sha256~ values with @=; apikey/X-Octopus-ApiKey headers holding a UUID",
	"gitleaks/curl-auth-user/literal":            "curl -u on a continuation line, quoted user:pass with braces or a trailing colon",
	"gitleaks/cloudflare-api-key/literal":        "a bare vendor name as the key (cloudflare: \"…\") with a 40-char value",
	"gitleaks/cloudflare-global-api-key/literal": "the same with a 37-char hex value",
	"gitleaks/kubernetes-secret-yaml/literal":    "base64 values under data: of a kind: Secret manifest (no secret-named key)",
	"gitleaks/nuget-config-password/literal":     "a value made of words (TestSourcePassword)",
	"gitleaks/database-password/xml":             "a password holding '<' inside an XML element",
	"gitleaks/database-password/xml-multiline":   "the same",
	"issue14/ntlm/template":                      "NetNTLMv2 (user::DOMAIN:challenge:hmac:blob): no anchor that code does not also hold",
}

// publicSets are the labelled files of the evaluation (cmd/redacteval
// registers the same ones), with the recall each must keep and how many of
// their non-secrets may be reported (the known ones: README). The floors
// are what the scanner reaches; a change that loses a caught example or
// reports another labelled non-secret fails TestPublicSetFloors.
var publicSets = []struct {
	path, set string
	recall    float64 // percent of the true positives redacted, at least
	fp        int     // labelled non-secrets reported, at most
}{
	{"testdata/public/gitleaks.txt", "gitleaks", 98.8, 5},
	{"testdata/issue14.txt", "issue14", 97.7, 0},
	{"testdata/issue31.txt", "issue31", 98.4, 0},
	{"testdata/heldout31.txt", "heldout31", 100, 0},
	{"testdata/dev-families.txt", "dev-families", 100, 0},
	{"testdata/dev-keys-encoded.txt", "dev-keys-encoded", 100, 0},
	{"testdata/dev-keys-encoded2.txt", "dev-keys-encoded2", 100, 0},
	{"testdata/dev-encoded3.txt", "dev-encoded3", 94.1, 0},         // 5 of 34 before the sweep (anywhere.go), 32 of 34 after
	{"testdata/dev-encoded4.txt", "dev-encoded4", 98.7, 0},         // 66.2 at its first run (51 of 77), 67.5 with one label fixed, 97.4 after encoded4.go, 98.7 after encoded6.go
	{"testdata/dev-encoded5.txt", "dev-encoded5", 93.9, 0},         // 36.1 at its first run (30 of 83), 4 of 59 non-secrets; 94.0 (78 of 83), 0 after encoded5.go
	{"testdata/dev-encoded6.txt", "dev-encoded6", 98.9, 0},         // 33.7 at its first run (35 of 104), 0 of 60 non-secrets; 99.0 (103 of 104), 0 after encoded6.go
	{"testdata/dev-general6.txt", "dev-general6", 94.2, 0},         // 73.3 at its first run, 74.4 with its form bodies percent-encoded as browsers send them, 94.3 after general6.go
	{"testdata/dev-hashsession.txt", "dev-hashsession", 98.6, 0},   // 50.0 at its first run (72 of 144, 7 of 75 non-secrets reported), 49.3 with two records written to their real formats and two labelled without their scheme name, 98.6 after hashsession.go (142 of 144, 0 non-secrets)
	{"testdata/dev-general7.txt", "dev-general7", 99.4, 0},         // 75.5 at its first run (145 of 192, 4 of 118 non-secrets reported), 99.5 after general7.go
	{"testdata/dev-nonsecrets.txt", "dev-nonsecrets", 98.0, 8},     // 98.0 (96 of 98) at its first run, 57 of 399 non-secrets reported; 98.0 (97 of 99, a Supabase service-role key added), 11 after public.go; 98.1 (104 of 106), 11 of 409 with request tokens and client ids added after; 8 after precision2.go (AWS's documented pair in 5 forms, reported on purpose; SEGMENT_WRITE_KEY, which issue31.txt labels a secret; a Braintree tokenization key; a Razorpay key id)
	{"testdata/dev-longtail.txt", "dev-longtail", 98.0, 9},         // 9 of 131 after public.go; 90.0 at its first run (324 of 360, 18 of 131 non-secrets reported), 98.1 after longtail.go (353 of 360, 10 of 131), 97.8 (352) with the anchors the secrets shape is full of left out, 98.1 with a YAML key named by its parent
	{"testdata/dev-obsconn.txt", "dev-obsconn", 97.9, 1},           // 1 of 97 after public.go; 89.0 at its first run (258 of 290, 3 of 97 non-secrets reported: public browser/SDK keys), 89.3 with the Event Hubs JAAS example labelled at its key, 97.9 after obsconn.go
	{"testdata/dev-precision2.txt", "dev-precision2", 100, 0},      // 83.3 (30 of 36) at its first run, 28 of 48 non-secrets reported; 100 (36 of 36), 0 of 48 after precision2.go
	{"testdata/heldout-families.txt", "heldout-families", 96.5, 0}, // 94.4 before general6.go
	{"testdata/blind-20261127.txt", "blind-20261127", 98.8, 2},     // stop 30 (its encoded members retired to development, encoded6.go, longtail.go, obsconn.go, public.go): 98.9 (347 of 351), 2 of 84 non-secrets; 98.0 after encoded5/general7/hashsession.go; 94.3 untuned; 95.4 after rules for its four weak families, 96.0 after the second round of key and encoded rules, 97.2 after general6.go (README)
	{"testdata/blind-20261127b.txt", "blind-20261127b", 95.2, 6},   // stop 30 (its encoded members retired to development, encoded6.go, longtail.go, obsconn.go, public.go): 95.3 (451 of 473), 6 of 176; 93.7 after encoded5.go, general7.go and hashsession.go; 85.4 at its first run, 87.7 after the second round of key and encoded rules, 89.2 after the decoding sweep, 91.1 after general6.go, 91.8 after encoded4.go (their authors never saw it)
	{"testdata/blind-20261127c.txt", "blind-20261127c", 96.6, 5},   // stop 30 (its encoded members retired to development, encoded6.go, longtail.go, obsconn.go, public.go): 96.7 (676 of 699), 5 of 247; 94.3 after encoded5.go, general7.go and hashsession.go; 90.1 at its first run (05089f0, after every rule before general6.go), 92.4 after general6.go, 92.4 after encoded4.go
	{"testdata/blind-20261127d.txt", "blind-20261127d", 95.4, 8},   // stop 30 (its encoded members retired to development, encoded6.go, longtail.go, obsconn.go, public.go): 95.5 (746 of 781), 8 of 232; 89.5 at its first run (3cc0301, before any rule of the stop that wrote it), 11 of 232 non-secrets; 89.6 after encoded5.go, 90.4 after general7.go, 92.1 after hashsession.go (10 of 232); their authors never saw it
	{"testdata/blind-20261127e.txt", "blind-20261127e", 95.8, 8},   // 95.9 (875 of 912) after longtail.go (94.0), obsconn.go (94.6) and encoded6.go (95.9; encoded 87.9 -> 94.6), 8 of 215 non-secrets after public.go; their authors never saw it; 93.4 (852 of 912) at its first run (d460c16, before any rule of the stop that wrote it), encoded 87.9 (131 of 149), 15 of 215 non-secrets
}

func TestPublicSetFloors(t *testing.T) {
	s := mustNew(t, Options{})
	for _, ps := range publicSets {
		exs, err := labelled.Load(ps.path, ps.set)
		if err != nil {
			t.Fatal(err)
		}
		n, found, fp := 0, 0, 0
		for _, e := range exs {
			out := redactAll(s, e.Text)
			if !e.TP {
				if out != e.Text {
					fp++
					if !labelled.IsHeldOut(e) { // a blind set's non-secrets are not looked at either
						t.Logf("%s: non-secret %s reported: %q", ps.set, e.Kind, out)
					}
				}
				continue
			}
			n++
			if labelled.Caught(e, out) {
				found++
			}
		}
		recall := 100 * float64(found) / float64(n)
		t.Logf("%s: recall %.1f%% (%d of %d), non-secrets reported %d", ps.set, recall, found, n, fp)
		if recall < ps.recall-0.05 {
			t.Errorf("%s: recall %.1f%% (%d of %d), below its floor %.1f%%", ps.set, recall, found, n, ps.recall)
		}
		if fp > ps.fp {
			t.Errorf("%s: %d labelled non-secrets reported, more than the %d known", ps.set, fp, ps.fp)
		}
	}
}

func TestPublicSetByFamily(t *testing.T) {
	s := mustNew(t, Options{})
	sets := []struct{ path, set string }{{"testdata/public/gitleaks.txt", "gitleaks"}, {"testdata/issue14.txt", "issue14"}}
	missed := map[string][]string{} // family -> examples
	seen := map[string]bool{}
	families := map[string]bool{}
	for _, ps := range sets {
		exs, err := labelled.Load(ps.path, ps.set)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exs {
			if !e.TP {
				continue
			}
			fam := ps.set + "/" + e.Kind + "/" + e.Form
			families[ps.set+"/"+e.Kind] = true
			if labelled.Caught(e, redactAll(s, e.Text)) {
				continue
			}
			if _, ok := knownMisses[fam]; ok {
				seen[fam] = true
				continue
			}
			if v := ps.set + "/" + e.Kind + "/value:" + e.Secret; e.Secret != "" && knownMisses[v] != "" {
				seen[v] = true
				continue
			}
			missed[ps.set+"/"+e.Kind] = append(missed[ps.set+"/"+e.Kind], fmt.Sprintf("%s: %q", e.Form, e.Text))
		}
	}
	var names []string
	for f := range families {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		t.Run(f, func(t *testing.T) {
			if m := missed[f]; len(m) > 0 {
				t.Errorf("kind %s: %d example(s) not redacted:\n%s", f, len(m), strings.Join(m, "\n"))
			}
		})
	}
	for k := range knownMisses {
		if !seen[k] {
			t.Errorf("known miss %s is now caught (or gone): remove it from knownMisses and the README", k)
		}
	}
}

// redactAll replaces every finding the way redact-secrets does.
func redactAll(s *Scanner, text string) string {
	var b strings.Builder
	last := 0
	for _, f := range s.Scan(text) {
		b.WriteString(text[last:f.Start])
		b.WriteString("[REDACTED:" + f.Rule + "]")
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// TestFamilySplitFloors holds the recall of the three splits of the
// labelled sets (labelled.Split: development families, held-out families,
// blind sets) at what they reach, and logs each family's. A held-out or
// blind split failing here says only that it dropped: its misses are not
// listed (they are not looked at to write rules).
func TestFamilySplitFloors(t *testing.T) {
	s := mustNew(t, Options{})
	type st struct{ n, found int }
	split := map[string]*st{}
	fam := map[string]*st{}
	for _, ps := range publicSets {
		exs, err := labelled.Load(ps.path, ps.set)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exs {
			if !e.TP {
				continue
			}
			sp, key := labelled.Split(e), labelled.Split(e)+" "+labelled.Family(e.Kind)
			if split[sp] == nil {
				split[sp] = &st{}
			}
			if fam[key] == nil {
				fam[key] = &st{}
			}
			split[sp].n++
			fam[key].n++
			if labelled.Caught(e, redactAll(s, e.Text)) {
				split[sp].found++
				fam[key].found++
			}
		}
	}
	pct := func(x *st) float64 { return 100 * float64(x.found) / float64(x.n) }
	floors := map[string]float64{"dev": 98.1, "held-out": 99.9, "blind": 96.1} // 2026-11-27, stop 30: dev 98.2 and blind 96.2 after the rounds of stop 30 (longtail.go, obsconn.go, encoded6.go, public.go); 95.1 when blind-20261127e (93.4% alone at its first run) joined it; the encoded members of blind sets a–d retired to development (labelled.Retired): dev 98.1 → 97.1 (their 218 examples, 175 found, joined it), blind 94.4 → 95.7 (the weakest family left it: read that figure as the blind sets without encoding, not as a rise); blind: 94.4 after encoded5.go (92.8), general7.go (93.8) and hashsession.go; 92.7 when blind-20261127d (89.5% alone at its first run) joined it; 94.0 after encoded4.go; 94.6 before blind-20261127c (90.1% alone at its first run, 92.4 after general6.go) joined it; dev: 98.2 before dev-general6 (94.3% after general6.go, 73.3% at its first run) joined it; blind: 93.1 before general6.go; blind: 95.3 before blind-20261127 (94.3% alone) joined it, 95.5 before blind-20261127b (85.4% alone at its first run)
	for _, sp := range labelled.Splits {
		x := split[sp]
		if x == nil {
			t.Errorf("split %s: no examples", sp)
			continue
		}
		t.Logf("%-8s %.1f%% (%d of %d)", sp, pct(x), x.found, x.n)
		if pct(x) < floors[sp]-0.05 {
			t.Errorf("%s: recall %.1f%%, below its floor %.1f%%", sp, pct(x), floors[sp])
		}
		for _, f := range labelled.Families() {
			if x := fam[sp+" "+f]; x != nil {
				t.Logf("  %-8s %-28s %5.1f%% (%d of %d)", sp, f, pct(x), x.found, x.n)
			}
		}
	}
}
