//go:build unix

package ops

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedactReadsOnlyRegularToolResults: a file of tool-results/ that the
// listing saw as a file and that is a named pipe (no writer) or a device
// by the time it is read is named as not scanned, at once: not waited on
// (a plain read of a pipe waits forever), nor read without end.
func TestRedactReadsOnlyRegularToolResults(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "toolu_01.txt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, p := range []string{fifo, "/dev/zero"} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			tx := &Txn{}
			done := make(chan error, 1)
			go func() { done <- (RedactSecrets{}).redactToolResult(tx, nil, p) }()
			select {
			case err := <-done:
				require.NoError(t, err)
				assert.Equal(t, []string{p}, tx.Report.NotScanned)
			case <-time.After(5 * time.Second):
				t.Fatal("still reading it after 5 s")
			}
		})
	}
	_ = os.Remove(fifo)
}
