package redact

import (
	"strings"
	"testing"
)

// The names the rules lower-case only to compare or look up are folded
// without a copy (lowerASCIIIn, isFold): each must say what the copy said,
// for every name, Unicode and broken UTF-8 included (strings.ToLower maps
// U+0130 to i and the Kelvin sign to k; ſ folds to s in strings.EqualFold
// but is no s for ToLower).
func TestFoldWithoutCopyIsTheCopy(t *testing.T) {
	names := []string{"", "p", "pwd", "PWD", "Pwd", "pass", "PASS", "PaSs", "passw", "PASSW", "passwd",
		"pas", "paſs", "PAſS", "pwd\xff", "\xffpwd", "Bearer", "BEARER", "bearer", "Basic", "DIGEST", "İd",
		"\u212aey", "KEY", "Mechanism=", "OTPAUTH://", "SETU", "S", "s", "T", "ſ", "WG PubKey", "wg pubkey ", "x" + strings.Repeat("A", 40), strings.Repeat("Ab", 20), "ÀB", "\xc0\xaf"}
	lits := []string{"pwd", "pass", "passw", "bearer", "basic", "mechanism=", "otpauth://", "setu", "s", "t", "wg pubkey"}
	for _, s := range names {
		for _, n := range []int{0, 1, 3, 8, 32, 64} {
			buf := make([]byte, n)
			if got := lowerASCIIIn(buf, s); got != lowerASCII(s) {
				t.Errorf("lowerASCIIIn(%d bytes, %q) = %q, lowerASCII %q", n, s, got, lowerASCII(s))
			}
		}
		for _, l := range lits {
			if got, want := isFold(s, l), strings.ToLower(s) == l; got != want {
				t.Errorf("isFold(%q, %q) = %v, strings.ToLower's compare %v", s, l, got, want)
			}
			if got, want := isFold(s, l), lowerASCII(s) == l; got != want {
				t.Errorf("isFold(%q, %q) = %v, lowerASCII's compare %v", s, l, got, want)
			}
		}
		if got, want := isPlaceholderWord(s), placeholderWords[strings.ToLower(s)]; got != want {
			t.Errorf("isPlaceholderWord(%q) = %v, the map of its lower case %v", s, got, want)
		}
	}
	// the sets looked up with a name lower-cased in a buffer: findAuthorization's
	// schemes, valueFields, urlSecretParams, hookSchemes
	for _, set := range []map[string]bool{ownRuleScheme, valueFields, urlSecretParams, hookSchemes} {
		for k := range set {
			for _, s := range []string{k, strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:]} {
				var sbuf [20]byte
				if set[lowerASCIIIn(sbuf[:], s)] != set[lowerASCII(s)] {
					t.Errorf("%q looked up as %q, not as lowerASCII's %q", s, lowerASCIIIn(sbuf[:], s), lowerASCII(s))
				}
			}
		}
	}
	for k := range ownRuleScheme {
		for _, s := range []string{k, strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:]} {
			var sbuf [32]byte
			if !ownRuleScheme[lowerASCIIIn(sbuf[:], s)] {
				t.Errorf("scheme %q not found as %q", s, lowerASCIIIn(sbuf[:], s))
			}
		}
	}
}

// classifyIdent keeps what it decided by name (identKinds, and
// findAssignmentsLate its weak names in weakKeys): asked again,
// from several goroutines at once, for more names than the table has
// slots (so that names take each other's slots) and for names too long to
// keep, it says what the words of the name say.
func TestClassifyIdentKeptIsDecided(t *testing.T) {
	parts := []string{"db", "DB", "password", "PASSWORD", "Pass", "pwd", "secret", "Secret", "token", "TOKEN",
		"api", "key", "Key", "public", "site", "salt", "SALT", "private", "the", "hmac", "pat", "aws", "access", "reset", "forgot", "auth", "npm", "x", "2", "v1", "priv"}
	seps := []string{"_", "-", ".", ""}
	var names []string
	for i := 0; len(names) < 3*len(identKinds.slots); i++ {
		n := parts[i%len(parts)] + seps[i/len(parts)%len(seps)] + parts[i/7%len(parts)]
		if i%3 == 0 {
			n += seps[i%len(seps)] + parts[i/11%len(parts)]
		}
		if i%5 == 0 {
			n += strings.Repeat("x", i%80) // some past maxKeptIdent
		}
		names = append(names, n)
	}
	type answer struct {
		kind int
		ok   bool
		weak bool
	}
	want := make([]answer, len(names))
	for i, n := range names {
		want[i].kind, want[i].ok = classifyIdentWords(n)
		want[i].weak = weakKeyIdent(n) && !publicIdent(n)
	}
	var oks, weaks int
	for _, w := range want {
		if w.ok {
			oks++
		}
		if w.weak {
			weaks++
		}
	}
	if oks == 0 || weaks == 0 || oks == len(want) {
		t.Fatalf("the names are not a test: %d of %d name a secret, %d weakly", oks, len(want), weaks)
	}
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			bad := ""
			for round := 0; round < 3; round++ {
				for i := range names {
					k := (i*7 + g*13) % len(names)
					kind, ok := classifyIdent(names[k])
					if (answer{kind, ok, weakKeys.of(names[k], weakNotPublic)}) != want[k] && bad == "" {
						bad = names[k]
					}
				}
			}
			done <- bad
		}()
	}
	for g := 0; g < 4; g++ {
		if bad := <-done; bad != "" {
			t.Errorf("classifyIdent(%q) is not what its words say", bad)
		}
	}
}
