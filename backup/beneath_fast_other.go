//go:build unix && !linux

package backup

// dirBeneathFast is the walk's shortcut where the kernel has one
// (beneath_fast_linux.go); here the walk always runs.
func dirBeneathFast(root int, parts []string) (int, bool) { return -1, false }
