//go:build !windows

package chain

import "os"

// openShared opens path for reading as LoadFile keeps it open: on unix an
// open file never stops it from being replaced or removed.
func openShared(path string) (*os.File, error) { return os.Open(path) }
