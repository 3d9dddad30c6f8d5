package chain

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// corpusFiles returns every .jsonl file in testdata/ and ../shared/corpus.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{"../testdata", "../../shared/corpus"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return nil
		})
	}
	require.NotEmpty(t, out, "no session files found: is ../shared/corpus beside the repo?")
	return out
}

func TestRoundTripCorpus(t *testing.T) {
	for _, p := range corpusFiles(t) {
		t.Run(p, func(t *testing.T) {
			orig, err := os.ReadFile(p)
			require.NoError(t, err)
			f, err := LoadFile(p)
			require.NoError(t, err)
			defer f.Close()
			var out bytes.Buffer
			n, err := f.Write(&out, nil, nil)
			require.NoError(t, err)
			require.Equal(t, int64(len(orig)), n)
			require.True(t, bytes.Equal(orig, out.Bytes()), "round trip changed bytes")
			// and with every line rewritten through an edit that keeps it
			ed := Edits{}
			for i := range f.Entries {
				raw, err := f.Raw(i)
				require.NoError(t, err)
				ed.Get(i).Raw = raw
			}
			out.Reset()
			_, err = f.Write(&out, ed, nil)
			require.NoError(t, err)
			require.True(t, bytes.Equal(orig, out.Bytes()), "line-by-line rewrite changed bytes")
			// and through the transforming writer with an identity transform
			out.Reset()
			_, err = f.Write(&out, nil, func(b []byte) []byte { return b })
			require.NoError(t, err)
			require.True(t, bytes.Equal(orig, out.Bytes()), "transforming writer changed bytes")
		})
	}
}
