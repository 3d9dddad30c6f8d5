//go:build unix

package backup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
	if next, ok := dirBeneathFast(fd, parts[:len(parts)-1]); ok {
		unix.Close(fd)
		return next, parts[len(parts)-1], nil
	}
	p := root
	folders := parts[:len(parts)-1]
	for i, c := range folders {
		p += string(os.PathSeparator) + c
		// a folder on the way is only searched, as by the shortcut (and
		// any path's resolution): one its user may search but not list
		// was refused by the walk alone
		how := unix.O_RDONLY
		if i < len(folders)-1 {
			how = searchOnly
		}
		next, err := unix.Openat(fd, c, how|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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

// linkAcross gives the file at oldpath (below root) a second name newpath
// (below newRoot), each folder reached from its root without following a
// link (linkat): a folder on either way swapped for a link leads the new
// name nowhere else.
func linkAcross(root, oldpath, newRoot, newpath string) error {
	odir, obase, err := beneathDir(root, oldpath)
	if err != nil {
		return err
	}
	defer unix.Close(odir)
	ndir, nbase, err := beneathDir(newRoot, newpath)
	if err != nil {
		return err
	}
	defer unix.Close(ndir)
	if err := unix.Linkat(odir, obase, ndir, nbase, 0); err != nil {
		return &os.LinkError{Op: "link", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// renameBeneath gives the file at oldpath the name newpath (replacing
// what is there), both in one folder below root reached without following
// a link (renameat): a folder swapped for a link since the file was made
// leads the rename nowhere else.
func renameBeneath(root, oldpath, newpath string) error {
	if filepath.Dir(oldpath) != filepath.Dir(newpath) {
		return fmt.Errorf("backup: %s and %s are in two folders", oldpath, newpath)
	}
	dir, base, err := beneathDir(root, newpath)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if err := unix.Renameat(dir, filepath.Base(oldpath), dir, base); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// chtimesBeneath sets the times of the file at path (below root), never
// through a link on the way nor at its name (an unknown atime: mtime).
func chtimesBeneath(root, path string, atime, mtime time.Time) error {
	dir, base, err := beneathDir(root, path)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if atime.IsZero() { // not known (a snapshot where the system keeps none)
		atime = mtime
	}
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	if err := unix.UtimesNanoAt(dir, base, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "chtimes", Path: path, Err: err}
	}
	return nil
}

// syncDirBeneath is syncDir for the folder dir (root or below it),
// reached without following a link on the way nor at its name.
func syncDirBeneath(root, dir string) error {
	hook("dir-synced:" + dir)
	fd, _, err := beneathDir(root, filepath.Join(dir, "x"))
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("fsync directory %s: %w", dir, &os.PathError{Op: "fsync", Path: dir, Err: err})
	}
	return nil
}

// mkdirBeneath makes the folder dir and its missing parents below root,
// one folder at a time relative to the one before (mkdirat, then openat
// with O_NOFOLLOW): a folder on the way that is a link — also one
// swapped in after a check — is never followed (*SymlinkError), so no
// folder is made outside root. Each folder p it makes gets the mode of
// like(p) (the folder it stands for: a moved folder's old place) and, as
// root, its owner; mode 0700 when like is nil or gives nil. It returns
// the folders made, the outermost first.
func mkdirBeneath(root, dir string, like func(p string) os.FileInfo) (made []string, err error) {
	parts, err := beneathParts(root, filepath.Join(dir, "x"))
	if err != nil {
		return nil, err
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer func() { unix.Close(fd) }()
	if next, ok := dirBeneathFast(fd, parts[:len(parts)-1]); ok {
		unix.Close(next) // there already: nothing to make
		return nil, nil
	}
	p := root
	for _, c := range parts[:len(parts)-1] {
		if c == "." {
			continue
		}
		p += string(os.PathSeparator) + c
		// (a folder on the way only searched, as by beneathDir; one made
		// here opened to read, its mode and owner set through it)
		const flags = unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		next, err := unix.Openat(fd, c, searchOnly|flags, 0)
		made1 := false
		if errors.Is(err, unix.ENOENT) {
			// (opened first: a folder that is there is never made, and a
			// read-only one on the way is no error)
			mkerr := unix.Mkdirat(fd, c, uint32(dirMode))
			if mkerr != nil && !errors.Is(mkerr, unix.EEXIST) {
				return made, &os.PathError{Op: "mkdir", Path: p, Err: mkerr}
			}
			made1 = mkerr == nil
			how := searchOnly
			if made1 {
				how = unix.O_RDONLY
			}
			next, err = unix.Openat(fd, c, how|flags, 0)
		}
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				if lerr := refuseSymlink(p); lerr != nil {
					return made, lerr
				}
			}
			return made, &os.PathError{Op: "open", Path: p, Err: err}
		}
		unix.Close(fd)
		fd = next
		if made1 {
			made = append(made, p)
			if err := keepDirLike(fd, p, like); err != nil {
				return made, err
			}
		}
	}
	return made, nil
}

// mkdirOneBeneath makes the one folder dir (mode 0700) in its parent
// below root, reached without following a link (mkdirat): a node at dir
// is an error that is fs.ErrExist (EEXIST), a link there included. It
// gets like(dir)'s mode and owner as mkdirBeneath's.
func mkdirOneBeneath(root, dir string, like func(p string) os.FileInfo) error {
	parent, base, err := beneathDir(root, dir)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	if err := unix.Mkdirat(parent, base, uint32(dirMode)); err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	if like == nil {
		return nil
	}
	fd, err := unix.Openat(parent, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	return keepDirLike(fd, dir, like)
}

// keepDirLike gives the folder just made at p (open as fd) the mode of
// like(p), whole (the umask narrowed mkdirat's), and as root its owner.
func keepDirLike(fd int, p string, like func(string) os.FileInfo) error {
	if like == nil {
		return nil
	}
	fi := like(p)
	if fi == nil {
		return nil
	}
	if err := unix.Fchmod(fd, uint32(fi.Mode().Perm())); err != nil {
		return &os.PathError{Op: "chmod", Path: p, Err: err}
	}
	if os.Geteuid() == 0 {
		if uid, gid, ok := fileOwner(fi); ok {
			if err := unix.Fchown(fd, uid, gid); err != nil {
				return &os.PathError{Op: "chown", Path: p, Err: err}
			}
		}
	}
	return nil
}

// removeDirBeneath removes the empty folder dir (below root) from its
// parent reached without following a link (unlinkat AT_REMOVEDIR).
func removeDirBeneath(root, dir string) error {
	parent, base, err := beneathDir(root, dir)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	if err := unix.Unlinkat(parent, base, unix.AT_REMOVEDIR); err != nil {
		return &os.PathError{Op: "remove", Path: dir, Err: err}
	}
	return nil
}

// sweepBeneath lists the folder dir (root, or a folder below it) reached
// from root without following a link (beneathDir), and removes from that
// folder's descriptor (unlinkat) each regular file (fstatat, not
// followed) whose name is ours and that leftover names one (a name that
// is not ours costs no stat: a folder of thousands of tool results): a
// folder swapped for a link before or during the sweep leads no listing
// and no removal out of root. It returns the paths it removed.
func sweepBeneath(root, dir string, ours func(name string) bool, leftover func(name string, mtime time.Time) bool) []string {
	fd, _, err := beneathDir(root, filepath.Join(dir, "x"))
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	names, err := namesAt(fd, dir)
	if err != nil {
		return nil
	}
	var did []string
	for _, name := range names {
		if !ours(name) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		if !leftover(name, time.Unix(st.Mtim.Unix())) {
			continue
		}
		if unix.Unlinkat(fd, name, 0) == nil {
			did = append(did, filepath.Join(dir, name))
		}
	}
	return did
}

// readDirBeneath lists the folder dir (root, or a folder below it)
// reached from root without following a link on the way nor at its name:
// a folder swapped for a link has nothing listed where it leads.
func readDirBeneath(root, dir string) ([]os.DirEntry, error) {
	fd, _, err := beneathDir(root, filepath.Join(dir, "x"))
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	return f.ReadDir(-1)
}

// openDirBeneath opens the folder dir (root or below it), reached from
// root without following a link on the way nor at its name, for the new
// files made in it (createIn).
func openDirBeneath(root, dir string) (*os.File, error) {
	fd, _, err := beneathDir(root, filepath.Join(dir, "x"))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// createIn makes the new file path (O_EXCL, never through a link at its
// name) in the folder dirf holds open (openDirBeneath; nil: by name).
func createIn(dirf *os.File, path string, perm os.FileMode) (*os.File, error) {
	if dirf == nil {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	}
	fd, err := unix.Openat(int(dirf.Fd()), filepath.Base(path), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// namesAt lists the names in the open folder fd (dir is its path, for
// errors only); fd stays open.
func namesAt(fd int, dir string) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(dup), dir)
	defer f.Close()
	return f.Readdirnames(-1)
}

// removeAllBeneath removes the folder dir (below root) and all it holds,
// each folder reached from the one above it without following a link
// (openat O_NOFOLLOW, unlinkat): a folder on the way, or in it, swapped
// for a link leads no removal out of root (the link itself is removed,
// not what it names).
func removeAllBeneath(root, dir string) error {
	parent, base, err := beneathDir(root, dir)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	return removeAllAt(parent, base, dir)
}

func removeAllAt(parent int, name, path string) error {
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			// not a folder (a link or a file): only its name goes
			if err := unix.Unlinkat(parent, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				return &os.PathError{Op: "remove", Path: path, Err: err}
			}
			return nil
		}
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	names, err := namesAt(fd, path)
	if err != nil {
		unix.Close(fd)
		return err
	}
	for _, n := range names {
		err := unix.Unlinkat(fd, n, 0)
		// a folder: EISDIR (linux), EPERM (darwin, the BSDs)
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
			err = removeAllAt(fd, n, filepath.Join(path, n))
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			unix.Close(fd)
			if _, ok := err.(*os.PathError); ok {
				return err
			}
			return &os.PathError{Op: "remove", Path: filepath.Join(path, n), Err: err}
		}
	}
	unix.Close(fd)
	if err := unix.Unlinkat(parent, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// openDirToSync opens the folder dir by name to fsync it, never waiting
// on a named pipe swapped in for it (O_DIRECTORY|O_NONBLOCK: anything but
// a folder fails at once, ENOTDIR; a plain open waited for a writer, and
// the move with it, for good).
func openDirToSync(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}
