package backup

import (
	"errors"
	"os"
)

// FileHash is the checksum (newChecksum) of a file's bytes read ahead of its backup
// (HashAhead), while other work runs: the backup a move takes of a
// transcript is a hard link whose checksum was read on one core while the
// other idled (half a second of a move of 935 MB).
type FileHash struct {
	done chan struct{}
	fi   os.FileInfo // the file once read to its end
	n    int64
	sum  string
	err  error
}

// hashing lets one HashAhead read at a time (a move of a project's many
// sessions starts one for each).
var hashing = make(chan struct{}, 1)

// errChangedWhileRead: the file's size or time moved while it was read.
var errChangedWhileRead = errors.New("changed while read")

// HashAhead starts reading the regular file at path (no link followed)
// into its checksum and returns at once; the backup uses the sum when it
// backs up that file unchanged since (FileHash.of), and reads it again
// otherwise.
func HashAhead(path string) *FileHash {
	h := &FileHash{done: make(chan struct{})}
	go func() {
		defer close(h.done)
		hashing <- struct{}{} // one at a time: each holds a buffer
		defer func() { <-hashing }()
		in, err := openRegular(path)
		if err != nil {
			h.err = err
			return
		}
		defer in.Close()
		before, err := in.Stat()
		if err != nil {
			h.err = err
			return
		}
		d := newChecksum()
		n, err := copyAll(d, in)
		if err != nil {
			h.err = err
			return
		}
		after, err := in.Stat()
		if err != nil {
			h.err = err
			return
		}
		if after.Size() != n || !after.ModTime().Equal(before.ModTime()) {
			h.err = errChangedWhileRead
			return
		}
		h.fi, h.n, h.sum = after, n, sumOf(d)
	}()
	return h
}

// of waits for the sum and returns it with the bytes it covers when fi
// (the file as it is now) is the file it read with the same size and
// modification time (the rule the move's unchanged check follows);
// false otherwise, or for a nil h.
func (h *FileHash) of(fi os.FileInfo) (int64, string, bool) {
	if h == nil {
		return 0, "", false
	}
	<-h.done
	if h.err != nil || !os.SameFile(h.fi, fi) || fi.Size() != h.n || !fi.ModTime().Equal(h.fi.ModTime()) {
		return 0, "", false
	}
	return h.n, h.sum, true
}
