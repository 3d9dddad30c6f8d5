//go:build !windows

package chain

import (
	"os"
	"syscall"
)

// openShared opens path for reading as LoadFile keeps it open: on unix an
// open file never stops it from being replaced or removed. Without
// waiting on a named pipe (O_NONBLOCK; a regular file reads as before):
// the name was checked when the session was located or listed, and what
// it leads to now is refused by nodeOnly unless it is a file or a folder.
func openShared(path string) (*os.File, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fh, err = nodeOnly(path, fh); err != nil {
		return nil, err
	}
	// a file reads as it would have without the flag, but a file system
	// that honours it (FUSE, a network one) could answer EAGAIN: off
	if rc, err := fh.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
	}
	return fh, nil
}
