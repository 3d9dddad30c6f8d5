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
		"\u212aey", "KEY", "x" + strings.Repeat("A", 40), strings.Repeat("Ab", 20), "ÀB", "\xc0\xaf"}
	lits := []string{"pwd", "pass", "passw", "bearer", "basic"}
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
	// ownRuleScheme as findAuthorization looks a scheme up
	for k := range ownRuleScheme {
		for _, s := range []string{k, strings.ToUpper(k), strings.ToUpper(k[:1]) + k[1:]} {
			var sbuf [32]byte
			if !ownRuleScheme[lowerASCIIIn(sbuf[:], s)] {
				t.Errorf("scheme %q not found as %q", s, lowerASCIIIn(sbuf[:], s))
			}
		}
	}
}
