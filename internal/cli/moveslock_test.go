package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/require"
)

// Found in review: every move (and every undo of one) first finishes or
// rolls back the journals it finds, taking each for a killed run's; one
// of a move still running in another process was rolled back under it.
// While another process moves (the moves lock held here, as that process
// holds it), a move and the undo of a move are refused, say who runs, and
// leave the journal folder and the sessions as they are; once it is done
// both run.
func TestAMoveLeavesARunningMovesJournalAlone(t *testing.T) {
	cfg := t.TempDir()
	const from = "/tmp/ccsurgeon-gen/2.1.328/multi-turn/work/project" // the session's cwd
	p, _ := installSessionOf(t, cfg, chain.ProjectSlug(from), from)
	backdate(t, cfg)
	to := filepath.Join(t.TempDir(), "new")
	moved := filepath.Join(cfg, "projects", chain.ProjectSlug(to), idOf(p)+".jsonl")

	// a journal of the running move (what it holds does not matter: it
	// must not be read)
	jdir := backup.JournalDir(cfg)
	require.NoError(t, os.MkdirAll(jdir, 0o700))
	journal := filepath.Join(jdir, "20261128T000000-running.json")
	require.NoError(t, os.WriteFile(journal, []byte(`{"version":1,"state":"prepared","files":[]}`), 0o600))

	held, err := backup.LockMoves(cfg)
	require.NoError(t, err)
	projects := treeOf(t, filepath.Join(cfg, "projects"))
	jour := treeOf(t, jdir)
	r := runCLI(t, "--config-dir", cfg, "move", p, "--to", to)
	require.NotEqual(t, 0, r.code, "a move while another runs is refused")
	require.Contains(t, r.stderr, "another move is running")
	require.Contains(t, r.stderr, "hint: wait for it to finish and retry")
	require.Equal(t, projects, treeOf(t, filepath.Join(cfg, "projects")), "no session changed")
	require.Equal(t, jour, treeOf(t, jdir), "the running move's journal left as it is")

	// the move done, the journal gone: the move runs, then its undo is
	// refused while another move runs, and runs after
	held.Unlock()
	require.NoError(t, os.Remove(journal))
	r = runCLI(t, "--config-dir", cfg, "move", p, "--to", to)
	require.Equal(t, 0, r.code, r.stderr)
	_, err = os.Stat(moved)
	require.NoError(t, err)

	backdate(t, cfg)
	held, err = backup.LockMoves(cfg)
	require.NoError(t, err)
	projects = treeOf(t, filepath.Join(cfg, "projects"))
	r = runCLI(t, "--config-dir", cfg, "restore", moved)
	require.NotEqual(t, 0, r.code, "the undo of a move while another runs is refused")
	require.Contains(t, r.stderr, "another move is running")
	require.Equal(t, projects, treeOf(t, filepath.Join(cfg, "projects")), "no session changed")
	held.Unlock()
	r = runCLI(t, "--config-dir", cfg, "restore", moved)
	require.Equal(t, 0, r.code, r.stderr)
	_, err = os.Stat(p)
	require.NoError(t, err, "the session is back")
}

// The moves lock is taken below the config dir only: a link in place of
// ccsurgeon/journal (or of ccsurgeon/) is refused before anything is made
// or locked where it leads, with the hint of the backups' links.
func TestTheMovesLockFollowsNoLink(t *testing.T) {
	testlink.Need(t) // every member plants a link
	for _, linked := range []string{"ccsurgeon", filepath.Join("ccsurgeon", "journal")} {
		t.Run(linked, func(t *testing.T) {
			cfg := t.TempDir()
			const from = "/tmp/ccsurgeon-gen/2.1.328/multi-turn/work/project"
			p, _ := installSessionOf(t, cfg, chain.ProjectSlug(from), from)
			backdate(t, cfg)
			outside := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(cfg, linked)), 0o700))
			require.NoError(t, os.Symlink(outside, filepath.Join(cfg, linked)))
			projects := treeOf(t, filepath.Join(cfg, "projects"))
			r := runCLI(t, "--config-dir", cfg, "move", p, "--to", filepath.Join(t.TempDir(), "new"))
			require.NotEqual(t, 0, r.code)
			require.Contains(t, r.stderr, "symlink")
			require.Contains(t, r.stderr, "hint: make it a folder again")
			entries, err := os.ReadDir(outside)
			require.NoError(t, err)
			require.Empty(t, entries, "nothing made where the link leads")
			require.Equal(t, projects, treeOf(t, filepath.Join(cfg, "projects")), "no session changed")
		})
	}
}
