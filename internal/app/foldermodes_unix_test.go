//go:build unix

package app

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFoldersMadeTakeTheModeOfWhatTheyStandFor: every folder a command
// makes stands for one that is there — a move's new folders for the old
// place's (the project folder, <id>/, subagents/, tool-results/, an empty
// folder of the project), a new session's (clone, fork, --new) for its
// original's (<id>/, subagents/, tool-results/, file-history/<id>/) — and
// gets that folder's mode, not 0700 for all: a project folder the user
// keeps 0751 stays so after a move. ccsurgeon's own folders
// (<config-dir>/ccsurgeon/: backups, the move journal) stay 0700 (they
// hold copies of sessions). A member per command; the failure names the
// folder and both modes. Run as root, the folders stood for are another
// user's, and the new ones must be that user's too.
func TestFoldersMadeTakeTheModeOfWhatTheyStandFor(t *testing.T) {
	// distinct modes, none 0700 nor what a umask leaves of 0777
	modes := map[string]os.FileMode{"": 0o751, "<id>": 0o750, "<id>/subagents": 0o710, "<id>/tool-results": 0o755, "memory": 0o745, "memory/empty": 0o711}
	fileHistoryMode := os.FileMode(0o705)
	const otherID = 4321 // as root, the owner of the folders stood for
	rel := func(id, r string) string {
		if len(r) >= 4 && r[:4] == "<id>" {
			return id + r[4:]
		}
		return r
	}
	setup := func(t *testing.T) (moveEnv, string) {
		e := newMoveEnv(t, "subagent", "old")
		dir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
		put := func(rel, body string) {
			p := filepath.Join(dir, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
			old := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(p, old, old))
		}
		put(filepath.Join(e.id, "tool-results", "b0000001.txt"), "a tool's output\n")
		put(filepath.Join("memory", "MEMORY.md"), "remember\n")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "memory", "empty"), 0o700))
		fh := filepath.Join(e.cfg, "file-history", e.id)
		require.NoError(t, os.MkdirAll(fh, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(fh, "abc@v1"), []byte("a file's old text\n"), 0o600))
		require.NoError(t, os.Chmod(fh, fileHistoryMode))
		for k, m := range modes {
			require.NoError(t, os.Chmod(filepath.Join(dir, rel(e.id, k)), m))
			if os.Geteuid() == 0 { // as root: another user's folders
				require.NoError(t, os.Chown(filepath.Join(dir, rel(e.id, k)), otherID, otherID))
			}
		}
		return e, dir
	}
	check := func(t *testing.T, what, dir, id string, keys ...string) {
		t.Helper()
		for _, k := range keys {
			p := filepath.Join(dir, rel(id, k))
			fi, err := os.Lstat(p)
			if !assert.NoError(t, err, "%s made no %s", what, p) {
				continue
			}
			assert.Equal(t, modes[k].String(), fi.Mode().Perm().String(), "%s made %s with mode %v; the folder it stands for is %v", what, p, fi.Mode().Perm(), modes[k])
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
				assert.Equal(t, [2]uint32{otherID, otherID}, [2]uint32{st.Uid, st.Gid}, "%s made %s as root's; the folder it stands for is user %d's", what, p, otherID)
			}
		}
	}
	checkOwn := func(t *testing.T, cfg string) {
		t.Helper()
		own := filepath.Join(cfg, "ccsurgeon")
		require.NoError(t, filepath.WalkDir(own, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				fi, _ := os.Lstat(p)
				assert.Equal(t, os.FileMode(0o700).String(), fi.Mode().Perm().String(), "ccsurgeon's own folder %s", p)
			}
			return err
		}))
	}
	t.Run("move SESSION --to", func(t *testing.T) {
		e, _ := setup(t)
		newPath := filepath.Join(e.root, "new")
		_, _, err := e.run(MoveOptions{Session: e.id, To: newPath})
		require.NoError(t, err)
		check(t, "move SESSION", filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath)), e.id, "", "<id>", "<id>/subagents", "<id>/tool-results")
		checkOwn(t, e.cfg)
	})
	t.Run("move --project", func(t *testing.T) {
		e, _ := setup(t)
		newPath := filepath.Join(e.root, "new")
		_, _, err := e.run(MoveOptions{Project: e.old, To: newPath})
		require.NoError(t, err)
		check(t, "move --project", filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath)), e.id, "", "<id>", "<id>/subagents", "<id>/tool-results", "memory", "memory/empty")
		checkOwn(t, e.cfg)
	})
	t.Run("restore: a folder removed since", func(t *testing.T) {
		// a folder a restore makes again stands for one whose mode no
		// backup keeps: it gets its parent's (<id>/'s), as a new one
		e, dir := setup(t)
		env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
		require.NoError(t, env.RunOps(e.id, OpSpec{Drop: true, DropTools: []string{"Agent", "Task"}}, Dest{Force: true}))
		sub := filepath.Join(dir, e.id, "subagents")
		require.NoError(t, os.RemoveAll(sub)) // the user's clean-up
		require.NoError(t, env.RunRestore(e.id, "", true))
		fi, err := os.Lstat(sub)
		require.NoError(t, err, "the restore did not make %s again", sub)
		assert.Equal(t, modes["<id>"].String(), fi.Mode().Perm().String(), "restore made %s with mode %v; its parent's is %v", sub, fi.Mode().Perm(), modes["<id>"])
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			assert.Equal(t, [2]uint32{otherID, otherID}, [2]uint32{st.Uid, st.Gid}, "restore made %s as root's; its parent is user %d's", sub, otherID)
		}
	})
	t.Run("redact-secrets -o DIR/", func(t *testing.T) {
		e, _ := setup(t)
		env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
		out := filepath.Join(e.root, "share")
		require.NoError(t, env.RunOps(e.id, OpSpec{Redact: true}, Dest{Output: out + string(filepath.Separator)}))
		check(t, "redact-secrets -o DIR/", out, e.id, "<id>", "<id>/subagents", "<id>/tool-results")
	})
	for _, cmd := range []string{"clone", "clone (its full path)", "fork-at-turn"} {
		t.Run(cmd, func(t *testing.T) {
			e, dir := setup(t)
			env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
			var err error
			switch cmd {
			case "clone":
				err = env.RunClone(e.id, BranchOptions{}, Dest{})
			case "fork-at-turn":
				err = env.RunFork(e.id, 1, BranchOptions{}, Dest{})
			default:
				err = env.RunCloneFull(e.id, BranchOptions{}, Dest{})
			}
			require.NoError(t, err)
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			newID := ""
			for _, d := range ents {
				if d.IsDir() && chain.IsUUID(d.Name()) && d.Name() != e.id {
					newID = d.Name()
				}
			}
			require.NotEmpty(t, newID, "%s made no new session folder in %s", cmd, dir)
			check(t, cmd, dir, newID, "<id>", "<id>/subagents", "<id>/tool-results")
			fi, err := os.Lstat(filepath.Join(e.cfg, "file-history", newID))
			require.NoError(t, err, "%s copied no file-history", cmd)
			assert.Equal(t, fileHistoryMode.String(), fi.Mode().Perm().String(), "%s made file-history/%s; the original's is %v", cmd, newID, fileHistoryMode)
		})
	}
}
