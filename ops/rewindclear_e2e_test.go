package ops_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/stretchr/testify/require"
)

// TestRewindToBeforeClear: in the newest client's TUI, two turns, /clear
// (the client goes on in a new session file that starts with the /clear
// records), a turn, then /rewind to the point before /clear and a new
// turn: the new session's file holds two branches that part at the
// /clear records, before any turn. The file is in testdata
// (harness.TUIShapes "rewind-before-clear", made by cmd/gentestdata); every
// operation on it is held to its specification in process
// (TestSpecEveryOperationEverySession), and here with both real
// clients clone and fork-at-turn 1 of the branch the client resumes, and
// clone --branch of the abandoned one (what the client sends for it is
// chain's rebuild of that branch).
func TestRewindToBeforeClear(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := env.InstallSession(t, interactiveShape(t, "rewind-before-clear.jsonl"))
	abandoned := -1
	f, err := chain.LoadFile(env.SessionPath(id))
	require.NoError(t, err)
	require.Len(t, f.Graph().Branches(), 2)
	for k, l := range f.Graph().Branches() {
		if l != f.Graph().ActiveLeaf() {
			abandoned = k + 1
		}
	}
	require.Len(t, f.ActiveTurns().List, 1)
	f.Close()
	path := env.SessionPath(id)

	f, err = chain.LoadFile(path)
	require.NoError(t, err)
	other, err := spec.Sent(f, f.Graph().Branches()[abandoned-1])
	require.NoError(t, err)
	f.Close()
	for _, c := range harness.Clients(t) {
		orig := env.MustResume(t, c, id)
		sent := spec.FromAPI(orig.Messages)
		if !c.IsOld() {
			// (TestShapesResumeWithSpec checked it before it left this shape out)
			require.Equal(t, sentKey(orig), activeConversation(t, path).Key(), "chain's rebuild of the session is what %s sends", c)
		}
		fx := &fixture{env: env, id: id}
		clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Clone(sent).Key(), sentKey(resultResume(t, env, c, id, clone.SessionID, orig)), "clone: what %s sends", c)
		fork := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, 1, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Fork(sent, 1).Key(), sentKey(resultResume(t, env, c, id, fork.SessionID, orig)), "fork-at-turn 1: what %s sends", c)
		br := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{Branch: abandoned}, app.Dest{}) })
		require.Equal(t, other.Key(), sentKey(env.MustResume(t, c, br.SessionID)), "clone --branch %d: what %s sends", abandoned, c)
	}
}
