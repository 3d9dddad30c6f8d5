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

// chownLike gives f the owner of like (nil: nothing to do); only root
// can, and only root needs to (a user's files are already theirs).
func chownLike(f *os.File, like os.FileInfo) error {
	if like == nil || os.Geteuid() != 0 {
		return nil
	}
	uid, gid, ok := fileOwner(like)
	if !ok {
		return nil
	}
	return f.Chown(uid, gid)
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
