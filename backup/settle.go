package backup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// After the rename: no line a process writes to an original is lost (issue
// 27). Portable: findWriter says what it can on each system (Linux only).

// settleWait is how long, after the new files took the originals' names,
// ccsurgeon waits for a process that still has an original open for
// writing to close it: a client appends a line by name and closes the
// file at once.
const settleWait = 500 * time.Millisecond

// holdOld gives each original a second name, next to it, for the moment
// its new file takes its name: should a process hold the original open
// for writing then, the original can be put back (settle). Where a hard
// link cannot be made the original has none, and cannot be put back.
func holdOld(items []item) {
	for i := range items {
		it := &items[i]
		if it.old == nil {
			continue
		}
		dir, base := filepath.Split(it.target)
		name := filepath.Join(dir, tempPrefix(base)+"old-"+newTxnID())
		if linkBeneath(it.root, it.target, name) == nil {
			it.hold = name
		}
	}
}

// lateWriterError: a process opened an original for writing after the
// last check, and still holds it; the change was undone.
type lateWriterError struct{ err error }

func (e *lateWriterError) Error() string { return e.err.Error() }

// settle runs once every new file has taken its original's name: no line
// written to an original may be lost. A process that opened an original
// for writing after the last check (checkWriters) writes to it, not to
// the new file: settle waits for it to close the file (what it wrote is
// then carried over, see carryOver). One that still holds it after
// settleWait would go on writing where no one reads: the originals are put
// back under their names, with what was appended to the new files since,
// and a *lateWriterError says nothing was modified. Linux only, as
// checkWriters.
func settle(items []item) error {
	var olds []string // a name of each original: its second one
	target := map[string]string{}
	for _, it := range items {
		if it.old == nil {
			continue
		}
		name := it.hold
		if name == "" {
			// none could be made: Linux still names the open original
			name = "/proc/self/fd/" + strconv.Itoa(int(it.old.Fd()))
		}
		olds = append(olds, name)
		target[name] = it.target
	}
	if len(olds) == 0 {
		return nil
	}
	deadline := time.Now().Add(settleWait)
	for {
		pid, comm, old, ok := findWriter(olds)
		if !ok {
			return nil
		}
		if time.Now().After(deadline) {
			path, who := target[old], fmt.Sprintf("pid %d, %s", pid, comm)
			if err := putBack(items); err != nil {
				return fmt.Errorf("%s was opened for writing by another process (%s) while ccsurgeon replaced it, and the original could not be put back: %w; lines it writes now go to the replaced file", path, who, err)
			}
			return &lateWriterError{&Error{
				Msg:  fmt.Sprintf("%s was opened for writing by another process (%s) while ccsurgeon replaced it; it was put back as it was, with every line written since: nothing was modified", path, who),
				Hint: "its next lines would be lost: stop it or let it close the file, then retry",
				Err:  ErrChanged,
			}}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// putBack undoes the renames of a commit: every original goes back under
// its name, followed by what was appended to its new file meanwhile; a
// file the change created goes.
func putBack(items []item) error {
	for _, it := range items {
		if it.Remove {
			continue
		}
		if it.Snapshot == nil {
			if err := removeBeneath(it.root, it.target); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if it.hold == "" {
			return fmt.Errorf("no second name of %s could be made", it.target)
		}
		cur, err := openBeneath(it.root, it.target, os.O_RDONLY, 0)
		if err != nil {
			return err
		}
		err = renameBeneath(it.root, it.hold, it.target)
		if err == nil {
			err = appendFrom(it.root, it.target, cur, it.size)
		}
		cur.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// appendFrom appends to the file at path what f holds past offset from;
// path is reached from root down without following a link (openBeneath),
// when root is given.
func appendFrom(root, path string, f *os.File, from int64) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= from {
		return err
	}
	open := openNoFollow
	if root != "" {
		open = func(p string, flag int, perm os.FileMode) (*os.File, error) { return openBeneath(root, p, flag, perm) }
	}
	out, err := open(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.NewSectionReader(f, from, fi.Size()-from))
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
