package backup

import (
	"errors"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A file that will be fsynced and is written at places in large blocks (a
// plain clone's transcript: ops.Remapper.Stream) has its whole pages sent
// straight to the disk (O_DIRECT on Linux, where the kernel allows it),
// not through the page cache: the copy into the cache, the cache's pages
// and their writeback are the new file's largest costs after the
// renaming. On this project's VMs a page the kernel has not used for a few
// seconds is first touched at a price several times a later use (the
// host takes idle memory back: cmd/firsttouch), so a 300 MB new session
// written through the cache after an idle disk cost 0.33-0.73 s of system
// time where one written straight to the disk costs ~0.03 (BENCHMARKS.md
// 2026-11-27 clonenew12). The bytes on disk and the promise are the same:
// the file is fsynced before it gets its name, as before.
//
// The kernel takes a direct write only of whole pages, at a page's place
// in the file and from a page of memory: the parts of a block before its
// first page boundary and after its last (pieces: a page two blocks
// share, the file's last) are kept, and written through the cache once
// the direct writes are over. Where the
// kernel refuses (a file system without O_DIRECT, a block whose memory is
// not laid out like the file, any failed direct write), the file goes
// back to plain writes for good, and what was kept is written plainly:
// the bytes are the same either way.

// directAlign is the alignment of a direct write: offset, length and
// memory (the page; devices with larger logical blocks refuse, and the
// file goes back to plain writes).
const directAlign = 4096

// directMin is the smallest positional write that turns direct writes on
// (a block of a large file, not a small file's only write).
const directMin = 256 << 10

// setDirectFn is setDirect (a test makes it refuse).
var setDirectFn = setDirect

// directWritten counts the bytes written straight to the disk (for the
// tests: that the path was taken).
var directWritten atomic.Int64

type directState int

const (
	directUntried directState = iota
	directOn
	directOff
)

// directWrites is the positional writer of a file that will be fsynced
// (renderOut.WriteAt).
type directWrites struct {
	f      *os.File
	wb     *writeBack
	mu     sync.Mutex
	state  directState
	pieces map[int64][]directPiece // by the offset of their page
	seq    int                     // order of the pieces (a later one wins)
	// reserved: the file's blocks are allocated up to here (fallocate,
	// ahead of the writes); end: the end of the furthest write. Direct
	// writes into allocated blocks below the file's size run side by
	// side (ext4 takes its inode lock shared for them); one that extends
	// the file or allocates holds it until the disk is done, and the
	// blocks' writes went to the disk one at a time
	reserved, end int64
}

// reserveAhead is how far past a direct write the file's blocks are
// allocated at a time.
const reserveAhead = 16 << 20

type directPiece struct {
	off int64
	b   []byte
	seq int
}

func newDirectWrites(f *os.File, wb *writeBack) *directWrites {
	return &directWrites{f: f, wb: wb}
}

// plain writes p at off through the page cache (and hands it to the disk).
func (d *directWrites) plain(p []byte, off int64) (int, error) {
	n, err := d.f.WriteAt(p, off)
	if d.wb != nil && n > 0 {
		d.wb.add(off, int64(n))
	}
	return n, err
}

// writeAt is renderOut.WriteAt for a file that will be fsynced.
func (d *directWrites) writeAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	d.end = max(d.end, off+int64(len(p)))
	if d.state == directUntried && len(p) >= directMin {
		d.state = directOff
		if setDirectFn(d.f, true) == nil {
			d.state = directOn
		}
	}
	st := d.state
	if st == directUntried {
		// made under the lock: direct writes are not turned on (the
		// file's flags) while this write, unaligned, is in the kernel
		// (EINVAL: a small last block beside the first large one)
		defer d.mu.Unlock()
		return d.plain(p, off)
	}
	d.mu.Unlock()
	if st != directOn {
		return d.plain(p, off)
	}
	end := off + int64(len(p))
	for at := off; at < end; {
		page := at &^ (directAlign - 1)
		if at == page && end-at >= directAlign {
			n := (end - at) &^ (directAlign - 1)
			b := p[at-off : at-off+n]
			if err := d.whole(b, at); err != nil {
				return int(at - off), err
			}
			at += n
			continue
		}
		e := min(end, page+directAlign)
		if err := d.piece(p[at-off:e-off], at); err != nil {
			return int(at - off), err
		}
		at = e
	}
	return len(p), nil
}

// whole writes whole pages b at off (both aligned): straight to the disk
// while direct writes are on, else plainly.
func (d *directWrites) whole(b []byte, off int64) error {
	if uintptr(unsafe.Pointer(&b[0]))%directAlign != 0 {
		// a block not laid out in memory as in the file: plain writes
		// from now on
		if err := d.stop(); err != nil {
			return err
		}
		_, err := d.plain(b, off)
		return err
	}
	d.mu.Lock()
	// a whole write is newer than the pieces kept of its pages
	for pg := range d.pieces {
		if pg >= off && pg < off+int64(len(b)) {
			delete(d.pieces, pg)
		}
	}
	on := d.state == directOn
	if on && off+int64(len(b)) > d.reserved {
		to := off + int64(len(b)) + reserveAhead
		if err := reserve(d.f, d.reserved, to-d.reserved); err != nil {
			if isNoSpace(err) {
				d.mu.Unlock()
				return err
			}
			to = -1 // not here: the writes then extend the file, one at a time
		}
		d.reserved = to
		if to < 0 {
			d.reserved = 1 << 62
		}
	}
	d.mu.Unlock()
	if !on {
		_, err := d.plain(b, off)
		return err
	}
	if _, err := d.f.WriteAt(b, off); err != nil {
		// refused (or cut short): the same bytes plainly, from now on
		if serr := d.stop(); serr != nil {
			return errors.Join(err, serr)
		}
		_, err = d.plain(b, off)
		return err
	}
	directWritten.Add(int64(len(b)))
	return nil
}

// piece keeps b (part of the page at off's page, which another block
// shares) for finish. Put together and written straight to the disk as
// soon as the page was whole, the pieces (one page a block) took a
// quarter of the time the renamers waited on the disk (a 4 KB write
// waits about as long as one of 2 MB here); written through the cache
// at the end, they cost the fsync a few milliseconds.
func (d *directWrites) piece(b []byte, off int64) error {
	d.mu.Lock()
	if d.state != directOn {
		d.mu.Unlock()
		_, err := d.plain(b, off)
		return err
	}
	d.seq++
	page := off &^ (directAlign - 1)
	if d.pieces == nil {
		d.pieces = map[int64][]directPiece{}
	}
	d.pieces[page] = append(d.pieces[page], directPiece{off: off, b: slices.Clone(b), seq: d.seq})
	d.mu.Unlock()
	return nil
}

// stop turns direct writes off for good (they are then plain): once it
// returns, no write through the file needs alignment.
func (d *directWrites) stop() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == directOn {
		if err := setDirectFn(d.f, false); err != nil {
			return err
		}
	}
	d.state = directOff
	return nil
}

// finish ends the positional writes (the render is over): direct writes
// are turned off and the pieces kept (the file's last page) are written
// plainly, in the order they came.
func (d *directWrites) finish() error {
	if err := d.stop(); err != nil {
		return err
	}
	d.mu.Lock()
	var ps []directPiece
	for _, p := range d.pieces {
		ps = append(ps, p...)
	}
	d.pieces = nil
	d.mu.Unlock()
	slices.SortFunc(ps, func(a, b directPiece) int { return a.seq - b.seq })
	for _, q := range ps {
		if _, err := d.plain(q.b, q.off); err != nil {
			return err
		}
	}
	// the blocks allocated ahead and never written are no part of it
	if d.reserved > d.end && d.reserved < 1<<62 {
		return d.f.Truncate(d.end)
	}
	return nil
}
