package backup

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestDirectWritesAreThePlainOnes: a file that will be fsynced, written at
// places in large blocks (a plain clone's transcript), has its whole pages
// sent straight to the disk, and its bytes are those plain writes give,
// for every kind of block: laid out in memory as in the file and ending
// mid-page (the clone's), ending on page boundaries, not laid out as in
// the file (from the first block, or one among good ones: plain writes
// from then on), too small to start direct writes, and on a file system
// that refuses them; each in order, in reverse and shuffled, from several
// goroutines at a time, through each writer that fsyncs (a batch's file,
// and the batch's Last: a new session's transcript). The member says
// which broke; direct says whether the disk got whole pages straight.
func TestDirectWritesAreThePlainOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 30))
	want := make([]byte, 3<<20+1234)
	for i := range want {
		want[i] = byte('a' + rng.IntN(26))
		if rng.IntN(60) == 0 {
			want[i] = '\n'
		}
	}
	// cuts: block ends at pseudo-random places (a line's end anywhere)
	cuts := func(size int) []int {
		var ends []int
		for at := 0; at < len(want); {
			at = min(len(want), at+size/2+rng.IntN(size))
			ends = append(ends, at)
		}
		return ends
	}
	pageCuts := []int{}
	for at := 512 << 10; at < len(want); at += 512 << 10 {
		pageCuts = append(pageCuts, at)
	}
	pageCuts = append(pageCuts, len(want))
	// laid copies a block into memory at the place in a page that
	// shift+off has (shift 0: as in the file)
	laid := func(b []byte, off, shift int) []byte {
		m := make([]byte, len(b)+2*directAlign)
		k := int(uintptr(unsafe.Pointer(&m[0])) % directAlign)
		at := (directAlign-k)%directAlign + (off+shift)%directAlign
		copy(m[at:], b)
		return m[at : at+len(b)]
	}
	type block struct {
		off int
		b   []byte
	}
	blocks := func(ends []int, shift func(k int) int) []block {
		var bs []block
		start := 0
		for k, e := range ends {
			bs = append(bs, block{start, laid(want[start:e], start, shift(k))})
			start = e
		}
		return bs
	}
	none := func(int) int { return 0 }
	members := []struct {
		name   string
		ends   []int
		shift  func(k int) int
		refuse bool
		// direct: most of the file went straight to the disk, else none
		direct bool
	}{
		{"laid as in the file, ending mid-page", cuts(512 << 10), none, false, true},
		{"ending on page boundaries", pageCuts, none, false, true},
		{"not laid as in the file", cuts(512 << 10), func(int) int { return 1 }, false, false},
		{"one block not laid as in the file among good ones", cuts(512 << 10), func(k int) int {
			if k == 3 {
				return 100
			}
			return 0
		}, false, true},
		{"blocks too small to start direct writes", cuts(8 << 10), none, false, false},
		{"a file system that refuses direct writes", cuts(512 << 10), none, true, false},
	}
	orders := map[string]func([]block){
		"in order": func([]block) {},
		"reversed": func(bs []block) {
			for i, j := 0, len(bs)-1; i < j; i, j = i+1, j-1 {
				bs[i], bs[j] = bs[j], bs[i]
			}
		},
		"shuffled": func(bs []block) { rng.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] }) },
	}
	dir := t.TempDir()
	n := 0
	for _, m := range members {
		for oname, order := range orders {
			bs := blocks(m.ends, m.shift)
			at := 4 // blocks written at a time
			if m.name == "one block not laid as in the file among good ones" {
				// the bad one last, one block at a time: after good
				// ones went straight to the disk
				bs = append(append(bs[:3:3], bs[4:]...), bs[3])
				at = 1
			} else {
				order(bs)
			}
			render := func(w io.Writer) error {
				wa := w.(io.WriterAt)
				var wg sync.WaitGroup
				errs := make(chan error, len(bs))
				sem := make(chan struct{}, at)
				for _, b := range bs {
					sem <- struct{}{}
					wg.Go(func() {
						defer func() { <-sem }()
						if _, err := wa.WriteAt(b.b, int64(b.off)); err != nil {
							errs <- err
						}
					})
				}
				wg.Wait()
				close(errs)
				return <-errs
			}
			if m.refuse {
				setDirectFn = func(*os.File, bool) error { return errors.New("refused") }
			}
			for _, via := range []string{"a batch's file", "the batch's Last"} {
				n++
				p := filepath.Join(dir, "d", string(rune('a'+n%26))+filepath.Base(t.Name())+string(rune('0'+n/26))+".jsonl")
				before := directWritten.Load()
				ds := &DirSync{}
				var err error
				if via == "a batch's file" {
					err = ds.CreateNew(p, render)
					if err == nil {
						err = ds.Wait()
					}
				} else {
					err = ds.Last(p, render, func() error { return nil })
				}
				require.NoError(t, err, "%s, %s, %s", m.name, oname, via)
				got, err := os.ReadFile(p)
				require.NoError(t, err)
				require.True(t, bytes.Equal(want, got), "%s, %s, %s: the file's bytes are not the blocks'", m.name, oname, via)
				direct := directWritten.Load() - before
				if m.direct && runtime.GOOS == "linux" {
					require.Greater(t, direct, int64(len(want)/2), "%s, %s, %s: whole pages did not go straight to the disk", m.name, oname, via)
				}
				if !m.direct || runtime.GOOS != "linux" {
					require.Zero(t, direct, "%s, %s, %s: pages went straight to the disk", m.name, oname, via)
				}
			}
			setDirectFn = setDirect
		}
	}
}

// TestSequentialWritesGoStraightToTheDisk: a render that writes its file
// from the start to the end (Write: a move's rewritten transcript, an
// in-place change, a backup's copy), not at places, has its whole pages
// sent straight to the disk too, through every writer that fsyncs, for
// every way of writing: a line at a time, the whole file in one write,
// writes larger than a block, a file too small to start direct writes,
// and on a file system that refuses them. Through the cache, a 300 MB
// move's new transcript cost 0.7 s of system time on this project's VMs
// (pages first touched) where straight to the disk it costs 0.02
// (BENCHMARKS.md 2026-11-28). The member says which broke; the bytes are
// those plain writes give.
func TestSequentialWritesGoStraightToTheDisk(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 28))
	big := make([]byte, 5<<20+777)
	for i := range big {
		big[i] = byte('a' + rng.IntN(26))
		if rng.IntN(70) == 0 {
			big[i] = '\n'
		}
	}
	// writes cuts data into writes of sizes from size/2 to 3*size/2
	writes := func(data []byte, size int) [][]byte {
		var ws [][]byte
		for at := 0; at < len(data); {
			e := min(len(data), at+size/2+rng.IntN(size+1))
			ws = append(ws, data[at:e])
			at = e
		}
		return ws
	}
	members := []struct {
		name   string
		data   []byte
		writes [][]byte
		refuse bool
		direct bool // most of the file straight to the disk, else none
	}{
		{"a line at a time", big, writes(big, 2000), false, true},
		{"the whole file in one write", big, [][]byte{big}, false, true},
		{"writes larger than a block", big, writes(big, 3<<20), false, true},
		{"a file too small to start direct writes", big[:100<<10], writes(big[:100<<10], 4000), false, false},
		{"a file system that refuses direct writes", big, writes(big, 60<<10), true, false},
	}
	vias := []struct {
		name  string
		write func(p string, render func(io.Writer) error) error
	}{
		{"an in-place change (WriteFileAtomic)", func(p string, render func(io.Writer) error) error {
			require.NoError(t, os.WriteFile(p, []byte("old\n"), 0o640))
			return WriteFileAtomic(p, DefaultMode, render)
		}},
		{"a batch's new file (DirSync.CreateNew)", func(p string, render func(io.Writer) error) error {
			ds := &DirSync{}
			if err := ds.CreateNew(p, render); err != nil {
				return err
			}
			return ds.Wait()
		}},
		{"the batch's Last", func(p string, render func(io.Writer) error) error {
			return (&DirSync{}).Last(p, render, func() error { return nil })
		}},
		{"a move's new file (renderTo)", func(p string, render func(io.Writer) error) error {
			return renderTo(filepath.Dir(filepath.Dir(p)), p, nil, DefaultMode, render)
		}},
	}
	dir := t.TempDir()
	n := 0
	for _, m := range members {
		for _, via := range vias {
			n++
			if m.refuse {
				setDirectFn = func(*os.File, bool) error { return errors.New("refused") }
			}
			p := filepath.Join(dir, "d", "f"+string(rune('a'+n%26))+string(rune('0'+n/26))+".jsonl")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			before := directWritten.Load()
			err := via.write(p, func(w io.Writer) error {
				for _, b := range m.writes {
					if _, err := w.Write(b); err != nil {
						return err
					}
				}
				return nil
			})
			setDirectFn = setDirect
			require.NoError(t, err, "%s, %s", m.name, via.name)
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			require.True(t, bytes.Equal(m.data, got), "%s, %s: the file's bytes are not those written", m.name, via.name)
			direct := directWritten.Load() - before
			if m.direct && runtime.GOOS == "linux" {
				require.Greater(t, direct, int64(len(m.data)/2), "%s, %s: whole pages did not go straight to the disk", m.name, via.name)
			}
			if !m.direct || runtime.GOOS != "linux" {
				require.Zero(t, direct, "%s, %s: pages went straight to the disk", m.name, via.name)
			}
		}
	}
}
