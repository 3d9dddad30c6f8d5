package chain

import (
	"os"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestMayBeSyntheticErrorIsWhatTheLineSays: the index's mark of a
// possible synthetic error (Entry.MayBeSyntheticError), by which info and
// the token estimate skip reading lines, is never false where
// IsSyntheticError of the line is true: on every entry of testdata and
// the corpus (the client's real error entries among them), and on the
// family of ways a line can say it (true, false, a string, a number, the
// field twice, its key escaped, the words only inside the message).
func TestMayBeSyntheticErrorIsWhatTheLineSays(t *testing.T) {
	head := `{"type":"assistant","uuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d","message":{"role":"assistant","content":[{"type":"text","text":"isApiErrorMessage"}]}`
	var lines []string
	for _, tail := range []string{
		``, `,"isApiErrorMessage":true`, `,"isApiErrorMessage":false`, `,"isApiErrorMessage":"true"`,
		`,"isApiErrorMessage":1`, `,"isApiErrorMessage":0`, `,"isApiErrorMessage":null`,
		`,"isApiErrorMessage":false,"isApiErrorMessage":true`, `,"isApiErrorMessage":true,"isApiErrorMessage":false`,
		`,"isApiErr\u006frMessage":true`, `,"x":{"isApiErrorMessage":true}`, ` , "isApiErrorMessage" : true `,
	} {
		lines = append(lines, head+tail+"}")
	}
	doc := []byte(strings.Join(lines, "\n") + "\n")
	var files [][]byte
	files = append(files, doc)
	for _, p := range corpusFiles(t) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files = append(files, b)
	}
	yes, marked := 0, 0
	for _, b := range files {
		f, err := LoadBytes("x.jsonl", b)
		require.NoError(t, err)
		for i := range f.Entries {
			e := &f.Entries[i]
			if e.Kind != KindEntry {
				continue
			}
			raw := b[e.Off : e.Off+int64(e.Len)]
			is := IsSyntheticError(raw)
			require.False(t, is && !e.MayBeSyntheticError(), "line %q is a synthetic error the index did not mark", raw)
			if is {
				yes++
			}
			if e.MayBeSyntheticError() {
				marked++
			}
		}
	}
	// doc's own six lines that say true, and with the corpus (absent in a
	// fresh clone) its synthetic errors too
	want := 6
	if _, err := testcorpus.Dir(); err == nil {
		want = 11
	}
	require.GreaterOrEqual(t, yes, want, "too few synthetic errors to hold the mark to")
	// the mark is no wider than the first field: the lines that say false
	// (or nothing) are not marked, so they are not read
	f, err := LoadBytes("x.jsonl", doc)
	require.NoError(t, err)
	var got []bool
	for i := range f.Entries {
		got = append(got, f.Entries[i].MayBeSyntheticError())
	}
	require.Equal(t, []bool{false, true, false, true, true, false, false, false, true, true, false, true}, got)
	t.Logf("%d synthetic errors, %d marked", yes, marked)
}
