//go:build linux

package testmount

import (
	"os"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size ("64k", "512k") at dir, unmounted when the
// test ends, or stops the test by Cannot.
func Tmpfs(t testing.TB, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Cannot(t, "mounting a tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		Cannot(t, "cannot mount a tmpfs at %s: %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}
