package cli

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnIDNeverWritesOutsideTheConfigDir: a session named by its id (or an
// id prefix) is found by listing the config dir, as with --all: when its
// file turns out to lie outside the config dir (the config dir's projects/
// is a link to another folder), no in-place change and no restore writes
// there; the user who means that file names it by its path. --all refused
// it already, while the same session by id was rewritten outside.
func TestAnIDNeverWritesOutsideTheConfigDir(t *testing.T) {
	testlink.Need(t)
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	outside := filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(cfg, 0o700))
	require.NoError(t, os.MkdirAll(outside, 0o700))
	src := filepath.Join(outside, "src")
	require.NoError(t, os.MkdirAll(src, 0o700))
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	id := sessionID(t, b)
	require.NoError(t, os.WriteFile(filepath.Join(src, "s.jsonl"), b, 0o600))
	path := installSession(t, outside, "-p", filepath.Join(src, "s.jsonl")) // outside/projects/-p/<id>.jsonl
	require.NoError(t, os.Symlink(filepath.Join(outside, "projects"), filepath.Join(cfg, "projects")))
	hash := func() [32]byte {
		c, err := os.ReadFile(path)
		require.NoError(t, err)
		return sha256.Sum256(c)
	}
	old := time.Now().Add(-time.Hour)

	// a backup of it, taken by its path (named: allowed), for restore
	_, stderr, code := cliRun(t, "--config-dir", cfg, "compress", path, "--keep-turns", "1")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.Chtimes(path, old, old))

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"compress by id", []string{"compress", id, "--keep-turns", "0", "--max-result", "1KB"}},
		{"compress by prefix", []string{"compress", id[:8], "--keep-turns", "0", "--max-result", "1KB"}},
		{"rewrite by id", []string{"rewrite", id, "--compress-old-turns", "0", "--max-result", "1KB"}},
		{"restore by id", []string{"restore", id}},
		{"compress --all", []string{"compress", "--all", "--keep-turns", "0", "--max-result", "1KB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hash()
			stdout, stderr, code := cliRun(t, append([]string{"--config-dir", cfg}, tc.args...)...)
			assert.Equal(t, before, hash(), "the file outside the config dir was changed:\n%s%s", stdout, stderr)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "outside the config dir")
			assert.Contains(t, stderr, "hint: ")
		})
	}
	t.Run("by its path", func(t *testing.T) {
		before := hash()
		_, stderr, code := cliRun(t, "--config-dir", cfg, "compress", path, "--keep-turns", "0", "--max-result", "1KB")
		require.Equal(t, 0, code, stderr)
		assert.NotEqual(t, before, hash(), "named by its path, the file is the user's to change")
		assert.False(t, strings.Contains(stderr, "outside the config dir"))
	})
}
