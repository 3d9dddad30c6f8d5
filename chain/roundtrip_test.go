package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// corpusFiles returns every .jsonl file in testdata/ and ../shared/corpus.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	out := testcorpus.JSONLFiles(t, "../testdata")
	require.NotEmpty(t, out)
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
			ed := NewEdits()
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

// TestWriteMappedIsWriteTransformed: a file written through a transform
// (a clone, a fork) with edits that only drop or replace lines is
// transformed on every core, batch by batch; the
// bytes are those of the one-line-at-a-time writer, for transforms that
// keep each line's length in place (the remapper), that grow or shrink
// lines, and that return another buffer, on every testdata and corpus file
// and on odd files (CRLF, no final newline, blank and invalid lines, a
// line longer than a batch, many small lines).
func TestWriteMappedIsWriteTransformed(t *testing.T) {
	dir := t.TempDir()
	odd := map[string]string{
		"crlf.jsonl":   "{\"type\":\"user\",\"uuid\":\"a\"}\r\n{\"type\":\"assistant\",\"uuid\":\"b\"}\r\n",
		"noeol.jsonl":  "{\"type\":\"user\",\"uuid\":\"a\"}\n{\"type\":\"assistant\",\"uuid\":\"b\"}",
		"blanks.jsonl": "\n{\"type\":\"user\",\"uuid\":\"a\"}\n\n   \nnot json\n{\"type\":\"user\",\"uuid\":\"c\"}\n",
		"huge.jsonl":   "{\"type\":\"user\",\"uuid\":\"a\",\"x\":\"" + strings.Repeat("z", 3<<20) + "\"}\n{\"type\":\"user\",\"uuid\":\"b\"}\n",
		"many.jsonl":   strings.Repeat("{\"type\":\"user\",\"uuid\":\"0123\",\"pad\":\"abcdefghij\"}\n", 200000),
	}
	var files []string
	for name, body := range odd {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		files = append(files, p)
	}
	files = append(files, corpusFiles(t)...)
	transforms := map[string]Transform{
		"in place": func(b []byte) []byte {
			for i, c := range b {
				if c >= 'a' && c <= 'f' {
					b[i] = 'a' + 'f' - c
				}
			}
			return b
		},
		"grow":   func(b []byte) []byte { return append(append([]byte("["), b...), ']') },
		"shrink": func(b []byte) []byte { return b[:len(b)/2] },
		"copy":   func(b []byte) []byte { return append([]byte(nil), b...) },
	}
	for _, p := range files {
		f, err := LoadFile(p)
		require.NoError(t, err)
		// no edits; every third line dropped and every fifth replaced
		// (a fork, a clone of a branch); the first and last lines dropped
		edits := []*Edits{nil, NewEdits(), NewEdits()}
		for i := range f.Entries {
			switch {
			case i%3 == 1:
				edits[1].Get(i).Drop = true
			case i%5 == 0:
				edits[1].Get(i).Raw = []byte(`{"type":"user","uuid":"replaced"}`)
			}
		}
		if n := len(f.Entries); n > 0 {
			edits[2].Get(0).Drop = true
			edits[2].Get(n - 1).Drop = true
		}
		for name, tr1 := range transforms {
			tr := func(_ int, raw []byte) []byte { return tr1(raw) }
			for k, ed := range edits {
				var want, got bytes.Buffer
				nw, err := f.writeTransformed(&want, ed, tr, nil)
				require.NoError(t, err)
				ng, err := f.writeMapped(&got, ed, tr)
				require.NoError(t, err)
				require.Equal(t, nw, ng, "%s, %s, edits %d", p, name, k)
				require.True(t, bytes.Equal(want.Bytes(), got.Bytes()), "%s, %s, edits %d: the bytes differ", p, name, k)
			}
		}
		f.Close()
	}
}
