package chain

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestWrittenResumeTokensIsLoadWrittens: the estimate made of the lines
// as they are written (no byte kept) is the one made of the written bytes
// held and read back, on every real session we have, on small blocks (a
// line counted in the half of a block it falls in, blocks cut anywhere),
// and on files whose lines are not the index's one for one (a byte order
// mark, CRLF ends, blank and torn lines: counted anew, bytes kept).
func TestWrittenResumeTokensIsLoadWrittens(t *testing.T) {
	docs := map[string][]byte{
		"bom first":     []byte("\ufeff{\"type\":\"user\",\"uuid\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"assistant\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"message\":{\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"yo\"}],\"usage\":{\"input_tokens\":9000}}}\n"),
		"crlf and junk": []byte("{\"type\":\"user\",\"uuid\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\r\nnot json\n\n{\"uuid\":\"b\"}\r\n{\"uuid\":\"c\"}\n{\"uuid\":\"d\"}"),
	}
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	paths = append(paths, testcorpus.JSONLFiles(t, "")...) // every file of the corpus, at any depth
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		docs[p] = b
	}
	require.Greater(t, len(docs), 10)
	defer func(n int) { blockSize = n }(blockSize)
	matched, sent := 0, 0
	for _, bs := range []int{blockSize, 700} {
		blockSize = bs
		for name, doc := range docs {
			write := func(w io.Writer) error { _, err := io.Copy(w, bytes.NewReader(doc)); return err }
			held, err := LoadWritten(name, 0, write)
			require.NoError(t, err)
			want := held.ResumeTokens()
			got, err := WrittenResumeTokens(name, 0, write)
			require.NoError(t, err)
			require.Equal(t, want.Total(), got.Total(), "%s (blocks of %d)", name, bs)
			require.Equal(t, want.Tokens, got.Tokens, name)
			require.Equal(t, want.Model, got.Model, name)
			require.Equal(t, want.Overhead, got.Overhead, name)
			require.Equal(t, want.OverheadMeasured, got.OverheadMeasured, name)
			require.Equal(t, want.Messages, got.Messages, name)
			require.Equal(t, want.Bytes, got.Bytes, name)
			n := 0
			want.Each(func(i int, tk Tokens) {
				g, ok := got.Entry(i)
				require.True(t, ok, "%s: entry %d sent", name, i)
				require.Equal(t, tk, g, "%s: entry %d", name, i)
				n++
			})
			sent += n
			lc := &lineCounts{}
			iw := NewIndexWriter(name, lc, 0)
			require.NoError(t, write(iw))
			f, err := iw.Close()
			require.NoError(t, err)
			if lc.matches(f) {
				matched++
			}
		}
	}
	t.Logf("%d files (twice), %d counted as they were written, %d sent entries the same", len(docs), matched, sent)
	require.Greater(t, matched, len(docs), "most files are counted as written, not read back")
}
