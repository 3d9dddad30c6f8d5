package cli

import (
	"strings"

	"bytes"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
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
		if os.Getenv("CI") != "" {
			t.Fatalf("CI's file system makes hard links (every platform's does): %v", err)
		}
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

// TestMoveThroughALinkedConfigDir: a config dir that is a symbolic link
// (~/.claude linked into a dotfiles repository) is one config dir, however
// the session is named: by its id, by its path through the link, or by
// its real path. move took the real path for a file outside the config
// dir ("backup: … is not inside the config dir", with no hint), and a
// move to a path of the same slug (/work/proj to /work.proj: the same
// folder, only the cwd rewritten) found the session's own file at the
// destination. The member that broke is named; nothing else changes.
func TestMoveThroughALinkedConfigDir(t *testing.T) {
	for _, named := range []string{"id", "path through the link", "real path"} {
		for _, to := range []string{"/work/other", "/work.proj"} {
			t.Run(named+" to "+to, func(t *testing.T) {
				_, real, link := linkedConfigDir(t)
				path, _ := installSessionOf(t, real, "-work-proj", "/work/proj")
				id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
				arg := map[string]string{"id": id,
					"path through the link": filepath.Join(link, "projects", "-work-proj", id+".jsonl"),
					"real path":             path}[named]
				_, errs, code := cliRun(t, "--config-dir", link, "move", arg, "--to", to)
				require.Equal(t, 0, code, "a session named by its %s, moved to %s: %s", named, to, errs)
				moved, err := os.ReadFile(filepath.Join(real, "projects", chain.ProjectSlug(to), id+".jsonl"))
				require.NoError(t, err, "a session named by its %s, moved to %s", named, to)
				assert.Contains(t, string(moved), `"cwd":"`+to+`"`)
				assert.NotContains(t, string(moved), `"cwd":"/work/proj"`)
			})
		}
	}
}

// linkedConfigDir makes a config dir kept with the dotfiles (real) and the
// link the user names it by (link, ~/.claude), under root; the test is
// counted as not run where links cannot be made (testlink.Need).
func linkedConfigDir(t *testing.T) (root, real, link string) {
	t.Helper()
	root = t.TempDir()
	real = filepath.Join(root, "dotfiles", "claude")
	require.NoError(t, os.MkdirAll(real, 0o700))
	link = filepath.Join(root, "claude-link")
	testlink.Need(t)
	require.NoError(t, os.Symlink(real, link))
	return root, real, link
}
