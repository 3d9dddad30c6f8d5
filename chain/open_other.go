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
	return nodeOnly(path, fh)
}
