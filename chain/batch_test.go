package chain

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadLines: the lines a pass reads at once are each line's bytes as
// Raw reads them, whatever ends them (LF, CRLF, the file's end), blank
// and damaged lines too (readLines, ReadBatch); scattered lines are not
// read at once.
func TestReadLines(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"a","message":{"role":"user","content":"one"}}` + "\n",
		`{"type":"assistant","uuid":"b","parentUuid":"a"}` + "\r\n",
		"\n",
		`{"torn` + "\n",
		`{"type":"user","uuid":"c","parentUuid":"b","message":{"role":"user","content":"` + `x"}}` + "\r\n",
		`{"type":"user","uuid":"d","parentUuid":"c"}`, // no line end
	}
	var data []byte
	for _, l := range lines {
		data = append(data, l...)
	}
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	f, err := LoadFile(p)
	require.NoError(t, err)
	defer f.Close()
	n := len(f.Entries)
	require.Equal(t, len(lines), n)
	for lo := 0; lo < n; lo++ {
		for hi := lo + 1; hi <= n; hi++ {
			ls, err := f.readLines(lo, hi, nil)
			require.NoError(t, err)
			for i := lo; i < hi; i++ {
				want, err := f.Raw(i)
				require.NoError(t, err)
				got := ls.raw(i)
				require.Equal(t, string(want), string(got), "lines %d..%d, line %d", lo, hi, i)
				require.Equal(t, len(got), cap(got), "line %d's capacity ends with it", i)
			}
		}
	}
	b := ReadBatch(f, []int{4, 0, 1}) // a path through a file need not go down it
	require.True(t, b.together, "lines close together are read at once")
	for _, i := range []int{4, 0, 1} {
		got, err := b.Raw(i)
		require.NoError(t, err)
		want, _ := f.Raw(i)
		require.Equal(t, string(want), string(got))
		require.True(t, b.Holds(got[:1]))
	}
	require.False(t, b.Holds([]byte("elsewhere")))
	b.Close()

	// one short line at each end of a long run of others: read one by one
	far := append([]byte(lines[0]), make([]byte, 0, 200<<10)...)
	for range 2000 {
		far = append(far, `{"type":"user","uuid":"m","message":{"role":"user","content":"filler filler filler"}}`+"\n"...)
	}
	far = append(far, lines[5]...)
	q := filepath.Join(t.TempDir(), "far.jsonl")
	require.NoError(t, os.WriteFile(q, far, 0o600))
	g, err := LoadFile(q)
	require.NoError(t, err)
	defer g.Close()
	far2 := []int32{0, int32(len(g.Entries) - 1)}
	b = ReadBatch(g, far2)
	require.False(t, b.together, "two lines 180 KB apart are read one by one")
	require.True(t, b.apart, "and each alone, not through the cache of small reads")
	reads := &countingReaderAt{r: g.src.(*blockCache).r}
	g.src.(*blockCache).r = reads
	for _, i := range far2 {
		reads.n = 0
		got, err := b.Raw(int(i))
		require.NoError(t, err)
		require.Equal(t, int64(len(got)), reads.n, "line %d is read alone, not with the %d bytes of a cache block", i, cacheBlock)
		want, _ := g.Raw(int(i))
		require.Equal(t, string(want), string(got))
		require.True(t, b.Holds(got))
	}
	b.Close()
	long := strings.Repeat("\x00", batchMax+1)
	h := filepath.Join(t.TempDir(), "nul.jsonl")
	require.NoError(t, os.WriteFile(h, []byte(lines[0]+long+"\n"+lines[5]), 0o600))
	hf, err := LoadFile(h)
	require.NoError(t, err)
	defer hf.Close()
	b = hf.ReadRange(0, 3)
	require.False(t, b.together, "a line longer than a batch reads is read only when asked for")
	got, err := b.Raw(2)
	require.NoError(t, err)
	require.Equal(t, lines[5], string(got))
	b.Close()
	b = ReadBatch[int](g, nil)
	require.False(t, b.together)
	b.Close()
}

func TestOverlaps(t *testing.T) {
	b := make([]byte, 10, 20)
	require.True(t, Overlaps(b, b))
	require.True(t, Overlaps(b[5:], b))
	require.True(t, Overlaps(b[:0], b[:1])) // cap reaches
	require.False(t, Overlaps(b, make([]byte, 5)))
	require.False(t, Overlaps(nil, b))
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestRawOfAFileCutShortFails: a line read after its file was cut short
// (by another program, after the index was made) is an error, not the
// bytes that were read followed by zeros; each reader of lines: Raw
// through the cache of small reads, a line read alone, a line longer than
// the cache reads.
func TestRawOfAFileCutShortFails(t *testing.T) {
	long := `{"type":"user","uuid":"c","message":{"role":"user","content":"` + strings.Repeat("y", cacheMax+10) + `"}}`
	doc := `{"type":"user","uuid":"a"}` + "\n" + strings.Repeat(`{"type":"user","uuid":"b","message":{"role":"user","content":"filler"}}`+"\n", 5000) + long + "\n" + `{"type":"user","uuid":"d","message":{"role":"user","content":"the end"}}` + "\n"
	for _, member := range []string{"the last line", "the long line"} {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(p, []byte(doc), 0o600))
		f, err := LoadFile(p)
		require.NoError(t, err)
		last := len(f.Entries) - 1
		i := last
		if member == "the long line" {
			i = last - 1
		}
		require.NoError(t, os.Truncate(p, f.Entries[i].Off+int64(f.Entries[i].Len)/2))
		_, err = f.Raw(i)
		assert.Error(t, err, "%s, through the cache", member)
		b := ReadBatch(f, []int{0, i})
		require.True(t, b.apart)
		_, err = b.Raw(i)
		assert.Error(t, err, "%s, read alone", member)
		b.Close()
		f.Close()
	}
}
