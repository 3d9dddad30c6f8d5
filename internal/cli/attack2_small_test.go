package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoreOfANamedBackupThatIsNotThereSaysWhatToRun: `restore ID
// ../other/BACKUP` (a path, or a name of another session's backup) said
// "no backups of …" with no hint, or a hint that was no command. Both
// members — the session has no backups, or none of that name — end in a
// hint that is the command listing the names restore takes.
func TestRestoreOfANamedBackupThatIsNotThereSaysWhatToRun(t *testing.T) {
	cfg, path, bk := sessionWithABackup(t)
	other := installSession(t, cfg, "-tmp-q", "testdata/sessions/2.1.328/multi-turn.jsonl")
	for _, tc := range []struct {
		name, session string
	}{
		{"a session with backups", path},
		{"a session without any", other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hashTree(t, cfg)
			_, stderr, code := cliRun(t, "--config-dir", cfg, "restore", tc.session, filepath.Join("..", "other", filepath.Base(bk)))
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "ccsurgeon: no backup")
			assert.Contains(t, stderr, "\nccsurgeon: hint: ")
			assert.Contains(t, stderr, "backups "+tc.session+"'", "the hint names the command that lists the backups")
			assert.Empty(t, changes(before, hashTree(t, cfg)))
		})
	}
}

// TestADamagedManifestIsNotCalledAnInterruptedRun: a backup whose manifest
// cannot be read is no killed run's (a manifest is written whole, last):
// the warning about it was prefixed "an earlier run was interrupted:".
func TestADamagedManifestIsNotCalledAnInterruptedRun(t *testing.T) {
	cfg, path, bk := sessionWithABackup(t)
	require.NoError(t, os.WriteFile(filepath.Join(bk, "manifest.json"), []byte("edited\n"), 0o600))
	_, stderr, code := cliRun(t, "--config-dir", cfg, "backups", idOf(path))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "its manifest cannot be read")
	assert.NotContains(t, stderr, "interrupted")
	// a killed run's partial backup is still said to be one
	require.NoError(t, os.Remove(filepath.Join(bk, "manifest.json")))
	_, stderr, code = cliRun(t, "--config-dir", cfg, "backups", idOf(path))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "an earlier run was interrupted: removed the partial backup")
}

// TestLsJSONGivesTheBytesOfAPathThatIsNotUTF8: JSON turns a path's
// non-UTF-8 bytes into U+FFFD, and a script could not open the file by
// the path ls printed: path_bytes (base64) gives them, only then.
func TestLsJSONGivesTheBytesOfAPathThatIsNotUTF8(t *testing.T) {
	cfg := t.TempDir()
	folder := "-tmp-caf\xe9"
	p := installSession(t, cfg, folder, "testdata/sessions/2.1.328/tools.jsonl")
	installSession(t, cfg, "-tmp-plain", "testdata/sessions/2.1.328/multi-turn.jsonl")
	require.False(t, utf8.ValidString(p))
	out, stderr, code := cliRun(t, "--config-dir", cfg, "--json", "ls")
	require.Equal(t, 0, code, stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 2)
	for _, r := range rows {
		path := r["path"].(string)
		if strings.Contains(path, "plain") {
			assert.NotContains(t, r, "path_bytes", "only a path that is not UTF-8 has path_bytes")
			continue
		}
		assert.Contains(t, path, "\ufffd")
		b, err := base64.StdEncoding.DecodeString(r["path_bytes"].(string))
		require.NoError(t, err)
		assert.Equal(t, p, string(b))
		_, err = os.Stat(string(b))
		assert.NoError(t, err, "the file is opened by path_bytes")
	}
}
