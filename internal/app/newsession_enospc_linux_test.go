package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/internal/testmount"
	"github.com/stretchr/testify/require"
)

// TestNewSessionOnAFullDisk: a new session on a file system that fills up
// (a real ENOSPC: a 512 KiB tmpfs, root only) as a sidecar or the main
// transcript is written fails with the no-space error, changes or removes
// no byte that was there, and leaves no main transcript nor anything the
// next run's sweep would not remove. A member per file that fills it.
func TestNewSessionOnAFullDisk(t *testing.T) {
	for _, member := range []string{"tool-result", "main-transcript"} {
		t.Run(member, func(t *testing.T) {
			f := newAttackFixtureOn(t, false, func(cfg string) {
				testmount.Tmpfs(t, cfg, "512k")
			})
			big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16) // 300 KiB: a second copy does not fit
			var mainR func(io.Writer) error
			if member == "tool-result" {
				require.NoError(t, os.WriteFile(filepath.Join(f.dir, f.src, "tool-results", "big.txt"), big, 0o644))
			} else {
				mainR = func(w io.Writer) error { _, err := w.Write(append(big, big...)); return err }
			}
			before, outside := treeHash(t, filepath.Dir(f.cfg)), treeHash(t, f.outside)
			env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			_, err := env.writeNewSession(f.plan(mainR, nil))
			require.Error(t, err)
			require.ErrorIs(t, err, backup.ErrNoSpace, "not the no-space error: %v", err)
			f.checkNothingLost(t, before, outside)
		})
	}
}
