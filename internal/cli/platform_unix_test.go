//go:build unix

package cli

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a FIFO at p.
func mkfifo(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }

// killSelf ends this process as kill -9 does.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
