package chain

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A render that changes every line's length (a move's path rewrite)
// makes each batch anew; its buffers, read and made, are taken back for
// the next batches, so what a render allocates is the few batches in
// flight, whatever the file's size (a move of 315 MB made 378 MB of
// garbage in them before: collections and first-touched pages). The same
// render of a file three times the size allocates about as much. Each
// member is a transform the render passes every line through.
func TestWriteMappedReusesItsBuffers(t *testing.T) {
	// the batches in flight grow with the workers: two, as on the
	// machines of the figures, whatever this one has
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	line := `{"type":"user","uuid":"0123","cwd":"/home/u/project","message":{"role":"user","content":"` + strings.Repeat("x", 400) + `"}}` + "\n"
	load := func(mb int) *File {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(line, (mb<<20)/len(line))), 0o600))
		f, err := LoadFile(p)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	small, large := load(16), load(48)
	for _, tc := range []struct {
		name string
		tr   TransformAt
	}{
		{"shorter lines", func(_ int, b []byte) []byte { return b[:len(b)-20] }},
		{"the same lines", func(_ int, b []byte) []byte { return b }},
		{"lines cut in half", func(_ int, b []byte) []byte { return b[:len(b)/2] }},
	} {
		alloc := func(f *File) uint64 {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			n, err := f.writeMapped(io.Discard, nil, tc.tr)
			runtime.ReadMemStats(&m1)
			require.NoError(t, err, tc.name)
			assert.Positive(t, n, tc.name)
			return m1.TotalAlloc - m0.TotalAlloc
		}
		a16, a48 := alloc(small), alloc(large)
		assert.Less(t, a48, a16+8<<20, "%s: a render of 48 MB allocated %d bytes, one of 16 MB %d: it grows with the file", tc.name, a48, a16)
	}
}

// A line far longer than a batch is rendered in a buffer of its own that
// the renders do not keep: the next batches would carry it (a 200 MB line
// kept 552 MB in use after a collection).
func TestWriteMappedKeepsNoHugeBuffer(t *testing.T) {
	long := `{"type":"user","uuid":"a","x":"` + strings.Repeat("z", 3*renderBufMax) + `"}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(long+`{"type":"user","uuid":"b"}`+"\n"), 0o600))
	f, err := LoadFile(p)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.writeMapped(io.Discard, nil, func(_ int, b []byte) []byte { return b[:len(b)-1] })
	require.NoError(t, err)
	for len(renderBufs) > 0 {
		b := <-renderBufs
		assert.LessOrEqual(t, cap(b), renderBufMax, "a buffer of %d bytes kept", cap(b))
	}
}
