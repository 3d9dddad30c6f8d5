package redact

import (
	_ "embed"
	"strconv"
	"strings"
)

// The long tail of providers (issue 31, eighth round; development data
// testdata/dev-longtail.txt). Four principles:
//
//  1. A provider's documented prefix is data: catalogue/longtail-formats.txt
//     holds each format (prefix, what follows, entropy floor, source), read
//     into prefix rules anchored on the prefix, so a token is found with no
//     name beside it (a log line, a JSON response, a bare argument) and a
//     line without the prefix costs nothing.
//  2. Some credentials are named by a word the generic names do not hold:
//     the AK/SK pair of Chinese clouds (HUAWEICLOUD_SDK_AK, QINIU_SK),
//     salts and peppers, Telegram's api_hash, an application password
//     written in groups of four (WordPress), a Redis or SMTP AUTH value.
//     A YAML key: named key alone is named by its parent mapping (api:,
//     stripe:, access:): api:\n  key: VALUE is api.key.
//  3. A name and its value may be two words of a command, not NAME=VALUE:
//     fish's set -gx NAME VALUE, csh's setenv NAME VALUE, netlify
//     env:set NAME VALUE; and a secret store's --value is a secret where
//     the command stores one (aws ssm … --type SecureString).
//  4. An API key is sent as the Basic user with an empty or dummy
//     password (curl -u KEY: , -u KEY:X): the user is then the secret.
//
// And one the other way: a key a provider documents as public (a
// publishable key, a captcha's site key, Algolia's search-only key,
// PubNub's publish and subscribe keys) is no secret, whatever its name
// ends with (publicKeyName, asked by classifyIdent).

//go:embed catalogue/longtail-formats.txt
var longtailFormats string

// longtailFormat is one line of catalogue/longtail-formats.txt.
type longtailFormat struct {
	id, re   string
	prefixes []string
	entropy  float64
}

func parseLongtailFormats(src string) []longtailFormat {
	var out []longtailFormat
	for _, l := range strings.Split(src, "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		h, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			continue
		}
		out = append(out, longtailFormat{id: f[0], prefixes: strings.Split(f[1], ","), entropy: h, re: f[3]})
	}
	return out
}

func longtailRules() []*Rule {
	var rules []*Rule
	for _, f := range parseLongtailFormats(longtailFormats) {
		minEntropy := f.entropy
		r := tok(f.id, f.re, f.prefixes...).after(400).bound(isTokenByte).
			check(all(checkRandom(minEntropy, 2), notAfter("./")))
		// an anchor inside the regexp's literal prefix (USR- of
		// APP_USR-: "app" starts a word on every line): the window
		// opens that many bytes before it
		lit, _ := r.Re.LiteralPrefix()
		for _, p := range f.prefixes {
			if i := strings.Index(lit, p); i > r.Before {
				r.Before = i
			}
		}
		rules = append(rules, r)
	}
	return append(rules,
		// 2. names
		lastWordRule("cloud-access-key", `[A-Za-z0-9/+]{20,64}`, []string{"ak", "sk"}, nil, "_ak", "_sk", "-ak", "-sk"),
		lastWordRule("generic-secret", `[A-Za-z0-9/+=_-]{16,128}`, []string{"salt", "pepper"}, upperOrPepper, "salt", "pepper"),
		appPasswordRule(),
		kw("telegram-api-hash", `[a-f0-9]{32}`, "api_hash", "apihash"),
		kw("ghost-admin-api-key", `[a-f0-9]{24}:[a-f0-9]{64}`, "ghost"),
		kw("ably-api-key", `[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{6}:[A-Za-z0-9_-]{43}`, "ably"),
		kw("viber-auth-token", `[0-9a-f]{16}-[0-9a-f]{16}-[0-9a-f]{16}`, "viber"),
		kw("webex-access-token", `[A-Za-z0-9]{64}_[A-Z0-9]{4}_[0-9a-f-]{36}`, "webex"),
		kw("algolia-api-key", `[a-f0-9]{32}`, "searchclient", "algoliasearch"),
		// Klaviyo's private API key is pk_ and 34 hex digits (most
		// providers' pk_ is a publishable key): reported where Klaviyo is
		// named (KlaviyoAPI("pk_…"), klaviyo: …), precision2.go
		kw("klaviyo-private-key", `pk_[a-f0-9]{34}`, "klaviyo"),
		// 3. a name and its value as two words of a command
		&Rule{ID: "generic-command-set", Anchors: []string{"set -gx ", "set -x ", "set -ux ", "setenv ", "env:set "}, Fold: true,
			Priority: prioGeneric, find: findCommandSet, emits: assignmentIDs[:]},
		&Rule{ID: "secret-store-value", Anchors: []string{"--value"}, Fold: true, Priority: prioGeneric,
			find: findStoreValue, emits: []string{"generic-secret"}},
		// 2. a YAML key: named by its parent (api:\n  key: …)
		&Rule{ID: "yaml-parent-key", Anchors: []string{"key:"}, Fold: true, Priority: prioGeneric,
			find: findParentNamedKey, emits: []string{"generic-api-key"}},
		// 4. the key as the Basic user
		&Rule{ID: "basic-user-key", Anchors: []string{"-u ", "--user "}, Priority: prioGeneric,
			find: findKeyAsUser, emits: []string{"basic-user-key"}},
	)
}

func upperOrPepper(words []string, ident string) bool {
	return isUpperEnv(ident) || words[len(words)-1] == "pepper"
}

func prevIn(prev ...string) func([]string, string) bool {
	return func(words []string, _ string) bool {
		if len(words) < 2 {
			return false
		}
		for _, p := range prev {
			if words[len(words)-2] == p {
				return true
			}
		}
		return false
	}
}

// lastWordRule: a value of shape after an identifier whose last word (its
// qualifiers trimmed) is one of last and that ok accepts (nil: any), as
// kw finds a provider's value after its name.
func lastWordRule(id, shape string, last []string, ok func(words []string, ident string) bool, anchors ...string) *Rule {
	r := kw(id, shape, anchors...)
	find := r.find
	r.find = func(text string, hits []hit, emit func(s, e int, id string)) {
		var keep []hit
		for _, h := range hits {
			l, e := identAround(text, int(h.pos), int(h.pos+h.alen))
			var arr [12]string
			words := trimQualifiers(appendWords(arr[:0], text[l:e]))
			if len(words) == 0 {
				continue
			}
			w := words[len(words)-1]
			for _, x := range last {
				if w == x && (ok == nil || ok(words, text[l:e])) {
					keep = append(keep, h)
					break
				}
			}
		}
		if len(keep) > 0 {
			find(text, keep, emit)
		}
	}
	r.Priority = prioGeneric
	return r
}

// appPasswordRule: an application password (WordPress) written as its
// groups of four, under a name whose last words are app(lication)
// password. Anchored on "password", which the keyword rules already let
// through ("app" starts a word on every line of code), and turned down at
// once unless app or application stands before it.
func appPasswordRule() *Rule {
	r := lastWordRule("generic-password", `[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){3,5}`, []string{"password"}, prevIn("application", "app"), "password")
	find := r.find
	r.find = func(text string, hits []hit, emit func(s, e int, id string)) {
		var keep []hit
		for _, h := range hits {
			p := int(h.pos)
			if p > 0 && (text[p-1] == '_' || text[p-1] == '-') {
				p--
			}
			if p >= 3 && (hasPrefixFold(text[p-3:], "app") || p >= 11 && hasPrefixFold(text[p-11:], "application")) {
				keep = append(keep, h)
			}
		}
		if len(keep) > 0 {
			find(text, keep, emit)
		}
	}
	return r
}

// findParentNamedKey: an indented YAML "key: VALUE" whose parent mapping
// names what kind of key it is (api:, secret:, access:, signing:, a
// word keyPrevAllow holds): the value, when it looks generated.
func findParentNamedKey(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		ls, le := lineBounds(text, p)
		ind := p - ls
		if ind == 0 || strings.TrimLeft(text[ls:p], " ") != "" {
			continue // key: must be the line's first word, indented
		}
		s, e, quoted := wordAfter(text, skipBlanks(text, p+int(h.alen)))
		if e > le || e-s < 16 || !quoted && e != le && strings.TrimSpace(text[e:le]) != "" && !strings.HasPrefix(strings.TrimSpace(text[e:le]), "#") {
			continue
		}
		// the parent: the nearest line above indented less
		for q := ls - 1; q > 0; {
			ps := strings.LastIndexByte(text[:q], '\n') + 1
			line := text[ps:q]
			body := strings.TrimLeft(line, " ")
			if body == "" {
				q = ps - 1
				continue
			}
			if len(line)-len(body) < ind {
				name, ok := strings.CutSuffix(strings.TrimSpace(body), ":")
				var arr [12]string
				if w := appendWords(arr[:0], strings.TrimPrefix(name, "- ")); ok && len(w) > 0 && keyPrevAllow[w[len(w)-1]] && strongValue(text[s:e]) {
					emit(s, e, "generic-api-key")
				}
				break
			}
			q = ps - 1
		}
	}
}

// findCommandSet: set -gx NAME VALUE (fish), setenv NAME VALUE (csh),
// netlify env:set NAME VALUE: NAME must name a secret, VALUE is judged as
// an assignment's value.
func findCommandSet(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		i := int(h.pos + h.alen)
		ne := i
		for ne < len(text) && isIdentByte(text[ne]) {
			ne++
		}
		if ne == i || ne >= len(text) || text[ne] != ' ' {
			continue
		}
		kind, ok := classifyIdent(text[i:ne])
		if !ok {
			continue
		}
		s, e, quoted := wordAfter(text, ne+1)
		if e > s && plausibleValue(text[s:e], kind, quoted) {
			emit(s, e, assignmentIDs[kind])
		}
	}
}

// wordAfter: the word at i, unquoted ('…' or "…") or up to a blank.
func wordAfter(text string, i int) (s, e int, quoted bool) {
	if i >= len(text) {
		return i, i, false
	}
	if q := text[i]; q == '\'' || q == '"' {
		k := strings.IndexByte(text[i+1:], q)
		if k < 0 {
			return i, i, false
		}
		return i + 1, i + 1 + k, true
	}
	e = i
	for e < len(text) && text[e] != ' ' && text[e] != '\t' && text[e] != '\n' && text[e] != '\r' && text[e] != ';' {
		e++
	}
	return i, e, false
}

// findStoreValue: --value V of a command that stores a secret (aws ssm
// put-parameter --type SecureString, a --name naming a secret).
func findStoreValue(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		i := int(h.pos + h.alen)
		if i >= len(text) || text[i] != ' ' && text[i] != '=' {
			continue
		}
		ls, le := lineBounds(text, int(h.pos))
		line := text[ls:le]
		if !containsFold(line, "securestring") && !containsFold(line, "secret") {
			continue
		}
		s, e, quoted := wordAfter(text, i+1)
		if e > s && plausibleValue(text[s:e], kindSecret, quoted) && randomShape(text[s:e], 3.5, 2) {
			emit(s, e, "generic-secret")
		}
	}
}

// findKeyAsUser: curl -u KEY: or -u KEY:X (Freshdesk's dummy password),
// --user 'KEY:' — an API key sent as the Basic user.
func findKeyAsUser(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		i := int(h.pos + h.alen)
		if h.pos > 0 && text[h.pos-1] != ' ' && text[h.pos-1] != '\t' {
			continue // -u as the end of a word (x-u): the anchors are the curl rule's
		}
		if i < len(text) && (text[i] == '\'' || text[i] == '"') {
			i++
		}
		e := i
		for e < len(text) && isTokenByte(text[e]) {
			e++
		}
		if e-i < 20 || e >= len(text) || text[e] != ':' {
			continue
		}
		j := e + 1
		if j < len(text) && text[j] == 'X' {
			j++
		}
		if j < len(text) && !strings.ContainsRune(" \t\n'\"", rune(text[j])) {
			continue // a password follows: the curl -u rule's
		}
		if checkKeyed(text, i, e) && randomShape(text[i:e], 3.5, 2) {
			emit(i, e, "basic-user-key")
		}
	}
}

// publicKeyName: a name a provider documents as a public key — a
// publishable key (Stripe, Clerk, Supabase), a captcha's site key, Algolia's
// search-only key, PubNub's publish and subscribe keys, an incident's
// dedup key.
func publicKeyName(words []string) bool {
	for i, w := range words {
		switch w {
		case "publishable", "sitekey", "searchonly":
			return true
		case "site", "subscribe", "incident":
			if i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		case "search":
			if i+1 < len(words) && words[i+1] == "only" {
				return true
			}
		case "publish":
			if i > 0 && words[i-1] == "pubnub" {
				return true
			}
		}
	}
	return false
}
