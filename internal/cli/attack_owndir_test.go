package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNeverWritesCcsurgeonsOwnFiles: -o into <config-dir>/ccsurgeon/
// (backups, their manifests, the move journal, origins.jsonl) is refused
// before anything is read, --force or not, as -o into projects/ is. With
// --force, -o onto a backup's manifest.json replaced it with a session;
// the next command took that backup for a partial one and deleted it,
// and with it the session's original (the one copy of its state before
// ccsurgeon first changed it).
func TestOutputNeverWritesCcsurgeonsOwnFiles(t *testing.T) {
	cfg, path, bk := sessionWithABackup(t)
	id := idOf(path)
	bks := []string{bk}
	own := filepath.Join(cfg, "ccsurgeon")
	for _, tc := range []struct {
		name string
		out  string
	}{
		{"a backup's manifest", filepath.Join(bks[0], "manifest.json")},
		{"a backup's copy of the session", filepath.Join(bks[0], id+".jsonl")},
		{"a new file in a backup", filepath.Join(bks[0], "x.jsonl")},
		{"origins.jsonl", filepath.Join(own, "origins.jsonl")},
		{"a new file in ccsurgeon/", filepath.Join(own, "share.jsonl")},
		{"a share folder in ccsurgeon/", filepath.Join(own, "share") + "/"},
	} {
		for _, cmd := range [][]string{
			{"strip-thinking", id},
			{"compress", id, "--keep-turns", "0"},
			{"clone", id},
			{"redact", id},
		} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				before := hashTree(t, cfg)
				args := append([]string{"--config-dir", cfg}, cmd...)
				_, stderr, code := cliRun(t, append(args, "-o", tc.out, "--force")...)
				assert.Equal(t, 2, code, stderr)
				assert.Contains(t, stderr, "ccsurgeon's own")
				assert.Contains(t, stderr, "hint: ")
				assert.Empty(t, changes(before, hashTree(t, cfg)), "-o wrote into ccsurgeon's own files")
			})
		}
	}
	_, stderr, code := cliRun(t, "--config-dir", cfg, "backups", id)
	require.Equal(t, 0, code, stderr)
	bks2, _ := filepath.Glob(filepath.Join(cfg, "ccsurgeon", "backups", id, "*"))
	assert.Equal(t, bks, bks2, "the original backup is kept")
}
