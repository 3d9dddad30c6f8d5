//go:build darwin || freebsd || netbsd

package backup

import (
	"os"
	"syscall"
	"time"
)

// FileATime is the access time of fi (the zero time when unknown).
func FileATime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atimespec.Sec, st.Atimespec.Nsec)
	}
	return time.Time{}
}
