//go:build unix

package backup

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow opens path with flag, refusing a symlink at its name
// (ELOOP); a read never blocks on a FIFO.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	flag |= unix.O_NOFOLLOW
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		flag |= unix.O_NONBLOCK
	}
	return os.OpenFile(path, flag, perm)
}

// lockExclusive takes an exclusive flock on f without waiting: held is
// true when another process has it.
func lockExclusive(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// fileOwner is the uid and gid of the file fi describes.
func fileOwner(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// linkCount is the number of names the file fi describes has (ok false:
// not known).
func linkCount(f *os.File, fi os.FileInfo) (n uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// chownLike gives f the owner of like (nil: nothing to do). Root gives
// both; a user's file is theirs already, but its group may be any group
// they are in, and a new file gets their primary one: the group of like
// is given back (keepGroup).
func chownLike(f *os.File, like os.FileInfo) error {
	if like == nil {
		return nil
	}
	uid, gid, ok := fileOwner(like)
	if !ok {
		return nil
	}
	if os.Geteuid() != 0 {
		if cur, err := f.Stat(); err == nil {
			if _, g, ok := fileOwner(cur); ok && g != gid {
				if err := f.Chown(-1, gid); err != nil && !errors.Is(err, syscall.EPERM) {
					return err
				}
			}
		}
		return nil
	}
	return f.Chown(uid, gid)
}

// keepGroup gives the file at path (never through a link) the group gid
// when it has another, as a user may for a group they are in (chownLike
// does the same through a descriptor); a group they are not in (EPERM)
// stays as the new file has it, as before.
func keepGroup(path string, gid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if _, g, ok := fileOwner(fi); !ok || g == gid {
		return nil
	}
	if err := os.Lchown(path, -1, gid); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return nil
}

// replaceFile renames tmp over target (rename(2) replaces atomically,
// open or not).
func replaceFile(tmp, target string) error {
	return os.Rename(tmp, target)
}

// isNoSpace reports a full disk or an exhausted quota.
func isNoSpace(err error) bool {
	return errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT)
}

// canChangeDir reports whether this process (its effective user) may
// create and remove names in dir: nil, or why not (EACCES, EROFS).
func canChangeDir(dir string) error {
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS)
}
