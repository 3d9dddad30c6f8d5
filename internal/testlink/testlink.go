// Package testlink is for the tests whose subject is a symbolic link (a
// link planted in the config dir, a folder swapped for one): where links
// cannot be made they skip, saying why, rather than fail.
package testlink

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once  sync.Once
	cause error // why links cannot be made here (nil: they can)
)

// Need skips t when this system cannot make a symbolic link: on Windows
// creating one needs Developer Mode or the SeCreateSymbolicLinkPrivilege
// (an administrator's), which a runner may lack. Elsewhere it does
// nothing. Call it first in a test (or member) whose subject is a link,
// from the test's goroutine.
func Need(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "windows" {
		return
	}
	once.Do(func() {
		dir, err := os.MkdirTemp("", "ccsurgeon-testlink-")
		if err != nil {
			cause = err
			return
		}
		defer os.RemoveAll(dir)
		cause = os.Symlink(filepath.Join(dir, "target"), filepath.Join(dir, "link"))
	})
	if cause != nil {
		t.Skipf("%s: creating links needs Developer Mode or the SeCreateSymbolicLinkPrivilege on Windows: %v", t.Name(), cause)
	}
}
