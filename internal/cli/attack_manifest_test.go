package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABackupWithADamagedManifestIsKept: a backup whose manifest.json is
// there but cannot be read (cut short, edited by hand, a link, a folder)
// is no backup of a killed run (ccsurgeon writes a manifest whole, by a
// rename, last): the next command leaves it, and the session's copy in
// it, as they are, where it removed them as partial, the original among
// them. A backup without a manifest (killed while it was taken) is still
// removed.
func TestABackupWithADamagedManifestIsKept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, manifest string)
	}{
		{"cut short", func(t *testing.T, m string) {
			b, err := os.ReadFile(m)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(m, b[:len(b)/2], 0o600))
		}},
		{"not json", func(t *testing.T, m string) { require.NoError(t, os.WriteFile(m, []byte("edited\n"), 0o600)) }},
		{"a link", func(t *testing.T, m string) {
			testlink.Need(t)
			require.NoError(t, os.Rename(m, m+".moved"))
			require.NoError(t, os.Symlink(m+".moved", m))
		}},
		{"a folder", func(t *testing.T, m string) {
			require.NoError(t, os.Remove(m))
			require.NoError(t, os.Mkdir(m, 0o700))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, path, bk := sessionWithABackup(t)
			id := idOf(path)
			copyPath := filepath.Join(bk, id+".jsonl")
			orig, err := os.ReadFile(copyPath)
			require.NoError(t, err)
			tc.damage(t, filepath.Join(bk, "manifest.json"))
			for _, args := range [][]string{{"backups", id}, {"compress", id, "--keep-turns", "0"}, {"restore", id}} {
				_, stderr, _ := cliRun(t, append([]string{"--config-dir", cfg}, args...)...)
				got, err := os.ReadFile(copyPath)
				require.NoError(t, err, "%v removed the backup with its damaged manifest: %s", args, stderr)
				assert.Equal(t, orig, got)
			}
		})
	}
	t.Run("no manifest: a killed run's", func(t *testing.T) {
		cfg, path, bk := sessionWithABackup(t)
		require.NoError(t, os.Remove(filepath.Join(bk, "manifest.json")))
		_, stderr, code := cliRun(t, "--config-dir", cfg, "backups", idOf(path))
		require.Equal(t, 0, code, stderr)
		assert.NoDirExists(t, bk)
	})
}

// sessionWithABackup installs the example session in a new config dir and
// changes it once in place (compress --keep-turns 1): its one backup is
// bk, a folder of <config-dir>/ccsurgeon/backups/<id>/.
func sessionWithABackup(t *testing.T) (cfg, path, bk string) {
	t.Helper()
	cfg = t.TempDir()
	path, _ = installSessionOf(t, cfg, "-tmp-p", "/tmp/p")
	id := idOf(path)
	_, stderr, code := cliRun(t, "--config-dir", cfg, "compress", id, "--keep-turns", "1")
	require.Equal(t, 0, code, stderr)
	bks, err := filepath.Glob(filepath.Join(cfg, "ccsurgeon", "backups", id, "*"))
	require.NoError(t, err)
	require.Len(t, bks, 1)
	return cfg, path, bks[0]
}
