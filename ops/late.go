package ops

import (
	"fmt"
	"runtime"
	"sort"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// lateBatchBytes is about how many bytes of Late lines one worker makes at
// a time; a few batches per core are in flight, so the memory a render
// holds stays small whatever the size of the file.
const lateBatchBytes = 1 << 20

// latePipe makes the bytes of the Late lines of a file on every core, ahead
// of the writer, which takes them in order (next).
type latePipe struct {
	q    chan chan lateBatch
	done chan struct{}
	cur  lateBatch
	k    int
}

type lateBatch struct {
	lines []int
	out   [][]byte
	err   error
}

func startLate(f *chain.File, edits chain.Edits, fn LateFunc) *latePipe {
	var lines []int
	for i, ed := range edits {
		if ed.Late && !ed.Drop {
			lines = append(lines, i)
		}
	}
	sort.Ints(lines)
	workers := runtime.GOMAXPROCS(0)
	p := &latePipe{q: make(chan chan lateBatch, 2*workers), done: make(chan struct{})}
	sem := make(chan struct{}, workers)
	go func() {
		defer close(p.q)
		for lo := 0; lo < len(lines); {
			hi, size := lo, int64(0)
			for hi < len(lines) && (hi == lo || size < lateBatchBytes) {
				size += int64(f.Entries[lines[hi]].Len)
				hi++
			}
			ch := make(chan lateBatch, 1)
			select {
			case p.q <- ch:
			case <-p.done:
				return
			}
			select {
			case sem <- struct{}{}:
			case <-p.done:
				return
			}
			go func(b lateBatch) {
				defer func() { <-sem }()
				b.out = make([][]byte, len(b.lines))
				for k, i := range b.lines {
					raw, err := f.Raw(i)
					if err == nil {
						b.out[k], err = fn(i, raw)
					}
					if err != nil {
						b.err = err
						break
					}
				}
				ch <- b
			}(lateBatch{lines: lines[lo:hi]})
			lo = hi
		}
	}()
	return p
}

// next returns the bytes of Late line i; the lines are asked for in order.
func (p *latePipe) next(i int) ([]byte, error) {
	if p.k == len(p.cur.lines) {
		ch, ok := <-p.q
		if !ok {
			return nil, fmt.Errorf("internal: line %d is not one made as it is written", i)
		}
		p.cur, p.k = <-ch, 0
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
