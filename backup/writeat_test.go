package backup

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRenderWritesAtPlaces: every writer of a file (WriteTo for -o, the
// fsynced replace, CreateNew, a DirSync batch and its Last file) gives its
// render an io.WriterAt: blocks written at their places, out of order and
// from several goroutines at a time, make the file; a render that has
// left bytes of Write in the buffer is refused a write at a place, and
// nothing is left.
func TestRenderWritesAtPlaces(t *testing.T) {
	const block = 1 << 20
	want := make([]byte, 5*block+123)
	for i := range want {
		want[i] = byte('a' + i%26)
	}
	atPlaces := func(w io.Writer) error {
		wa, ok := w.(io.WriterAt)
		if !ok {
			t.Fatalf("the render's writer %T does not write at places", w)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for off := (len(want) - 1) / block * block; off >= 0; off -= block {
			wg.Go(func() {
				if _, err := wa.WriteAt(want[off:min(off+block, len(want))], int64(off)); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	dir := t.TempDir()
	check := func(p string) {
		t.Helper()
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s: the blocks are not at their places", p)
	}
	p := filepath.Join(dir, "out.jsonl")
	require.NoError(t, WriteTo(p, false, atPlaces))
	check(p)
	require.NoError(t, WriteFileAtomic(p, 0, atPlaces))
	check(p)
	p = filepath.Join(dir, "new.jsonl")
	require.NoError(t, CreateNew(dir, p, atPlaces))
	check(p)
	ds := &DirSync{}
	side := filepath.Join(dir, "s", "side.jsonl")
	require.NoError(t, ds.CreateNew(side, atPlaces))
	last := filepath.Join(dir, "last.jsonl")
	require.NoError(t, ds.Last(last, atPlaces, func() error { return nil }))
	check(side)
	check(last)

	mixed := filepath.Join(dir, "mixed.jsonl")
	err := WriteTo(mixed, false, func(w io.Writer) error {
		if _, err := w.Write([]byte("{}\n")); err != nil {
			return err
		}
		_, err := w.(io.WriterAt).WriteAt([]byte("x"), 0)
		return err
	})
	require.ErrorIs(t, err, errMixedWrites)
	_, serr := os.Lstat(mixed)
	require.True(t, os.IsNotExist(serr), "a refused render leaves nothing")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		require.False(t, isTempName(e.Name()), "temp file %s left", e.Name())
	}
}
