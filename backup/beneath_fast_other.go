//go:build unix && !linux

package backup

import "golang.org/x/sys/unix"

// searchOnly opens a folder on the way of a walk (no O_PATH here: opened
// to read, which needs read permission).
const searchOnly = unix.O_RDONLY

// dirBeneathFast is the walk's shortcut where the kernel has one
// (beneath_fast_linux.go); here the walk always runs.
func dirBeneathFast(root int, parts []string) (int, bool) { return -1, false }
