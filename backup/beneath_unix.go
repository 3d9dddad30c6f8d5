//go:build unix

package backup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// beneathDir opens the folder that holds path, below root, one folder at a
// time relative to the one before (openat with O_NOFOLLOW|O_DIRECTORY):
// a folder on the way that is a link — also one swapped in after any
// earlier check — is never followed (*SymlinkError). root itself is
// opened as it is (a config dir may be a link). It returns that folder's
// descriptor and path's last name.
func beneathDir(root, path string) (fd int, base string, err error) {
	parts, err := beneathParts(root, path)
	if err != nil {
		return -1, "", err
	}
	fd, err = unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: root, Err: err}
	}
	p := root
	for _, c := range parts[:len(parts)-1] {
		p += string(os.PathSeparator) + c
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				if lerr := refuseSymlink(p); lerr != nil {
					return -1, "", lerr
				}
			}
			return -1, "", &os.PathError{Op: "open", Path: p, Err: err}
		}
		fd = next
	}
	return fd, parts[len(parts)-1], nil
}

// openBeneath opens path (below root) with flag, following no link on the
// way nor at its name, and never waiting on a named pipe for a read
// (O_NONBLOCK, as openNoFollow).
func openBeneath(root, path string, flag int, perm os.FileMode) (*os.File, error) {
	dir, base, err := beneathDir(root, path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	flag |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		flag |= unix.O_NONBLOCK
	}
	fd, err := unix.Openat(dir, base, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// removeBeneath removes the file at path (below root) from the folder
// reached without following a link (unlinkat): a folder on the way
// swapped for a link leads the removal nowhere else.
func removeBeneath(root, path string) error {
	dir, base, err := beneathDir(root, path)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Unlinkat(dir, base, 0); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// linkBeneath gives the file at oldpath a second name newpath, both in
// one folder below root reached without following a link (linkat): a
// folder swapped for a link leads the new name nowhere else.
func linkBeneath(root, oldpath, newpath string) error {
	dir, base, err := beneathDir(root, newpath)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if filepath.Dir(oldpath) != filepath.Dir(newpath) {
		return fmt.Errorf("backup: %s and %s are in two folders", oldpath, newpath)
	}
	if err := unix.Linkat(dir, filepath.Base(oldpath), dir, base, 0); err != nil {
		return &os.LinkError{Op: "link", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
