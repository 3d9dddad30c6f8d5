package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack finding (2026-11-27), family "a process holds the session open
// for writing" (an idle client: its last line is older than the 5-second
// guard, its descriptor still open): an in-place change refuses it (its
// next lines would go to the replaced file), but the move transaction did
// not look: it copied the session, removed the old name and reported
// success, and the writer's next line went to the removed file, lost.
// Members: move of a SESSION the user names, and doctor --fix moving a
// stranded session it picked itself. Either the move is refused and the
// session is where it was, or the line written after it is in the session
// at its new place.
func TestMoveNeverLosesWhatAHeldDescriptorWrites(t *testing.T) {
	for _, mb := range []struct {
		name string
		args func(cfg, proj, other, id string) []string
		// folder the session is filed under
		folder func(proj, other string) string
	}{
		{"move SESSION --to", func(cfg, proj, other, id string) []string {
			return []string{"--config-dir", cfg, "move", id, "--to", other}
		}, func(proj, other string) string { return chain.ProjectSlug(proj) }},
		{"doctor --fix moving a stranded session", func(cfg, proj, other, id string) []string {
			return []string{"--config-dir", cfg, "doctor", "--fix"}
		}, func(proj, other string) string { return chain.ProjectSlug(other) }},
	} {
		t.Run(mb.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "cfg")
			proj, other := filepath.Join(root, "src", "proj"), filepath.Join(root, "src", "other")
			require.NoError(t, os.MkdirAll(proj, 0o755))
			require.NoError(t, os.MkdirAll(other, 0o755))
			path, _ := installSessionOf(t, cfg, mb.folder(proj, other), proj)
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")

			// the idle writer: its descriptor is open, its next line comes later
			goFile := filepath.Join(root, "go")
			line := `{"type":"queue-operation","operation":"enqueue","content":"written after the move","sessionId":"` + id + `"}`
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			w := exec.Command("sh", "-c", `while [ ! -e "$1" ]; do sleep 0.02; done; printf '%s\n' "$2" >&3`, "sh", goFile, line)
			w.ExtraFiles = []*os.File{f}
			require.NoError(t, w.Start())
			f.Close()
			t.Cleanup(func() { _ = os.WriteFile(goFile, nil, 0o600); _ = w.Wait() })
			old := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(path, old, old))

			out, errs, code := cliRun(t, mb.args(cfg, proj, other, id)...)
			require.NoError(t, os.WriteFile(goFile, nil, 0o600))
			require.NoError(t, w.Wait())

			sessions, err := chain.FindSessions(cfg, id)
			require.NoError(t, err)
			require.Len(t, sessions, 1, "%s: %s%s", mb.name, out, errs)
			got, err := os.ReadFile(sessions[0])
			require.NoError(t, err)
			if code != 0 {
				assert.Equal(t, path, sessions[0], "%s: refused, yet the session moved", mb.name)
				assert.Contains(t, errs+out, "open for writing", mb.name)
			}
			assert.True(t, bytes.Contains(got, []byte("written after the move")),
				"%s (exit %d): the line the writer wrote after the move is not in the session at %s: lost\n%s%s", mb.name, code, sessions[0], out, errs)
		})
	}
}
