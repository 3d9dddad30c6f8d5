package chain

import "runtime"

// inOrderBatch is about how many bytes of lines one worker of InOrder takes
// at a time; a few batches per core are in flight, so what a pass holds
// stays small whatever the size of the file.
const inOrderBatch = 1 << 20

// InOrder runs work over consecutive batches of n items on every core and
// hands the results to use in order, in the calling goroutine. Item k is
// line line(k) of f (lines in increasing order), which weighs the batches
// by bytes: a batch is about 1 MB of lines. work gets the bounds [lo, hi)
// of its items. A few batches per core are in flight at a time; the first
// error stops the pass.
func InOrder[T any](f *File, n int, line func(k int) int, work func(lo, hi int) (T, error), use func(T) error) error {
	workers := runtime.GOMAXPROCS(0)
	type result struct {
		v   T
		err error
	}
	q := make(chan chan result, 2*workers)
	done := make(chan struct{})
	defer close(done)
	sem := make(chan struct{}, workers)
	go func() {
		defer close(q)
		for lo := 0; lo < n; {
			hi, size := lo, int64(0)
			// a line of a batch's size or more (a run of NULs a crash
			// left) is a batch of its own: work can pass it on in pieces
			for hi < n && (hi == lo || size < inOrderBatch && f.Entries[line(hi)].Len < inOrderBatch) {
				size += int64(f.Entries[line(hi)].Len)
				hi++
			}
			ch := make(chan result, 1)
			select {
			case q <- ch:
			case <-done:
				return
			}
			select {
			case sem <- struct{}{}:
			case <-done:
				return
			}
			go func(lo, hi int) {
				defer func() { <-sem }()
				v, err := work(lo, hi)
				ch <- result{v, err}
			}(lo, hi)
			lo = hi
		}
	}()
	for ch := range q {
		r := <-ch
		if r.err != nil {
			return r.err
		}
		if err := use(r.v); err != nil {
			return err
		}
	}
	return nil
}
