package ops

import (
	"errors"
	"fmt"
	"sort"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// latePipe makes the bytes of the Late lines of a file on every core
// (chain.InOrder), ahead of the writer, which takes them in order (next).
type latePipe struct {
	q    chan lateBatch
	done chan struct{}
	cur  lateBatch
	k    int
}

type lateBatch struct {
	lines []int
	out   [][]byte
	err   error
}

var errLateStopped = errors.New("the writer stopped")

func startLate(f *chain.File, edits chain.Edits, fn LateFunc) *latePipe {
	var lines []int
	for i, ed := range edits {
		if ed.Late && !ed.Drop {
			lines = append(lines, i)
		}
	}
	sort.Ints(lines)
	p := &latePipe{q: make(chan lateBatch), done: make(chan struct{})}
	work := func(lo, hi int) (lateBatch, error) {
		b := lateBatch{lines: lines[lo:hi], out: make([][]byte, hi-lo)}
		for k, i := range b.lines {
			raw, err := f.Raw(i)
			if err == nil {
				b.out[k], err = fn(i, raw)
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
	return b, nil
}

// stop lets the workers go (the writer may stop early).
func (p *latePipe) stop() { close(p.done) }

// inOrder runs work over consecutive ranges of the lines 0..n-1 of f (about
// a megabyte of lines each) on every core, and hands the results to use in
// the order of the lines, in the calling goroutine (chain.InOrder).
func inOrder[T any](f *chain.File, work func(lo, hi int) (T, error), use func(T) error) error {
	return chain.InOrder(f, len(f.Entries), func(k int) int { return k }, work, use)
}
