package chain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexedFieldsAreAllTheIndexReads holds IndexedField to the parser:
// on every entry of testdata and the corpus, each top-level field it says
// the index does not read is given another value (a path string, a longer
// one, a number), and the line's Entry must be what it was but for its
// length. A field the parser learns to read and the list does not name
// fails here, by name (move trusts the list to skip the second index of
// its result: ops.Txn.KeepsIndex).
func TestIndexedFieldsAreAllTheIndexReads(t *testing.T) {
	var paths []string
	globs := []string{"../testdata/sessions/*/*.jsonl", "../testdata/sessions/*/*/*.jsonl"}
	if corpus := testcorpus.Optional(t); corpus != "" {
		globs = append(globs, filepath.Join(corpus, "*", "*.jsonl"), filepath.Join(corpus, "*", "*", "*", "*.jsonl"))
	}
	for _, glob := range globs {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	require.NotEmpty(t, paths)
	replacements := []string{`"/moved/elsewhere"`, `"/a/much/longer/path/than/the/one/it/replaces/x"`, `7`, `{"k":"v"}`}
	fields := map[string]int{}
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := LoadBytes(p, doc)
		require.NoError(t, err)
		for i := range f.Entries {
			e := f.Entries[i]
			if e.Kind != KindEntry || i == 0 { // the first line may hold a byte order mark
				continue
			}
			line := doc[e.Off : e.Off+int64(e.Len)]
			s := string(line)
			Fields(s, skipWS(line, 0), func(k string, vs, ve int) bool {
				if IndexedField(k) {
					return true
				}
				fields[k]++
				for _, r := range replacements {
					changed := s[:vs] + r + s[ve:]
					g, err := LoadBytes("x", []byte("{}\n"+changed+"\n"))
					require.NoError(t, err)
					got, want := g.Entries[1], e
					got.Off, got.Len, got.Line = 0, 0, 0
					want.Off, want.Len, want.Line = 0, 0, 0
					if !assert.Equal(t, want, got, "%s:%d: the index reads field %q (name it in indexedFields)", p, i+1, k) ||
						!assert.Equal(t, e.Blocks(), g.Entries[1].Blocks(), "%s:%d: field %q", p, i+1, k) {
						return false
					}
				}
				return true
			})
		}
	}
	// the fields move rewrites are among those tried
	for _, k := range []string{"cwd"} {
		assert.Positive(t, fields[k], "no entry has a %q field", k)
	}
}
