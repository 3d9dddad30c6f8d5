package chain

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexWriterMatchesLoader writes documents through an IndexWriter in
// chunks of every awkward size and checks that the sink got exactly the
// bytes and that the index equals the loader's index of the same bytes.
func TestIndexWriterMatchesLoader(t *testing.T) {
	long := `{"type":"user","uuid":"a","message":{"role":"user","content":"` + strings.Repeat("x", 3*blockSize+17) + `"}}`
	docs := map[string]string{
		"empty":         "",
		"no final eol":  `{"type":"user","uuid":"a"}` + "\n" + `{"type":"assistant","uuid":"b","parentUuid":"a"}`,
		"crlf and junk": "{\"uuid\":\"a\"}\r\nnot json\n\n{\"uuid\":\"b\"}\n",
		"long lines":    long + "\n" + `{"uuid":"b"}` + "\n" + long + "\n",
		"many blocks":   strings.Repeat(`{"type":"system","uuid":"c","content":"`+strings.Repeat("y", 1000)+`"}`+"\n", 3*blockSize/1000),
	}
	for name, doc := range docs {
		want, err := LoadBytes("x", []byte(doc))
		require.NoError(t, err)
		for k, chunk := range []int{1, 7, 4096, blockSize - 1, blockSize + 3, 1 << 30} {
			// the expected number of lines: right, unknown, too few, too many
			hint := []int{len(want.Entries), 0, len(want.Entries) / 2, len(want.Entries) + 5}[k%4]
			if chunk == 1 && len(doc) > 1<<16 {
				continue
			}
			var sink bytes.Buffer
			w := NewIndexWriter("x", &sink, hint)
			for rest := doc; len(rest) > 0; {
				n := min(chunk, len(rest))
				k, err := w.Write([]byte(rest[:n]))
				require.NoError(t, err)
				require.Equal(t, n, k)
				rest = rest[n:]
			}
			got, err := w.Close()
			require.NoError(t, err, name)
			assert.Equal(t, doc, sink.String(), "%s, chunks of %d: sink", name, chunk)
			assert.Equal(t, want.Size, got.Size, "%s, chunks of %d", name, chunk)
			assert.Equal(t, want.Entries, got.Entries, "%s, chunks of %d, %d lines expected", name, chunk, hint)
		}
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestIndexWriterReportsSinkErrors checks that a failing sink fails both
// the write and Close, and that the writer stops there.
func TestIndexWriterReportsSinkErrors(t *testing.T) {
	line := []byte(`{"uuid":"a","content":"` + strings.Repeat("z", 1<<20) + `"}` + "\n")
	w := NewIndexWriter("x", &failingWriter{after: blockSize}, 0)
	var err error
	for i := 0; i < 200 && err == nil; i++ {
		_, err = w.Write(line)
	}
	require.EqualError(t, err, "disk full")
	_, err = w.Write(line)
	require.Error(t, err)
	_, err = w.Close()
	require.EqualError(t, err, "disk full")
}

func TestLongestLine(t *testing.T) {
	for in, want := range map[string]int{"": 0, "\n": 0, "ab\nc": 2, "a\nbcd\n": 3, "abcd": 4, "\n\nxy\n": 2} {
		assert.Equal(t, want, longestLine([]byte(in)), "%q", in)
	}
}
