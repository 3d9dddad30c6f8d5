package backup

import (
	"os"
	"sync"
	"unsafe"
)

// blockSize is the size of the blocks a file that will be fsynced is
// written in when its render writes it from the start to the end (Write).
const blockSize = 1 << 20

// blocks are blockWriter's buffers (blockSize, page-aligned), reused.
var blocks = sync.Pool{New: func() any { b := alignedBuf(blockSize); return &b }}

// alignedBuf makes n bytes of memory starting on a page boundary.
func alignedBuf(n int) []byte {
	m := make([]byte, n+directAlign)
	k := int(uintptr(unsafe.Pointer(&m[0])) % directAlign)
	at := (directAlign - k) % directAlign
	return m[at : at+n : at+n]
}

// blockWriter is the sequential writer of a file that will be fsynced:
// it gathers what is written into page-aligned blocks and writes each at
// its place in the file (directWrites.writeAt), so that a render writing
// from the start to the end (a move's rewritten transcript, an in-place
// change) has its whole pages sent straight to the disk as a positional
// render's are, the blocks that do not go straight handed to the disk's
// queue as they are written. Through the cache, a move's new 300 MB
// transcript cost 0.7 s of system time on this project's VMs (a page
// first touched, see direct.go) where straight to the disk it costs 0.02
// (BENCHMARKS.md 2026-11-28). A full block is written in the background
// while the next is gathered (a write straight to the disk returns when
// the disk has it): a file of one block or less is written by Flush.
type blockWriter struct {
	d     *directWrites
	buf   *[]byte // the block being gathered
	n     int     // bytes gathered in buf
	off   int64   // the file offset of buf's first byte
	spare *[]byte // the block written in the background (nil: none yet)
	done  chan error
	err   error // a failed write: the render fails
}

func newBlockWriter(d *directWrites) *blockWriter {
	return &blockWriter{d: d, buf: blocks.Get().(*[]byte)}
}

func (w *blockWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	done := 0
	for len(p) > 0 {
		k := copy((*w.buf)[w.n:], p)
		w.n += k
		p = p[k:]
		if w.n == blockSize {
			if w.err = w.writeFull(); w.err != nil {
				return done, w.err
			}
		}
		done += k
	}
	return done, nil
}

// writeFull starts writing the full block in the background, once the
// one before it is written, and gathers the next into the other block.
func (w *blockWriter) writeFull() error {
	if err := w.wait(); err != nil {
		return err
	}
	b, off, ch := w.buf, w.off, make(chan error, 1)
	go func() {
		_, err := w.d.writeAt(*b, off)
		ch <- err
	}()
	w.done = ch
	if w.spare == nil {
		w.spare = blocks.Get().(*[]byte)
	}
	w.buf, w.spare = w.spare, b
	w.off += blockSize
	w.n = 0
	return nil
}

// wait returns once the block written in the background (if any) is.
func (w *blockWriter) wait() error {
	if w.done == nil {
		return nil
	}
	err := <-w.done
	w.done = nil
	return err
}

// Buffered is the number of bytes written and not yet in the file.
func (w *blockWriter) Buffered() int {
	if w.done != nil {
		return w.n + blockSize
	}
	return w.n
}

// Flush writes what was gathered at its place. Called before the end of
// the file, it would leave the next blocks' memory laid out unlike the
// file (plain writes from then on): the writer of the file calls it once
// the render is over.
func (w *blockWriter) Flush() error {
	if err := w.wait(); err != nil {
		w.err = err
	}
	if w.err != nil {
		return w.err
	}
	if w.n == 0 {
		return nil
	}
	n, err := w.d.writeAt((*w.buf)[:w.n], w.off)
	w.off += int64(n)
	w.n = 0
	w.err = err
	return err
}

// release gives the blocks back, once no write of theirs is going on
// (the writer is not used again).
func (w *blockWriter) release() {
	_ = w.wait()
	for _, b := range []*[]byte{w.buf, w.spare} {
		if b != nil {
			blocks.Put(b)
		}
	}
	w.buf, w.spare = nil, nil
}

// writeBack asks the kernel to start writing ranges of a file out
// (startWriteback) from a goroutine of its own: the call can wait on the
// disk's queue, and the goroutines writing the blocks (a plain clone's
// renamers, both cores' work) are not to wait with it. A range it has no
// room for is left to the fsync that follows (the call is a hint).
type writeBack struct {
	f    *os.File
	ch   chan [2]int64
	done chan struct{}
}

func newWriteBack(f *os.File) *writeBack {
	w := &writeBack{f: f, ch: make(chan [2]int64, 64), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for r := range w.ch {
			startWriteback(w.f, r[0], r[1])
		}
	}()
	return w
}

// add hands the range of n bytes at off to the kernel (safe for
// concurrent use; not after stop).
func (w *writeBack) add(off, n int64) {
	select {
	case w.ch <- [2]int64{off, n}:
	default:
	}
}

// stop returns once every range handed over has been asked for.
func (w *writeBack) stop() {
	close(w.ch)
	<-w.done
}
