//go:build windows

package backup

import (
	"errors"
	"os"
	"path/filepath"
	"time"
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

// linkAcross gives the file at oldpath (below root) a second name newpath
// (below newRoot), no folder on either way being a link or junction
// (checked by name).
func linkAcross(root, oldpath, newRoot, newpath string) error {
	if err := checkBeneath(root, oldpath); err != nil {
		return err
	}
	if err := checkBeneath(newRoot, newpath); err != nil {
		return err
	}
	return os.Link(oldpath, newpath)
}

// renameBeneath gives the file at oldpath the name newpath (replacing
// what is there), no folder on the way from root being a link or
// junction (checked by name).
func renameBeneath(root, oldpath, newpath string) error {
	if err := checkBeneath(root, newpath); err != nil {
		return err
	}
	return replaceFile(oldpath, newpath)
}

// chtimesBeneath sets the times of the file at path (below root), no
// folder on the way being a link or junction (checked by name).
func chtimesBeneath(root, path string, atime, mtime time.Time) error {
	if err := checkBeneath(root, path); err != nil {
		return err
	}
	return os.Chtimes(path, atime, mtime)
}

// syncDirBeneath: windows does not fsync folders (syncDir).
func syncDirBeneath(root, dir string) error { return syncDir(dir) }

// mkdirBeneath makes the folder dir and its missing parents below root,
// each checked by name for a link or junction before the next is made
// (windows has no mkdirat: one swapped in between is not seen). It
// returns the folders made, the outermost first; like's mode and owner
// are not given (windows: a new folder inherits its parent's
// permissions).
func mkdirBeneath(root, dir string, like func(p string) os.FileInfo) (made []string, err error) {
	parts, err := beneathParts(root, filepath.Join(dir, "x"))
	if err != nil {
		return nil, err
	}
	p := root
	for _, c := range parts[:len(parts)-1] {
		if c == "." {
			continue
		}
		p = filepath.Join(p, c)
		mkerr := os.Mkdir(p, dirMode)
		if mkerr != nil && !errors.Is(mkerr, os.ErrExist) {
			return made, mkerr
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return made, err
		}
		if !fi.IsDir() || fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
			target, _ := os.Readlink(p)
			return made, symlinkError(p, target)
		}
		if mkerr == nil {
			made = append(made, p)
		}
	}
	return made, nil
}

// mkdirOneBeneath makes the one folder dir (its parent there) below
// root, no folder on the way being a link or junction (checked by name:
// windows has no mkdirat); a node at dir is an error that is
// fs.ErrExist. like is not given (as mkdirBeneath).
func mkdirOneBeneath(root, dir string, like func(p string) os.FileInfo) error {
	if err := checkBeneath(root, dir); err != nil {
		return err
	}
	return os.Mkdir(dir, dirMode)
}

// removeDirBeneath removes the empty folder dir (below root), no folder
// on the way being a link or junction (checked by name), nor dir itself.
func removeDirBeneath(root, dir string) error {
	if err := checkBeneath(root, filepath.Join(dir, "x")); err != nil {
		return err
	}
	return os.Remove(dir)
}

// sweepBeneath lists the folder dir (root or below it), no folder on the
// way being a link or junction (checked by name), and removes each
// regular file whose name is ours and that leftover names one, by name (windows has no
// unlinkat: a folder swapped for a link between the check and a removal
// is not seen). It returns the paths it removed.
func sweepBeneath(root, dir string, ours func(name string) bool, leftover func(name string, mtime time.Time) bool) []string {
	if checkBeneath(root, filepath.Join(dir, "x")) != nil {
		return nil
	}
	ents, _ := os.ReadDir(dir)
	var did []string
	for _, e := range ents {
		if !ours(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !leftover(e.Name(), fi.ModTime()) {
			continue
		}
		if os.Remove(p) == nil {
			did = append(did, p)
		}
	}
	return did
}

// readDirBeneath lists the folder dir (root or below it), no folder on
// the way nor dir being a link or junction (checked by name, then listed
// by name).
func readDirBeneath(root, dir string) ([]os.DirEntry, error) {
	if err := checkBeneath(root, filepath.Join(dir, "x")); err != nil {
		return nil, err
	}
	return os.ReadDir(dir)
}

// openDirBeneath checks that no folder on the way from root to dir, nor
// dir, is a link or junction (by name: windows has no openat) and returns
// no handle: createIn then makes files by name.
func openDirBeneath(root, dir string) (*os.File, error) {
	return nil, checkBeneath(root, filepath.Join(dir, "x"))
}

// createIn makes the new file path (O_EXCL) by name (windows: dirf is
// always nil, openDirBeneath).
func createIn(dirf *os.File, path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// removeAllBeneath removes the folder dir (below root) and all it holds,
// no folder on the way being a link or junction (checked by name; one
// inside it is removed, not followed: os.RemoveAll).
func removeAllBeneath(root, dir string) error {
	if err := checkBeneath(root, dir); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil
	}
	if !fi.IsDir() || fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return os.Remove(dir)
	}
	return os.RemoveAll(dir)
}

// openDirToSync opens the folder dir to fsync it (named pipes are not in
// the file system here).
func openDirToSync(dir string) (*os.File, error) { return os.Open(dir) }
