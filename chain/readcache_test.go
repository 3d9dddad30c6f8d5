package chain

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBlockCacheReadsWhatTheFileHolds: reads through the shared block
// cache return the file's bytes, from several goroutines and files at
// once, across block boundaries, at the end of the file, and past the
// end of a block that was read before the file grew.
func TestBlockCacheReadsWhatTheFileHolds(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(3))
	var files []*os.File
	var datas [][]byte
	for k := 0; k < 3; k++ {
		data := make([]byte, 3*cacheBlock+12345*(k+1))
		rng.Read(data)
		p := filepath.Join(dir, "f"+string(rune('a'+k)))
		require.NoError(t, os.WriteFile(p, data, 0o600))
		fh, err := os.Open(p)
		require.NoError(t, err)
		defer fh.Close()
		files, datas = append(files, fh), append(datas, data)
	}
	caches := []*blockCache{newBlockCache(files[0]), newBlockCache(files[1]), newBlockCache(files[2])}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			for n := 0; n < 3000; n++ {
				k := r.Intn(3)
				size := 1 + r.Intn(cacheMax+100)
				off := r.Int63n(int64(len(datas[k])))
				p := make([]byte, size)
				got, err := caches[k].ReadAt(p, off)
				want := datas[k][off:min(int(off)+size, len(datas[k]))]
				if got < size {
					if err != io.EOF && err != io.ErrUnexpectedEOF {
						t.Errorf("file %d: short read of %d at %d without EOF: %v", k, size, off, err)
						return
					}
				} else if err != nil {
					t.Errorf("file %d: read of %d at %d: %v", k, size, off, err)
					return
				}
				if !bytes.Equal(p[:got], want[:got]) || got != len(want) {
					t.Errorf("file %d: read of %d at %d gave other bytes (%d of %d)", k, size, off, got, len(want))
					return
				}
			}
		}(w)
	}
	wg.Wait()

	// a file that grows after its last block was cached
	p := filepath.Join(dir, "grows")
	require.NoError(t, os.WriteFile(p, []byte("first line\n"), 0o600))
	fh, err := os.Open(p)
	require.NoError(t, err)
	defer fh.Close()
	c := newBlockCache(fh)
	b := make([]byte, 10)
	_, err = c.ReadAt(b, 0)
	require.NoError(t, err)
	require.Equal(t, "first line", string(b))
	af, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = af.WriteString("appended\n")
	require.NoError(t, err)
	require.NoError(t, af.Close())
	b = make([]byte, 8)
	_, err = c.ReadAt(b, 11)
	require.NoError(t, err)
	require.Equal(t, "appended", string(b))
}

// gatedReader is a file whose reads wait until the gate opens.
type gatedReader struct {
	r       io.ReaderAt
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	g.entered <- struct{}{}
	<-g.gate
	return g.r.ReadAt(p, off)
}

// TestBlockCacheReadsWithoutHoldingTheOthers: a block being read from one
// file (a slow read, held here) does not hold up the readers of another
// file's cached blocks. The cache is shared by the workers of every
// parallel pass, and a block read under its lock made them take turns.
func TestBlockCacheReadsWithoutHoldingTheOthers(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), cacheBlock/8)
	fast := newBlockCache(bytes.NewReader(data))
	p := make([]byte, 100)
	_, err := fast.ReadAt(p, 10) // its first block is cached now
	require.NoError(t, err)

	slow := &gatedReader{r: bytes.NewReader(data), entered: make(chan struct{}), gate: make(chan struct{})}
	sc := newBlockCache(slow)
	done := make(chan error, 1)
	go func() {
		q := make([]byte, 100)
		_, err := sc.ReadAt(q, 5)
		done <- err
	}()
	<-slow.entered // the slow read is inside the file's ReadAt

	read := make(chan error, 1)
	go func() {
		q := make([]byte, 100)
		_, err := fast.ReadAt(q, 200)
		if err == nil && !bytes.Equal(q, data[200:300]) {
			err = io.ErrUnexpectedEOF
		}
		read <- err
	}()
	select {
	case err := <-read:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		close(slow.gate)
		t.Fatal("a cached read waited for another file's block to be read")
	}
	close(slow.gate)
	require.NoError(t, <-done)
}
