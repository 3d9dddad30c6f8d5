package ops

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

// TestReplaceInStringByRawOffsetsIsTheChunkWalk: replacing the secrets of
// a raw JSON string by mapping their decoded offsets to raw ones (copying
// the raw bytes between them whole) writes the bytes the chunk-by-chunk
// walk writes, for every escape JSON has (and broken ones: a lone
// surrogate, \u without hex digits, a backslash that ends the string),
// finds at the start, the end, next to each other and across escapes;
// where a find starts or ends inside the bytes of one escaped character
// the mapping declines and the walk is used.
func TestReplaceInStringByRawOffsetsIsTheChunkWalk(t *testing.T) {
	pieces := []string{"a", "key=", "line\\n", "\\t", "\\r", "\\b", "\\f", "\\\"", "\\\\", "\\/", "é", "日本", "\\u00e9", "\\u0041",
		"\\ud83d\\ude42", "\\ud83d", "\\ude42x", "\\uZZZZ", "\\u00", "\\x", "<&>", " ", "sk-ant-api03-abcdef"}
	rng := rand.New(rand.NewSource(5))
	took, declined := 0, 0
	for k := 0; k < 20000; k++ {
		var b strings.Builder
		for m := rng.Intn(40); m > 0; m-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		if rng.Intn(20) == 0 {
			b.WriteString("\\") // a torn escape at the end
		}
		raw := []byte(`"` + b.String() + `"`)
		n := 0
		chain.EachDecoded(b.String(), func(c string) { n += len(c) })
		var finds []redact.Finding
		for at := 0; at < n; {
			start := at + rng.Intn(min(n-at, 30)+1)
			if start >= n {
				break
			}
			end := min(n, start+1+rng.Intn(12))
			finds = append(finds, redact.Finding{Rule: "r", Start: start, End: end})
			at = end + rng.Intn(3)
		}
		ph := func(k int) string { return "[REDACTED:" + strings.Repeat("x", k%3) + "\"\\\n]" }
		want := string(replaceInStringWalk(nil, raw, finds, ph))
		got, ok := replaceByRawOffsets([]byte("prefix"), raw, finds, ph)
		if !ok {
			// only a find inside a character of several bytes that an
			// escape wrote declines
			if !strings.Contains(string(raw), "\\u") {
				t.Fatalf("raw %q finds %+v: declined with no \\u escape", raw, finds)
			}
			declined++
			continue
		}
		took++
		if string(got) != "prefix"+want {
			t.Fatalf("raw %q finds %+v:\n got %q\nwant %q", raw, finds, got, want)
		}
	}
	t.Logf("%d by raw offsets, %d declined", took, declined)
	if took < 5000 || declined < 500 {
		t.Fatalf("%d strings by raw offsets, %d declined: the test does not exercise both", took, declined)
	}
}
