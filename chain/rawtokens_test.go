package chain

import (
	"math/rand"
	"strconv"
	"testing"
	"unicode/utf8"
)

// oracleRawStringTokens is rawTokens of a JSON string as it was counted
// byte by byte, before the pass over eight plain ASCII bytes at a time.
func oracleRawStringTokens(raw string, k TokenKind) float64 {
	ascii, other := 0, 0
	for i := 1; i < len(raw)-1; {
		ch := raw[i]
		switch {
		case ch == '\\' && i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw):
			v, err := strconv.ParseUint(raw[i+2:i+6], 16, 32)
			switch {
			case err == nil && v < utf8.RuneSelf:
				ascii++
			case err == nil && v >= 0xDC00 && v <= 0xDFFF:
			default:
				other++
			}
			i += 6
		case ch == '\\':
			ascii++
			i += 2
		case ch < utf8.RuneSelf:
			ascii++
			i++
		default:
			if ch >= 0xC0 {
				other++
			}
			i++
		}
	}
	return float64(ascii)/calibration.BytesPerToken[k] + float64(other)*calibration.NonASCIITokens
}

// TestRawTokensMatchesByteCount: a JSON string counts as it did byte by
// byte, whatever lies where in it: a backslash, an escape (\n, \", \u00e9,
// a surrogate pair, one cut short), a multi-byte rune, at every offset
// from the eight-byte steps, at every length up to 40, and one character
// near the closing quote.
func TestRawTokensMatchesByteCount(t *testing.T) {
	pieces := []string{`a`, `Z`, ` `, `~`, `\\`, `\n`, `\"`, `\u00e9`, `\u0041`, `\ud83d\ude00`, `é`, `😀`, `€`, "\x7f", `\u12`, `\`}
	r := rand.New(rand.NewSource(1))
	n := 0
	for length := 0; length <= 40; length++ {
		for trial := 0; trial < 200; trial++ {
			s := `"`
			for len(s) < length+1 {
				if r.Intn(4) == 0 {
					s += pieces[r.Intn(len(pieces))]
				} else {
					s += string(rune('a' + r.Intn(26)))
				}
			}
			s += `"`
			for _, k := range []TokenKind{TokText, TokToolOutput} {
				if got, want := rawTokens(s, k, &calibration), oracleRawStringTokens(s, k); got != want {
					t.Fatalf("rawTokens(%q) = %v, byte by byte %v", s, got, want)
				}
			}
			n++
		}
	}
	t.Logf("%d strings", n)
}
