package backup

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/require"
)

// Found in review (left noted a stop, then mended): ccsurgeon removed its
// own bookkeeping under <config-dir>/ccsurgeon by name, with a check for
// links made only when the work began. A ccsurgeon/ folder swapped for a
// link while a lock was held or a change ran led each removal where the
// link pointed: the lock file and the folders it leaves empty, a change's
// journal and its backup folder, a move's journal. Each member holds one
// removal site of that family: the folder is swapped just before the
// removal, and nothing where the link leads may go.
func TestOwnBookkeepingIsRemovedFromBelowTheConfigDirOnly(t *testing.T) {
	testlink.Need(t) // every member plants a link
	const key = "52fdfc07-2182-454f-963f-5f0f9a621d72"
	members := []struct {
		name string
		// prepare makes what the removal is of, in cfg; remove runs it
		// once ccsurgeon/ is a link
		prepare func(t *testing.T, cfg string) (remove func() error)
	}{
		{"session lock's file and folders (Unlock)", func(t *testing.T, cfg string) func() error {
			l, err := Lock(cfg, key, "test")
			require.NoError(t, err)
			return func() error { l.Unlock(); return nil }
		}},
		{"moves lock's file and folders (Unlock)", func(t *testing.T, cfg string) func() error {
			l, err := LockMoves(cfg)
			require.NoError(t, err)
			return func() error { l.Unlock(); return nil }
		}},
		{"a change's journal, its backup kept (finishJournal)", func(t *testing.T, cfg string) func() error {
			bdir := makeOwn(t, cfg, "backups", key, "20261128T000000Z", journalName)
			return func() error { return finishJournal(cfg, bdir, true) }
		}},
		{"a change's backup folder, none to keep (finishJournal)", func(t *testing.T, cfg string) func() error {
			bdir := makeOwn(t, cfg, "backups", key, "20261128T000000Z", journalName)
			return func() error { return finishJournal(cfg, bdir, false) }
		}},
		{"a move's journal, rolled back (journal.rollBack)", func(t *testing.T, cfg string) func() error {
			dir := makeOwn(t, cfg, "journal", "20261128T000000Z-x.json")
			j := &journal{root: cfg, path: filepath.Join(dir, "20261128T000000Z-x.json")}
			return func() error { return j.rollBack() }
		}},
		{"a move's journal, finished (journal.finish)", func(t *testing.T, cfg string) func() error {
			dir := makeOwn(t, cfg, "journal", "20261128T000000Z-x.json")
			j := &journal{root: cfg, path: filepath.Join(dir, "20261128T000000Z-x.json")}
			return func() error { _, err := j.finish(); return err }
		}},
	}
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) {
			cfg := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(cfg, "projects"), 0o700))
			remove := m.prepare(t, cfg)
			// ccsurgeon/ moved out of the config dir, a link left in its
			// place: what it holds now lies outside
			outside := filepath.Join(t.TempDir(), "elsewhere")
			require.NoError(t, os.Rename(filepath.Join(cfg, "ccsurgeon"), outside))
			require.NoError(t, os.Symlink(outside, filepath.Join(cfg, "ccsurgeon")))
			before := listTree(t, outside)
			require.NotEmpty(t, before)
			_ = remove() // refused or not: what counts is what is left
			require.Equal(t, before, listTree(t, outside), "removed where the link leads")
		})
	}
}

// makeOwn makes the file <cfg>/ccsurgeon/<parts...> (and its folders) and
// returns its folder.
func makeOwn(t *testing.T, cfg string, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{cfg, "ccsurgeon"}, parts...)...)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o600))
	return filepath.Dir(p)
}

// listTree is every path below root (folders marked with a slash).
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	}))
	sort.Strings(out)
	return out
}
