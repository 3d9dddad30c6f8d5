//go:build !linux

package backup

import "os"

// OpenFilePath is the path of the regular file f has open, where the OS
// tells it (Linux only, see fdpath_linux.go): elsewhere ok is false, and
// standard output is checked against the session's own file only.
func OpenFilePath(f *os.File) (path string, ok bool) { return "", false }
