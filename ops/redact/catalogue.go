package redact

import (
	_ "embed"
	"regexp"
	"strconv"
	"strings"
)

// gitleaksTOML is gitleaks' default rule catalogue (catalogue/SOURCE.md).
//
//go:embed catalogue/gitleaks.toml
var gitleaksTOML string

// catRule is one [[rules]] entry of a gitleaks catalogue.
type catRule struct {
	id, regex string
	keywords  []string
	group     int
	entropy   float64
}

// parseCatalogue reads the [[rules]] entries of a gitleaks TOML file: the
// keys id, regex (”'…”' or "…"), keywords, secretGroup and entropy of
// each; tables nested in a rule ([[rules.allowlists]]) and every other key
// are skipped.
func parseCatalogue(src string) []catRule {
	var out []catRule
	var cur *catRule
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "[[rules]]":
			out = append(out, catRule{})
			cur = &out[len(out)-1]
			continue
		case strings.HasPrefix(l, "["):
			cur = nil // [allowlist], [[rules.allowlists]]: not read
			continue
		case cur == nil || l == "" || strings.HasPrefix(l, "#"):
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "id":
			cur.id, _ = strconv.Unquote(val)
		case "regex":
			if strings.HasPrefix(val, "'''") {
				cur.regex = strings.TrimSuffix(strings.TrimPrefix(val, "'''"), "'''")
			} else {
				cur.regex, _ = strconv.Unquote(val)
			}
		case "secretGroup":
			cur.group, _ = strconv.Atoi(val)
		case "entropy":
			cur.entropy, _ = strconv.ParseFloat(val, 64)
		case "keywords":
			for !strings.Contains(val, "]") && i+1 < len(lines) {
				i++
				val += strings.TrimSpace(lines[i])
			}
			for _, k := range strings.Split(strings.Trim(val, "[]"), ",") {
				if k, err := strconv.Unquote(strings.TrimSpace(k)); err == nil && k != "" {
					cur.keywords = append(cur.keywords, strings.ToLower(k))
				}
			}
		}
	}
	return out
}

// catalogueSkip are catalogue rules left out on purpose (SOURCE.md).
// The built-in rules cover generic-api-key, curl -u/-H and nuget
// passwords with checks for references ($TOKEN, %PASS%) these lack.
var catalogueSkip = map[string]bool{"generic-api-key": true, "curl-auth-user": true, "curl-auth-header": true, "nuget-config-password": true}

// commonKeyword: a rule keyed on one of these words (kubernetes-secret-yaml
// on "secret", hashicorp-tf-password on "password") would run its regexp
// on most lines of a session; the built-in keyword rules cover them.
var commonKeyword = map[string]bool{"secret": true, "password": true, "secret_key": true, "token": true, "api_key": true, "apikey": true, "auth": true}

// prioCatalogue: a catalogue rule is a fallback, for what no built-in rule
// finds; where one does, its id (and check) wins.
const prioCatalogue = 0

// catalogueRules turns the catalogue's rules into scanner rules, except
// those whose id a built-in rule has (have), those whose every keyword is
// (or starts like) an anchor of a built-in rule (anchors: a built-in rule
// knows the vendor's prefix or name already, and a second rule on it only
// cost time on text dense with such tokens) and those SOURCE.md lists.
func catalogueRules(have, anchors map[string]bool) []*Rule {
	var out []*Rule
	for _, c := range parseCatalogue(gitleaksTOML) {
		if c.id == "" || c.regex == "" || have[c.id] || catalogueSkip[c.id] || len(c.keywords) == 0 {
			continue
		}
		known := true
		for _, k := range c.keywords {
			kn := false
			for a := range anchors {
				kn = kn || len(a) >= 3 && (strings.HasPrefix(a, k) || strings.HasPrefix(k, a))
			}
			known = known && kn
		}
		if known {
			continue
		}
		weak := false
		for _, k := range c.keywords {
			weak = weak || len(k) < 4 || commonKeyword[k]
		}
		if weak {
			continue
		}
		// gitleaks' keyed rules start with the identifier around the
		// keyword, (?i)[\w.-]{0,50}?(?:kw)…: the part before the keyword
		// holds no secret, and without it the match starts at the keyword,
		// so the regexp is tried at the anchor hit only, not across a
		// window (a quarter of the CPU of redact-secrets on the secrets
		// shape went there)
		src := c.regex
		if rest, ok := strings.CutPrefix(src, `(?i)[\w.-]{0,50}?`); ok {
			src = `(?i)` + rest
		}
		// \b(PREFIX…): the same, the word boundary checked on the secret
		// (which starts the match) by the rule's Boundary
		var bound func(byte) bool
		if rest, ok := strings.CutPrefix(src, `\b(`); ok && c.group <= 1 {
			src, bound = `(`+rest, isIdentByte
		}
		re, err := regexp.Compile(src)
		if err != nil {
			continue // a construct RE2 does not take
		}
		g := c.group
		if g == 0 && re.NumSubexp() > 0 {
			g = 1
		}
		minEntropy := c.entropy
		r := &Rule{ID: c.id, Anchors: c.keywords, Fold: true, Re: re, After: 320}
		before := 0
		if !startsWithAnchor(r) {
			before = 80
		}
		out = append(out, &Rule{ID: c.id, Anchors: c.keywords, Fold: true, Re: re, Before: before, After: 320, Boundary: bound,
			Priority: prioCatalogue, group: g,
			Check: func(text string, s, e int) bool {
				v := text[s:e]
				return len(v) >= 8 && prefixLooksReal(v) && !emptyPlaceholder(v) && !hasPlaceholderPart(v) && !isPlaceholderWord(v) &&
					!strings.ContainsAny(v, "$%{}<>") && entropy(v) >= minEntropy
			}})
	}
	return out
}
