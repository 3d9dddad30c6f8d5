//go:build linux || darwin || freebsd || netbsd || openbsd

package backup

import (
	"time"

	"golang.org/x/sys/unix"
)

// changeTime is the inode change time of the file at path (not followed
// through a symlink): the kernel sets it, a user cannot set it back.
func changeTime(path string) (time.Time, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}
