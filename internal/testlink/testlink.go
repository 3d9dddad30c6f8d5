// Package testlink is for the tests whose subject is a symbolic link (a
// link planted in the config dir, a folder swapped for one): where links
// cannot be made they skip, saying why, rather than fail.
package testlink

import (
	"errors"
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
		if le := (*os.LinkError)(nil); errors.As(cause, &le) {
			cause = le.Err // (not the probe's paths: one reason for every test)
		}
	})
	if cause != nil {
		// one message for all: the summary of the run groups the tests
		// not run by it
		t.Skipf("a link is this test's subject: creating links needs Developer Mode or the SeCreateSymbolicLinkPrivilege on Windows (%v)", cause)
	}
}
