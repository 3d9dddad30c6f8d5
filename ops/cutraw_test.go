package ops

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
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

// TestReplaceInStringMatchesDecodeReplaceEncode: replacing secrets in a
// raw JSON string chunk by chunk gives a string that decodes to what
// decoding it and replacing gives, for finds at the start, the end, next
// to each other, across escapes and multi-byte characters; the raw bytes
// that are not a secret are kept (a string without finds is unchanged;
// TestRedactSecretsKeepsTheRestOfTheStringByteForByte holds the rest).
func TestReplaceInStringMatchesDecodeReplaceEncode(t *testing.T) {
	pieces := []string{"a", "key=", "line\\n", "\\t", "\\\"", "\\\\", "\\/", "é", "日本", "\\u00e9", "\\ud83d\\ude42", "\\uZZZZ", "\\x", "<&>", " "}
	rng := rand.New(rand.NewSource(2))
	n := 0
	for k := 0; k < 5000; k++ {
		var b strings.Builder
		for m := rng.Intn(60); m > 0; m-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		raw := `"` + b.String() + `"`
		value := chain.StrValue(raw)
		var finds []redact.Finding
		for at := 0; at < len(value); {
			start := at + rng.Intn(len(value)-at+1)
			if start >= len(value) && rng.Intn(2) == 0 {
				break
			}
			end := min(len(value), start+1+rng.Intn(12))
			if start >= len(value) {
				break
			}
			finds = append(finds, redact.Finding{Rule: "r", Start: start, End: end})
			at = end + rng.Intn(3)
		}
		ph := func(k int) string { return "[REDACTED:" + strings.Repeat("x", k%3) + "\"\\]" }
		// the decode, replace, encode of before
		sb, last := "", 0
		for k, fd := range finds {
			sb += value[last:fd.Start] + ph(k)
			last = fd.End
		}
		want := sb + value[last:]
		got := string(replaceInString(nil, []byte(raw), finds, ph))
		if chain.StrValue(got) != want || (len(finds) == 0 && got != raw) {
			t.Fatalf("raw %q finds %+v:\n got %q\nwant %q", raw, finds, got, EncodeString(want))
		}
		n++
	}
	t.Logf("%d strings the same", n)
}

// TestAsEncodedIsWhatEncodeStringWrites: a raw string is copied as it is
// by the cut (rawCut.verbatim) exactly when decoding and encoding it again
// gives the same bytes, for every escape JSON has, in both cases of hex,
// and the bytes EncodeString escapes.
func TestAsEncodedIsWhatEncodeStringWrites(t *testing.T) {
	pieces := []string{"a", "\\n", "\\r", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "é", "\\u00e9", "\\u0001", "\\u001f", "\\u001F",
		"\\u000a", "\\u000d", "\\u0009", "\\u0008", "\\u000c", "\\u0020", "\\u0041", "\\ud83d\\ude42", "\\u00", "\\", "<&>"}
	rng := rand.New(rand.NewSource(3))
	yes := 0
	for k := 0; k < 20000; k++ {
		var b strings.Builder
		for m := rng.Intn(4); m >= 0; m-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		want := string(EncodeString(chain.StrValue(`"`+s+`"`))) == `"`+s+`"`
		if got := asEncoded(s); got != want {
			t.Fatalf("asEncoded(%q) = %v, want %v", s, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 1000 {
		t.Fatalf("only %d strings as encoded: the test does not exercise both answers", yes)
	}
}
