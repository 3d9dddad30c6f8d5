//go:build windows

package backup

import (
	"os"
	"path/filepath"
)

// checkBeneath refuses a link or junction on the way from root to path
// (windows has no openat: each folder is checked by name, then path is
// opened by name; a link swapped in between the two is not seen — the
// last name is still never followed, openNoFollow).
func checkBeneath(root, path string) error {
	parts, err := beneathParts(root, path)
	if err != nil {
		return err
	}
	p := root
	for _, c := range parts[:len(parts)-1] {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() || fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
			target, _ := os.Readlink(p)
			return symlinkError(p, target)
		}
	}
	return nil
}

// openBeneath opens path (below root) with flag, following no link or
// junction on the way (checked by name) nor at its name.
func openBeneath(root, path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := checkBeneath(root, path); err != nil {
		return nil, err
	}
	return openNoFollow(path, flag, perm)
}

// removeBeneath removes the file at path (below root), no folder on the
// way being a link or junction (checked by name).
func removeBeneath(root, path string) error {
	if err := checkBeneath(root, path); err != nil {
		return err
	}
	return os.Remove(path)
}

// linkBeneath gives the file at oldpath a second name newpath, no folder
// on the way from root being a link or junction (checked by name).
func linkBeneath(root, oldpath, newpath string) error {
	if err := checkBeneath(root, newpath); err != nil {
		return err
	}
	return os.Link(oldpath, newpath)
}
