//go:build unix

package harness

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockWait takes an exclusive flock on f, waiting for it.
func lockWait(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }

func unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
