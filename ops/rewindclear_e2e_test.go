package ops_test

import (
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestRewindToBeforeClear: in the newest client's TUI, two turns, /clear
// (the client goes on in a new session file that starts with the /clear
// records), a turn, then /rewind to the point before /clear and a new
// turn: the new session's file holds two branches that part at the
// /clear records, before any turn. Made at test time; every operation on
// it is held to its specification in process, and with both real
// clients clone and fork-at-turn 1 of the branch the client resumes, and
// clone --branch of the abandoned one (what the client sends for it is
// chain's rebuild of that branch).
func TestRewindToBeforeClear(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	tui, err := env.StartTUI(harness.Latest(t), 200, 50, "--dangerously-skip-permissions")
	require.NoError(t, err)
	defer tui.Close()
	tui.CaptureDir = t.TempDir()
	require.NoError(t, tui.WaitIdle("startup"))
	require.NoError(t, tui.Turn("First question.", "First answer.", harness.Text("First answer.")))
	require.NoError(t, tui.Turn("Second question.", "Second answer.", harness.Text("Second answer.")))
	require.NoError(t, tui.Submit("/clear"))
	time.Sleep(2 * time.Second)
	require.NoError(t, tui.WaitIdle("after /clear"))
	require.NoError(t, tui.Turn("Third question.", "Third answer.", harness.Text("Third answer.")))
	require.NoError(t, tui.Type("/rewind"))
	_, err = tui.WaitText(harness.TUIStep, "Restore")
	require.NoError(t, err)
	require.NoError(t, tui.Keys("Enter"))
	_, err = tui.WaitText(harness.TUIStep, "(current)")
	require.NoError(t, err)
	require.NoError(t, tui.Select("Up", "/clear"))
	require.NoError(t, tui.Keys("Enter"))
	_, err = tui.WaitText(harness.TUIStep, "Restore conversation")
	require.NoError(t, err)
	require.NoError(t, tui.Select("Down", "Restore conversation"))
	require.NoError(t, tui.Keys("Enter"))
	require.NoError(t, tui.WaitIdle("after /rewind"))
	require.NoError(t, tui.Keys("C-u"))
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, tui.Turn("Another question.", "Another answer.", harness.Text("Another answer.")))
	require.NoError(t, tui.Exit())
	tui.Close()

	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 2, "the session before /clear and the one after it")
	id, abandoned := "", -1
	for _, s := range ids {
		f, err := chain.LoadFile(env.SessionPath(s))
		require.NoError(t, err)
		if b := f.Graph().Branches(); len(b) == 2 {
			id = s
			for k, l := range b {
				if l != f.Graph().ActiveLeaf() {
					abandoned = k + 1
				}
			}
			require.Len(t, f.ActiveTurns().List, 1)
		}
		f.Close()
	}
	require.NotEmpty(t, id, "the session after /clear has two branches")
	path := env.SessionPath(id)

	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	checkSpecCases(t, path, "rewind-before-clear", sc)

	f, err := chain.LoadFile(path)
	require.NoError(t, err)
	other, err := spec.Sent(f, f.Graph().Branches()[abandoned-1])
	require.NoError(t, err)
	f.Close()
	for _, c := range harness.Clients(t) {
		sent := spec.FromAPI(env.MustResume(t, c, id).Messages)
		fx := &fixture{env: env, id: id}
		clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Clone(sent).Key(), sentKey(env.MustResume(t, c, clone.SessionID)), "clone: what %s sends", c)
		fork := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, 1, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Fork(sent, 1).Key(), sentKey(env.MustResume(t, c, fork.SessionID)), "fork-at-turn 1: what %s sends", c)
		br := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{Branch: abandoned}, app.Dest{}) })
		require.Equal(t, other.Key(), sentKey(env.MustResume(t, c, br.SessionID)), "clone --branch %d: what %s sends", abandoned, c)
	}
}
