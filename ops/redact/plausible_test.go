package redact

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// plausibleValueRef is plausibleValue as it was, a pass over the value
// per check (strings.ContainsAny, classOf): the version that profiles the
// value once must answer the same on every value, of every kind, quoted
// or not.
func plausibleValueRef(v string, kind int, quoted bool) bool {
	minLen := 8
	if kind == kindPassword {
		minLen = 6
	}
	if len(v) < minLen || len(v) > 512 {
		return false
	}
	if isPlaceholderWord(v) || sequentialValue(v) { // general7.go
		return false
	}
	if hasPlaceholderPart(v) {
		return false
	}
	if softPlaceholderSet.in(v) && !looksRandomKey(v) {
		return false
	}
	switch v[0] {
	case '%':
		return percentLedPassword(v, kind, quoted) // general6.go
	case '/':
		if !slashLedKey(v) { // general7.go
			return false
		}
	case '$', '{', '<', '[', '(', '\\':
		return false
	case '-', '.', ':', '=', '|', '>', ',':
		if !punctLedPassword(v) {
			return false
		}
	case '\'', '"':
		if len(v) > 1 && (v[1] == '$' || v[1] == '%') {
			return false // a quoted reference inside the quotes: "'$DB_PASSWORD'"
		}
	case '@', '*', '!', '&', '#', '~':
		// YAML anchors/tags/comments, pointers, decorators... unless clearly random
		if len(v) < 10 || classOf(v).kinds() < 3 || entropy(v) < 3.3 || isIdentPath(v[1:]) || strings.ContainsAny(v, "{}") {
			return false
		}
	}
	if len(v) > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && allHex(v[2:]) && len(v) <= 18 {
		return false // a numeric literal
	}
	if isEnvName(v) {
		return false // a reference to another variable: AUTH0_CLIENT_SECRET
	}
	if strings.HasPrefix(v, "arn:aws") {
		return false // an ARN names a resource or a policy
	}
	if nestedAssignment(v) {
		return false
	}
	if strings.ContainsAny(v, " \t\r\n") {
		return false
	}
	if !quoted && (strings.ContainsAny(v, "()[]") || strings.ContainsAny(v, "{}") && !(kind == kindPassword && classOf(v).kinds() >= 4) || isLowerCamelIdent(v)) {
		return false // code (f(x), a[i], {…}); a password may hold a brace among all four kinds of characters
	}
	if !quoted {
		for _, k := range []string{"password", "passwd", "secret", "token", "apikey", "api_key", "credential"} {
			if strings.HasPrefix(v, k) {
				return false // a variable: password16, secretValue, token_str
			}
		}
	}
	if chain.IsUUID(v) {
		// a UUID named as a token or key (HEROKU_API_KEY, apikey: …) is one;
		// a password or a bare "auth" is not expected to be a UUID
		return kind != kindPassword
	}
	if isIdentPath(v) || looksLikePathOrURLFold(v) {
		return false
	}
	// runs of a single character (****, xxxxxx, 000000)
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	if same {
		return false
	}
	c := classOf(v)
	letters := c.lower + c.upper
	if c.digit == 0 && c.other == 0 {
		// letters only: words, type names, identifiers. Accept long random-looking
		// strings, and a quoted or mixed-case password (DrECIN) that is not a
		// CamelCase name.
		if kind == kindPassword && (quoted || c.upper > 0 && c.lower > 0) && !isCamelWords(v) && !(c.upper > 0 && c.lower == 0 && strings.Contains(v, "_")) {
			return true
		}
		return len(v) >= 20 && entropy(v) >= 3.5 && c.upper > 0 && c.lower > 0 && !isCamelWords(v)
	}
	if letters == 0 && c.other == 0 {
		// digits only: a PIN-like password, or a long numeric token
		return kind == kindPassword && len(v) >= 8 || len(v) >= 16 && entropy(v) >= 2.5
	}
	// identifiers like MY_SECRET_TOKEN, some-name, snake_case_words
	if c.digit == 0 && onlyIdentPunct(v) {
		return false
	}
	if kind != kindPassword && entropy(v) < 2.8 {
		return false
	}
	return true
}

func TestPlausibleValueSameAsOnePassPerCheck(t *testing.T) {
	pieces := []string{"a", "Z", "q7", "_", "-", ".", ":", ">", "/", "\\", "=", "@", "#", "!", "*", "&", "~", "'", "\"", "$", "%", "%s", "{", "}", "(", ")", "[", "]",
		"<", " ", "\t", "\n", "\r", ",", "|", "0x", "0", "12345678", "deadbeef", "wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYEXAMPLEKEY", "example", "xxxx", "****",
		"password", "secret", "token", "Key", "value", "DB_PASSWORD", "MY_SECRET", "http://", "https://", "./", "~/", ".json", ".pem", ".env",
		"arn:aws", "7b2d6a1e-5c3f-4e8a-9d0b-1f2e3a4b5c6d", "testRSA2048PrivateKey", "defaultPassword1", "FooBarBaz", "aoS/rv42314bPlMp39SNSKDxTek",
		"ghp_r6d3z1YZ6w67DPDTVRWh1DmGLeHxGUO57RQf", "é", "\xff", "changeme", "your_api_key", "os.environ", "->", "::"}
	r := rand.New(rand.NewSource(31))
	trues := 0
	for n := 0; n < 60000; n++ {
		var b strings.Builder
		for k := r.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		v := b.String()
		for kind := kindPassword; kind <= kindPassword+4; kind++ {
			for _, quoted := range []bool{false, true} {
				want := plausibleValueRef(v, kind, quoted)
				if got := plausibleValue(v, kind, quoted); got != want {
					t.Fatalf("plausibleValue(%q, %d, %v) = %v, want %v", v, kind, quoted, got, want)
				}
				if want {
					trues++
				}
			}
		}
	}
	if trues < 4000 {
		t.Fatalf("only %d plausible values among the samples", trues)
	}
}

// A partSet answers what strings.Contains of each of its parts answers,
// for every set the checks use, on values made of their parts, pieces of
// them and random bytes (a part at the start, at the end, cut short).
func TestPartSetSameAsContains(t *testing.T) {
	sets := map[string][]string{"fake markers": fakeMarkers, "placeholder parts": placeholderParts, "soft placeholders": softPlaceholderParts,
		"empty placeholders": {"xxxx", "XXXX", "****", "<", ">", "${", "{{", "...", "…"}}
	r := rand.New(rand.NewSource(7))
	for name, parts := range sets {
		ps := newPartSet(parts)
		var pieces []string
		for _, p := range parts {
			pieces = append(pieces, p, p[:len(p)-1], p[1:])
		}
		pieces = append(pieces, "a", "Z", "9", "_", "\xff", "é", "x", "X", "*", ".", "$", "{")
		hits := 0
		for n := 0; n < 20000; n++ {
			var b strings.Builder
			for k := r.Intn(6); k >= 0; k-- {
				b.WriteString(pieces[r.Intn(len(pieces))])
			}
			v := b.String()
			want := false
			for _, p := range parts {
				want = want || strings.Contains(v, p)
			}
			if got := ps.in(v); got != want {
				t.Fatalf("%s: in(%q) = %v, want %v", name, v, got, want)
			}
			if want {
				hits++
			}
		}
		if hits < 2000 || hits > 18000 {
			t.Fatalf("%s: %d of 20000 samples hold a part: the samples test little", name, hits)
		}
		if ps.in("") {
			t.Fatalf("%s: the empty string holds a part", name)
		}
	}
}

// parseValue's unquoted value ends where it ended when each byte was
// tested in turn: valueStops for every mode and every byte (a backslash
// stops it only before the letter of an escape: parseValue tests that).
func TestValueStopsAreTheTests(t *testing.T) {
	for _, lineMode := range []bool{false, true} {
		for _, comma := range []bool{false, true} {
			for _, query := range []bool{false, true} {
				stop := &valueStops[valueStopsOf(lineMode, comma, query)]
				for c := 0; c < 256; c++ {
					b := byte(c)
					want := isSpace(b) || b == '"' || b == '\'' || b == '`' || b == '\\'
					if !lineMode && (b == ',' || b == ';' || b == ')' || b == '}' || b == ']') {
						want = true
					}
					if comma && b == ',' {
						want = true
					}
					if query && (b == '&' || b == '#') {
						want = true
					}
					if stop[c] != want {
						t.Errorf("lineMode %v, comma %v, query %v: %q stops %v, want %v", lineMode, comma, query, b, stop[c], want)
					}
				}
			}
		}
	}
}
