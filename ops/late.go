package ops

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// latePipe makes the bytes of the Late lines of a file on every core
// (chain.InOrder), ahead of the writer, which takes them in order (next).
type latePipe struct {
	q    chan lateBatch
	done chan struct{}
	cur  lateBatch
	k    int
	prev []byte // the line next returned last: written by now, so reused
}

type lateBatch struct {
	lines []int
	out   [][]byte
	err   error
}

var errLateStopped = errors.New("the writer stopped")

func startLate(f *chain.File, edits *chain.Edits, fn LateFunc) *latePipe {
	var lines []int
	for i, ed := range edits.All() {
		if ed.Late && !ed.Drop {
			lines = append(lines, i)
		}
	}
	sort.Ints(lines)
	p := &latePipe{q: make(chan lateBatch), done: make(chan struct{})}
	work := func(lo, hi int) (lateBatch, error) {
		b := lateBatch{lines: lines[lo:hi], out: make([][]byte, hi-lo)}
		// the lines of the batch are read at once when they lie close
		// together (a move's render of a session whose every line names
		// its project read each through the cache of small reads, the
		// workers taking turns at its lock)
		lb := chain.ReadBatch(f, b.lines)
		defer lb.Close()
		for k, i := range b.lines {
			raw, err := lb.Raw(i)
			if err == nil {
				var out []byte
				out, err = fn(i, raw)
				if lb.Holds(out) { // raw itself, or a part of it
					out = append(lineBuf(len(out)), out...)
				}
				b.out[k] = out
			}
			if err != nil {
				b.err = err // handed to the writer, which stops there
				break
			}
		}
		return b, nil
	}
	go func() {
		defer close(p.q)
		_ = chain.InOrder(f, len(lines), func(k int) int { return lines[k] }, work, func(b lateBatch) error {
			select {
			case p.q <- b:
				return nil
			case <-p.done:
				return errLateStopped
			}
		})
	}()
	return p
}

// next returns the bytes of Late line i; the lines are asked for in order.
func (p *latePipe) next(i int) ([]byte, error) {
	if p.k == len(p.cur.lines) {
		b, ok := <-p.q
		if !ok {
			return nil, fmt.Errorf("internal: line %d is not one made as it is written", i)
		}
		p.cur, p.k = b, 0
		if p.cur.err != nil {
			return nil, p.cur.err
		}
	}
	if p.cur.lines[p.k] != i {
		return nil, fmt.Errorf("internal: line %d asked for out of order (line %d next)", i, p.cur.lines[p.k])
	}
	b := p.cur.out[p.k]
	p.cur.out[p.k] = nil
	p.k++
	// the writer is done with the line before it asks for the next one
	// (an io.Writer keeps no bytes it is given)
	putLineBuf(p.prev)
	p.prev = b
	return b, nil
}

// lineBufs recycles the buffers of lines made as they are written: a pass
// over a big session then reuses a few buffers instead of allocating one
// per line (and the collector has less to do). A pool per power of two of
// room: one pool of every size gave the line read next a buffer too small
// (a cut line's) as often as not, and a new one was made.
var lineBufs [lineBufClasses]sync.Pool

const (
	lineBufMin     = 10 // the smallest class: 1 KB
	lineBufClasses = 15 // up to 16 MB
)

// lineBuf returns an empty buffer with room for n bytes, for the result of
// a LateFunc.
func lineBuf(n int) []byte {
	c := lineBufClass(n)
	if c >= lineBufClasses {
		return make([]byte, 0, n)
	}
	if p, ok := lineBufs[c].Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, 1<<(c+lineBufMin))
}

// lineBufClass is the class whose room is at least n.
func lineBufClass(n int) int { return max(0, bits.Len(uint(max(n, 1)-1))-lineBufMin) }

// lineBufRoom is the room of the buffer lineBuf(n) returns.
func lineBufRoom(n int) int {
	c := lineBufClass(n)
	if c >= lineBufClasses {
		return n
	}
	return 1 << (c + lineBufMin)
}

// putLineBuf gives a buffer no one uses any more back to lineBuf.
func putLineBuf(b []byte) {
	c := bits.Len(uint(cap(b))) - 1 - lineBufMin // the class whose room it has
	if c < 0 || c >= lineBufClasses {
		return
	}
	lineBufs[c].Put(&b)
}

// stop lets the workers go (the writer may stop early).
func (p *latePipe) stop() { close(p.done) }

// inOrder runs work over consecutive ranges of the lines 0..n-1 of f (about
// a megabyte of lines each) on every core, and hands the results to use in
// the order of the lines, in the calling goroutine (chain.InOrder).
func inOrder[T any](f *chain.File, work func(lo, hi int) (T, error), use func(T) error) error {
	return chain.InOrder(f, len(f.Entries), func(k int) int { return k }, work, use)
}
