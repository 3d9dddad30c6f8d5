//go:build unix

package backup

import (
	"os"
	"syscall"
)

// openNoFollow opens path as os.OpenFile does, but never through a
// symlink at path itself (the open fails): ccsurgeon's own files and the
// files it appends to are opened with it.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
}
