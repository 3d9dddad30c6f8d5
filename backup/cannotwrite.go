package backup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteBlock is why a folder cannot take a new file.
type WriteBlock int

const (
	// NoFolder: the folder does not exist (Dir, or a folder above it)
	NoFolder WriteBlock = iota + 1
	// NotAFolder: a file (At) stands where the path needs a folder
	NotAFolder
	// NoNewFiles: the folder exists and refuses a new file: permission
	// denied, a read-only file system, a file system such as /proc
	NoNewFiles
)

// CannotWriteError says that Path (a file, or a share folder) cannot be
// made in its folder Dir, and why (Block; At: the file in the way; Err:
// the system's error, for NoNewFiles). It names no flag: the command layer
// says what the user can write instead.
type CannotWriteError struct {
	Path, Dir, At string
	Block         WriteBlock
	Err           error
}

func (e *CannotWriteError) Error() string {
	switch e.Block {
	case NoFolder:
		return fmt.Sprintf("cannot write %s: folder %s does not exist", e.Path, e.Dir)
	case NotAFolder:
		return fmt.Sprintf("cannot write %s: %s is a file, not a folder", e.Path, e.At)
	}
	why := "it takes no new files"
	switch {
	case errors.Is(e.Err, fs.ErrPermission):
		why = "permission denied"
	case errors.Is(e.Err, syscall.EROFS):
		why = "read-only file system"
	}
	return fmt.Sprintf("cannot write %s: folder %s takes no new files (%s)", e.Path, e.Dir, why)
}

func (e *CannotWriteError) Unwrap() error { return e.Err }

// FolderError is the CannotWriteError of path, to be made in dir, where
// dir is not a folder that exists: NoFolder, or NotAFolder when a file
// stands at dir or above it. Nil when dir is a folder.
func FolderError(path, dir string) error {
	for d := dir; ; {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			if d == dir {
				return nil
			}
			return &CannotWriteError{Path: path, Dir: dir, Block: NoFolder}
		case err == nil:
			return &CannotWriteError{Path: path, Dir: dir, At: d, Block: NotAFolder}
		}
		up := filepath.Dir(d)
		if up == d {
			return &CannotWriteError{Path: path, Dir: dir, Block: NoFolder}
		}
		d = up
	}
}

// createError is the CannotWriteError of a failure err to create path (a
// file or a folder) in dir, or nil when err is not one of a folder that
// cannot take it (a full disk, an I/O error).
func createError(path, dir string, err error) error {
	if e := FolderError(path, dir); e != nil {
		return e
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) {
		// a folder that exists: /proc says "no such file" of a new one
		return &CannotWriteError{Path: path, Dir: dir, Block: NoNewFiles, Err: err}
	}
	return nil
}
