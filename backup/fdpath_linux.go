package backup

import (
	"os"
	"path/filepath"
	"strconv"
)

// OpenFilePath is the path of the regular file f has open (standard
// output redirected to a file by the shell), where the OS tells it: on
// Linux from /proc/self/fd. ok is false for anything else (a terminal, a
// pipe, a file since removed) and where the OS does not tell.
func OpenFilePath(f *os.File) (path string, ok bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	if again, err := os.Stat(p); err != nil || !os.SameFile(st, again) {
		return "", false // removed or renamed since: "(deleted)"
	}
	return p, true
}
