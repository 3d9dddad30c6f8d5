//go:build !unix

package backup

import (
	"fmt"
	"os"
)

// openNoFollow opens path as os.OpenFile does, refusing a symlink at path
// (checked just before the open: this system has no O_NOFOLLOW).
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("is a symlink")}
	}
	return os.OpenFile(path, flag, perm)
}
