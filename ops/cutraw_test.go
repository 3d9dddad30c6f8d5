package ops

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// TestCutRawStringMatchesCutMiddle: cutting a raw JSON string without
// decoding it whole gives the bytes of decoding, CutMiddle and encoding,
// on strings of every escape the client writes (and some it does not):
// \n runs, \uXXXX, surrogate pairs, lone surrogates, invalid escapes,
// multi-byte UTF-8 at the cut points, and cuts of every size.
func TestCutRawStringMatchesCutMiddle(t *testing.T) {
	pieces := []string{"a", "line\\n", "\\t", "\\\"", "\\\\", "\\/", "é", "日本", "🙂", "\\u00e9", "\\u65e5",
		"\\ud83d\\ude42", "\\ud83d", "\\udc00x", "\\uZZZZ", "\\x", "\\b\\f\\r", "\\u0041", "<&>", " ", "\\n\\n\\n"}
	rng := rand.New(rand.NewSource(1))
	n, cut := 0, 0
	for k := 0; k < 3000; k++ {
		var b strings.Builder
		for m := rng.Intn(400); m > 0; m-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		raw := `"` + b.String() + `"`
		for _, max := range []int{0, 1, 2, 3, 5, 10, 17, 64, 100, 500, 2000} {
			want, wantOK := CutMiddle(chain.StrValue(raw), max)
			got, ok := cutRawString(raw, max)
			if ok != wantOK || (ok && string(got) != string(EncodeString(want))) {
				t.Fatalf("max %d, raw %q:\n got %v %q\nwant %v %q", max, raw, ok, got, wantOK, EncodeString(want))
			}
			n++
			if ok {
				cut++
			}
		}
	}
	t.Logf("%d cuts the same (%d of them cut)", n, cut)
	if cut < n/4 {
		t.Fatalf("only %d of %d strings were cut: the test does not exercise the cut", cut, n)
	}
}
