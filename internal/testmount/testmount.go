// Package testmount gives tests a small file system of their own (a tmpfs)
// to fill up, and the one rule for a test that cannot have one: CI runs as
// root and must run it, so there (CI set) it fails; a user who runs the
// README's test command from a fresh clone without root sees the test
// counted as not run, with the reason.
package testmount

import (
	"os"
	"testing"
)

// Cannot stops a test that needs what this machine lacks (see the package).
func Cannot(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("this test needs root to mount a filesystem: "+format, args...)
	}
	t.Skipf("not run: needs root to mount a filesystem (CI runs it as root): "+format, args...)
}
