package backup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// NodeKind names what a node of the file system is when it is not a
// regular file ("" for a regular file): the one rule by which ccsurgeon
// copies, moves and backs up only regular files. A link is never read
// through (it would copy the bytes of a file elsewhere, perhaps outside
// the config dir), a named pipe never read (it would wait forever), a
// socket or a device never opened. Clone skips such a node and names it;
// move and the backups refuse it (NotAFileError).
func NodeKind(m fs.FileMode) string { return chain.NodeKind(m) }

// NodeAt is the *NotAFileError of the node at path when it is not a
// regular file (a link, a named pipe, …), nil for a regular file or
// nothing: what a new session leaves out rather than copy (a link's
// bytes are another file's).
func NodeAt(path string) *NotAFileError {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if kind := NodeKind(fi.Mode()); kind != "" {
		return &NotAFileError{Path: path, Kind: kind}
	}
	return nil
}

// openRegular opens path for reading when it is a regular file, and never
// through a link or into a wait: without following a link at its name and
// without blocking on a named pipe (openNoFollow: O_NOFOLLOW|O_NONBLOCK
// on linux and darwin; on windows a link or junction is refused, and named
// pipes are not in the file system), then the opened file itself must be
// regular — what a check of the name saw earlier may have been swapped
// since. Anything else is a *NotAFileError naming it.
func openRegular(path string) (*os.File, error) {
	fh, err := openNoFollow(path, os.O_RDONLY, 0)
	return regularOnly(path, fh, err)
}

// OpenRegularBeneath opens the file at path, below the folder root, for
// reading when it is a regular file, reached from root without following
// a link on the way nor at its name and without waiting on a named pipe
// (openRegularBeneath): what a check of the name saw before may have been
// swapped since. Anything else is a *NotAFileError (or a *SymlinkError for
// a folder on the way).
func OpenRegularBeneath(root, path string) (*os.File, error) { return openRegularBeneath(root, path) }

// openRegularBeneath is openRegular for a file below root that is reached
// without following a link on the way either (openBeneath): a folder
// swapped for a link after it was checked leads the read nowhere else.
func openRegularBeneath(root, path string) (*os.File, error) {
	fh, err := openBeneath(root, path, os.O_RDONLY, 0)
	var se *SymlinkError
	if errors.As(err, &se) {
		se.Read = true // a folder on the way: refused for a read
	}
	return regularOnly(path, fh, err)
}

// readBeneath reads the whole regular file at path, below root, reached
// without following a link (openRegularBeneath), refusing one larger than
// chain.MaxSideFile (as chain.ReadSideFile: one of ccsurgeon's lists or
// marks, a few lines).
func readBeneath(root, path string) ([]byte, error) {
	fh, err := openRegularBeneath(root, path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, chain.MaxSideFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > chain.MaxSideFile {
		return nil, fmt.Errorf("%s is more than the %d bytes read of a file beside the sessions", path, chain.MaxSideFile)
	}
	return b, nil
}

// regularOnly keeps fh, opened at path, when it is a regular file (else
// a *NotAFileError); a failed open that met a node at path says which.
func regularOnly(path string, fh *os.File, err error) (*os.File, error) {
	if err != nil {
		// ELOOP (a link under O_NOFOLLOW), ENXIO (a socket), a reparse
		// point: said by what the name is
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, &NotAFileError{Path: path, Kind: NodeKind(fi.Mode())}
		}
		return nil, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		fh.Close()
		return nil, &NotAFileError{Path: path, Kind: NodeKind(fi.Mode())}
	}
	return fh, nil
}
