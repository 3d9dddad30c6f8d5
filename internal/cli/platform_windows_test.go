//go:build windows

package cli

import (
	"os"
	"testing"
)

// mkfifo: Windows has no FIFOs in the file system.
func mkfifo(t *testing.T, _ string) { t.Skip("no FIFOs on windows") }

// killSelf ends this process at once (TerminateProcess), as kill -9 does.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
}
