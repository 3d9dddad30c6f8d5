package backup

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// syncsTogether reports whether files written together may be made
// durable by one syncfs(2) of their file system instead of an fsync
// each: Linux 5.8 and later, where syncfs returns the write errors the
// file system met since the descriptor it is given was opened (before,
// it returned 0 whatever they were).
var syncsTogether = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// kernelAtLeast reports whether the release ("6.1.0-13-amd64") is
// major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	lead := func(s string) string { // "8-rc3" -> "8"
		if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			return s[:i]
		}
		return s
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(lead(parts[1]))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// localDisk reports whether a file system (its statfs magic) is one of
// the local disk file systems whose syncfs writes every file's data and
// every folder's entries to the disk and reports their write errors:
// ext2/3/4, XFS, Btrfs, F2FS, bcachefs, ZFS (and tmpfs, which has no disk).
// On any other (NFS, SMB, FUSE: sshfs, a cloud drive; overlayfs) each file
// is fsynced, which reaches the server or the file system below.
func localDisk(magic int64) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC,
		0xca451a4e, // bcachefs
		0x2fc12fc1, // zfs
		unix.TMPFS_MAGIC:
		return true
	}
	return false
}

// syncfs1 is syncfs(2) on the file system of the open descriptor fd.
func syncfs1(fd int) error {
	for {
		err := unix.Syncfs(fd)
		if err != unix.EINTR {
			return err
		}
	}
}

// syncGroup holds a descriptor on each file system of a set of folders,
// opened before anything is written in them: the syncfs that makes what
// was written there durable then reports every write error met since.
type syncGroup struct {
	fds  []int
	dirs []string
	devs []uint64
}

// openSyncGroup opens the folders dirs (below root, following no link:
// beneathDir), one kept for each file system they are on.
func openSyncGroup(root string, dirs []string) (*syncGroup, error) {
	g := &syncGroup{}
	if err := g.addDirs(root, dirs); err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

// addDirs opens the folders dirs (below root, following no link) and keeps
// one for each file system the group has no handle on yet.
func (g *syncGroup) addDirs(root string, dirs []string) error {
	for _, d := range dirs {
		fd, _, err := beneathDir(root, filepath.Join(d, "x"))
		if err != nil {
			return err
		}
		kept, err := g.keep(fd, d)
		if !kept {
			unix.Close(fd)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// add keeps a handle on the file system of the open folder f (dir) when
// the group has none on it yet.
func (g *syncGroup) add(f *os.File, dir string) error {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "dup", Path: dir, Err: err}
	}
	kept, err := g.keep(fd, dir)
	if !kept {
		unix.Close(fd)
	}
	return err
}

// keep keeps fd (the folder dir) when the group has no handle on its file
// system yet, and reports whether it did. A folder on a file system
// syncfs is not trusted on is refused (errNotTogether).
func (g *syncGroup) keep(fd int, dir string) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, &os.PathError{Op: "fstat", Path: dir, Err: err}
	}
	if slices.Contains(g.devs, st.Dev) {
		return false, nil
	}
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err != nil {
		return false, &os.PathError{Op: "fstatfs", Path: dir, Err: err}
	}
	if !localDiskFn(int64(sf.Type)) {
		return false, &os.PathError{Op: "syncfs", Path: dir, Err: errNotTogether}
	}
	g.fds = append(g.fds, fd)
	g.dirs = append(g.dirs, dir)
	g.devs = append(g.devs, st.Dev)
	return true, nil
}

// sync makes everything written on the group's file systems durable.
func (g *syncGroup) sync() error {
	for i, fd := range g.fds {
		hook("syncfs:" + g.dirs[i])
		if err := syncfsFn(fd); err != nil {
			return &os.PathError{Op: "syncfs", Path: g.dirs[i], Err: err}
		}
	}
	return nil
}

func (g *syncGroup) close() {
	for _, fd := range g.fds {
		unix.Close(fd)
	}
	g.fds, g.dirs, g.devs = nil, nil, nil
}
