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
}

func (w *writeBehind) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.done += int64(n)
	if w.done-w.started >= writeBehindEvery {
		startWriteback(w.f, w.started, w.done-w.started)
		w.started = w.done
	}
	return n, err
}
