package backup

import (
	"os"
	"syscall"
	"time"
)

// FileATime is the access time of fi (the zero time when unknown).
func FileATime(fi os.FileInfo) time.Time {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, d.LastAccessTime.Nanoseconds())
	}
	return time.Time{}
}
