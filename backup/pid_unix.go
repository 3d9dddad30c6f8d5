//go:build unix

package backup

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this pid exists (kill(pid, 0)
// succeeds, or fails only for lack of permission).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
