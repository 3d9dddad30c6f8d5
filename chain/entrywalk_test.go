package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestEntryFieldsIsTheLoadersKind: EntryFields, the loader's check of a
// line without its index (a plain clone's pass), gives every line the
// Kind the loader gives it, and an entry's top-level keys and value
// bounds as Fields reads them: on every line of testdata and the corpus,
// and on each cut short at every length up to 200 bytes and at a few
// places after, with a byte order mark (first line or not), a carriage
// return, spaces around, and bytes that break it (a NUL, a control
// character in a string, a stray quote, a lone backslash).
func TestEntryFieldsIsTheLoadersKind(t *testing.T) {
	var lines [][]byte
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	require.Greater(t, len(lines), 1000)
	kinds := map[Kind]int{}
	check := func(line []byte, first bool) {
		var e Entry
		var blocks []Block
		full := append(append([]byte(nil), line...), '\n')
		parseLine(&e, 0, full, first, &blocks)
		type field struct {
			k      string
			vs, ve int
		}
		var got []field
		kind := EntryFields(line[:e.Len], first, func(k string, vs, ve int) { got = append(got, field{k, vs, ve}) })
		require.Equal(t, e.Kind, kind, "%.300q (first %v)", line, first)
		kinds[kind]++
		if kind != KindEntry {
			return
		}
		var want []field
		s := b2s(line[:e.Len])
		i := bytes.IndexByte(line, '{')
		Fields(s, i, func(k string, vs, ve int) bool { want = append(want, field{k, vs, ve}); return true })
		require.Equal(t, want, got, "%.300q", line)
	}
	for n, l := range lines {
		check(l, false)
		if n%7 == 0 {
			check(l, true)
			check(append(append([]byte(nil), bom...), l...), true)
			check(append(append([]byte(nil), bom...), l...), false)
			check(append(append([]byte(nil), l...), '\r'), false)
			check(append(append([]byte(" \t"), l...), ' '), false)
			for k := 0; k < len(l) && k < 200; k++ {
				check(l[:k], false)
			}
			for _, k := range []int{len(l) / 3, len(l) / 2, len(l) - 1} {
				if k > 0 {
					check(l[:k], false)
					for _, bad := range []string{"\x00", "\x01", `"`, `\`, "}"} {
						m := append(append(append([]byte(nil), l[:k]...), bad...), l[k:]...)
						check(m, false)
					}
				}
			}
		}
	}
	require.Greater(t, kinds[KindEntry], 1000)
	require.Greater(t, kinds[KindInvalid], 1000)
	require.Greater(t, kinds[KindBlank], 10)
}
