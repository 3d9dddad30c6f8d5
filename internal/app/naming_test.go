package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withHostOS applies goos's naming rules for the rest of the test.
func withHostOS(t *testing.T, goos string) {
	old := chain.HostOS
	chain.HostOS = goos
	t.Cleanup(func() { chain.HostOS = old })
}

// A project renamed only by case (mv proj Proj on a Mac): where the file
// system folds case (APFS, NTFS) the old and the new folder name are one
// folder, so the move rewrites the sessions' cwd in place and never links
// files "into" the folder they are in and then removes them; on Linux the
// new name is another folder and the sessions move there.
func TestMoveCaseOnlyRename(t *testing.T) {
	for _, goos := range []string{"darwin", "windows", "linux"} {
		t.Run(goos, func(t *testing.T) {
			withHostOS(t, goos)
			e := newMoveEnv(t, "subagent", "proj")
			newPath := filepath.Join(e.root, "Proj")
			_, _, err := e.run(MoveOptions{Project: e.old, To: newPath})
			require.NoError(t, err)
			oldDir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
			newDir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath))
			main := filepath.Join(newDir, e.id+".jsonl")
			if chain.FoldsCase(goos) {
				main = filepath.Join(oldDir, e.id+".jsonl")
				assert.NoDirExists(t, newDir, "no second folder that differs only by case")
			} else {
				assert.NoDirExists(t, oldDir)
			}
			b, err := os.ReadFile(main)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"cwd":"`+newPath+`"`)
			assert.NotContains(t, string(b), `"cwd":"`+e.old+`"`)
		})
	}
}

// Where the file system folds case, 'ls --project' and the session of the
// current folder find a project folder written with another case.
func TestProjectFoundWithAnotherCase(t *testing.T) {
	withHostOS(t, "darwin")
	e := newMoveEnv(t, "subagent", "proj")
	var rows []SessionSummary
	a := &Env{ConfigDir: e.cfg}
	paths, err := chain.ListSessions(e.cfg)
	require.NoError(t, err)
	rows, err = a.projectRows(paths, LsOptions{Project: filepath.Join(e.root, "PROJ")})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, e.id, rows[0].ID)
	assert.Equal(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old)), chain.ProjectDirOf(e.cfg, filepath.Join(e.root, "PROJ")))
}

// The session of the current folder is looked up by the folder's real
// path, as the client names it (realpath of its cwd): entered through a
// symlink (on macOS, every folder under /tmp and /var), the shell's $PWD
// still names the link.
func TestCurrentFolderFoundThroughASymlink(t *testing.T) {
	testlink.Need(t)
	e := newMoveEnv(t, "subagent", "proj")
	require.NoError(t, os.MkdirAll(e.old, 0o755))
	link := filepath.Join(e.root, "link")
	require.NoError(t, os.Symlink(e.old, link))
	t.Chdir(e.old)
	t.Setenv("PWD", link) // what os.Getwd returns, as a shell that cd'd through the link
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, link, wd)
	a := &Env{ConfigDir: e.cfg}
	p, err := a.ContinueSession()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id+".jsonl"), p)
}

// A move --to a path reached through a symlink puts the sessions where
// the client will look once it is started there: in the folder of the
// real path (the client takes realpath of its cwd).
func TestMoveToASymlinkedPathUsesItsRealPath(t *testing.T) {
	testlink.Need(t)
	e := newMoveEnv(t, "subagent", "proj")
	real := filepath.Join(e.root, "real-new")
	require.NoError(t, os.MkdirAll(real, 0o755))
	link := filepath.Join(e.root, "link-new")
	require.NoError(t, os.Symlink(real, link))
	_, _, err := e.run(MoveOptions{Project: e.old, To: link})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(e.cfg, "projects", chain.ProjectSlug(real), e.id+".jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cwd":"`+real+`"`)
	assert.NoDirExists(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(link)))
}

// A path is under a folder by the OS's separator, and without regard to
// case where the file system folds it.
func TestUnderFoldsCaseWhereTheOSDoes(t *testing.T) {
	withHostOS(t, "darwin")
	assert.True(t, under("/Users/me/Proj/sub", "/Users/me/proj"))
	withHostOS(t, "linux")
	assert.False(t, under("/Users/me/Proj/sub", "/Users/me/proj"))
	assert.True(t, under("/a/b/c", "/a/b"))
	assert.False(t, under("/a/bc", "/a/b"))
}
