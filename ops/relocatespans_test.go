package ops

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// oracleStructuralPathSpans is structuralPathSpans as it was before it
// searched only the values the next occurrence lies in: every value of
// every field outside content searched.
func oracleStructuralPathSpans(raw, from []byte, fn func(key string, at, end int)) int {
	str := unsafe.String(unsafe.SliceData(raw), len(raw))
	i := 0
	for i < len(str) && str[i] != '{' {
		i++
	}
	if i == len(str) || !bytes.Contains(raw, from) {
		return 0
	}
	n := 0
	chain.Fields(str, i, func(key string, vs, ve int) bool {
		if isContentKey(key) {
			return true
		}
		v := raw[vs:ve]
		for k := 0; ; {
			m := bytes.Index(v[k:], from)
			if m < 0 {
				break
			}
			at := k + m
			end := at + len(from)
			if at > 0 && v[at-1] == '"' && (at < 2 || v[at-2] != '\\') && end < len(v) && (v[end] == '"' || v[end] == '/') {
				fn(key, vs+at, vs+end)
				n++
			}
			k = end
		}
		return true
	})
	return n
}

// TestStructuralPathSpansMatchesTheOracle: the spans a move rewrites are
// those every value searched gives, on every line of testdata and the
// corpus, for the line's own cwd, a folder above it, a path only in
// content, and the hand-made lines of the rewrite test (a path in a key,
// in content before and after the cwd, escaped, in nested objects). A
// failure names the file, the line and the path.
func TestStructuralPathSpansMatchesTheOracle(t *testing.T) {
	type span struct {
		key     string
		at, end int
	}
	spans := func(f func([]byte, []byte, func(string, int, int)) int, raw, from []byte) ([]span, int) {
		var out []span
		n := f(raw, from, func(k string, a, e int) { out = append(out, span{k, a, e}) })
		return out, n
	}
	check := func(where string, raw []byte, from string) {
		fb := jsonText(from)
		want, wn := spans(oracleStructuralPathSpans, raw, fb)
		got, gn := spans(structuralPathSpans, raw, fb)
		require.Equal(t, wn, gn, "%s, path %q", where, from)
		require.Equal(t, want, got, "%s, path %q", where, from)
	}
	hand := []string{
		`{"cwd":"/home/u/app","x":1}`,
		`{"message":{"content":"cd /home/u/app"},"cwd":"/home/u/app"}`,
		`{"cwd":"/home/u/app","message":{"content":"cd /home/u/app"},"snapshot":{"a":{"realParentDir":"/home/u/app/x"}}}`,
		`{"/home/u/app":"/home/u/app","k":"\"/home/u/app","j":"\\"}`,
		`{"a":"x/home/u/app","b":["/home/u/app","/home/u/app/b"],"toolUseResult":{"p":"/home/u/app"},"c":"/home/u/app2"}`,
		`{"a":"/home/u/app/home/u/app","b":"/home/u/ap"}`,
	}
	for k, h := range hand {
		check(fmt.Sprintf("hand-made line %d", k), []byte(h), "/home/u/app")
	}
	lines := 0
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		for i := range f.Entries {
			raw, err := f.Raw(i)
			require.NoError(t, err)
			cwd := gjson.GetBytes(raw, "cwd").Str
			if cwd == "" {
				continue
			}
			lines++
			where := fmt.Sprintf("%s line %d", p, f.Entries[i].Line)
			check(where, raw, cwd)
			check(where, raw, filepath.Dir(cwd))
			check(where, raw, "/tmp")
		}
		f.Close()
	}
	require.Greater(t, lines, 100)
}
