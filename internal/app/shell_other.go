//go:build !windows

package app

// hostShell: commands printed on Linux and macOS are a POSIX shell's
// (shell.go).
func hostShell() shell { return posixShell }
