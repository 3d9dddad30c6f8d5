package backup

import "os"

// writeBehindEvery is how much is written before the kernel is asked to
// start writing it to disk.
const writeBehindEvery = 8 << 20

// writeBehind passes writes on to a file that will be fsynced, and every
// few megabytes asks the kernel to start writing them out (on Linux,
// sync_file_range; elsewhere nothing), so that the disk works while the
// rest is rendered and the final fsync has little left to wait for.
type writeBehind struct {
	f             *os.File
	done, started int64
	d             *directWrites // the file's positional writes (nil: none)
}

func (w *writeBehind) Write(p []byte) (int, error) {
	if w.d != nil {
		// a write at the file's offset needs no alignment: direct
		// writes are over (a render uses Write or WriteAt, not both)
		if err := w.d.finish(); err != nil {
			return 0, err
		}
		w.d = nil
	}
	n, err := w.f.Write(p)
	w.done += int64(n)
	if w.done-w.started >= writeBehindEvery {
		startWriteback(w.f, w.started, w.done-w.started)
		w.started = w.done
	}
	return n, err
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
