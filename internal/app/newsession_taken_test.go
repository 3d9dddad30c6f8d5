package app

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewSessionNeverRemovesWhatItDidNotMake: the clean-up of a failed new
// session removes only what that attempt created. Each member puts a file
// the user owns where the new session would go (its transcript, its
// sidecar folder, its file-history folder) and checks that the attempt is
// refused and the user's bytes are still there.
func TestNewSessionNeverRemovesWhatItDidNotMake(t *testing.T) {
	const newID = "11111111-2222-4333-8444-555555555555"
	for _, member := range []string{"transcript", "sidecar-folder", "file-history"} {
		t.Run(member, func(t *testing.T) {
			cfg := t.TempDir()
			dir := filepath.Join(cfg, "projects", "-p")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			// a source session with a file-history folder, so the copy runs
			src := "aaaaaaaa-2222-4333-8444-555555555555"
			require.NoError(t, os.MkdirAll(filepath.Join(cfg, "file-history", src), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(cfg, "file-history", src, "f@v1"), []byte("old"), 0o644))

			var theirs string
			switch member {
			case "transcript":
				theirs = filepath.Join(dir, newID+".jsonl")
			case "sidecar-folder":
				theirs = filepath.Join(dir, newID, "subagents", "agent-x.jsonl")
			case "file-history":
				theirs = filepath.Join(cfg, "file-history", newID, "g@v1")
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(theirs), 0o755))
			require.NoError(t, os.WriteFile(theirs, []byte("the user's bytes\n"), 0o600))

			env := &Env{ConfigDir: cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			ns := newSession{
				from: src, sidecarDir: filepath.Join(dir, src), newID: newID, op: "clone",
				projectDir: func() (string, error) { return dir, nil },
				main: func(string) func(io.Writer) error {
					return func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }
				},
			}
			_, err := env.writeNewSession(ns)
			require.Error(t, err, "a new session over the user's %s must be refused", member)
			b, rerr := os.ReadFile(theirs)
			require.NoError(t, rerr, "the user's %s was removed by the clean-up", member)
			require.Equal(t, "the user's bytes\n", string(b))
		})
	}
}
