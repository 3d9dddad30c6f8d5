package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveOntoItselfSaysSo: on a file system that does not tell names
// apart by case (macOS's and Windows' by default), `move ID --to
// /work/Proj` of a session of /work/proj finds its own file under the new
// folder's name (-work-Proj is -work-proj). move refused, rightly, but said
// "already exists: move or remove it first": removing "it" removes the
// session. The destination that is the session's own file (a hard link
// stands in for the second name here) is named as such, with no hint to
// remove anything, and nothing changes.
func TestMoveOntoItselfSaysSo(t *testing.T) {
	cfg := t.TempDir()
	path, b := installSessionOf(t, cfg, "-work-proj", "/work/proj")
	alias := filepath.Join(cfg, "projects", "-work-Proj")
	require.NoError(t, os.MkdirAll(alias, 0o700))
	if err := os.Link(path, filepath.Join(alias, filepath.Base(path))); err != nil {
		t.Skipf("not run: this file system makes no hard links (%v)", err)
	}
	_, errs, code := cliRun(t, "--config-dir", cfg, "move", path, "--to", "/work/Proj")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errs, "is the session's own file")
	assert.NotContains(t, errs, "remove", "a hint to remove the destination removes the session")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(b, after), "the session changed")
}
