package ops_test

import (
	"fmt"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestBranchCommandSession: /branch in the newest client's TUI (after two
// turns) starts a new session file that copies the conversation, every
// entry keeping its uuid and carrying forkedFrom (the session and entry it
// came from), and goes on in it (a third turn). Made at test time; every
// operation on the branch's file is held to its specification in process,
// and clone and fork-at-turn (every turn) with both real clients.
func TestBranchCommandSession(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := tuiShape(t, env, "branch") // the file that starts with forkedFrom
	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 2, "the original and the branch")
	path := env.SessionPath(id)

	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	checkSpecCases(t, path, "branch", sc)

	for _, c := range harness.Clients(t) {
		sent := spec.FromAPI(env.MustResume(t, c, id).Messages)
		require.Len(t, spec.Fork(sent, 3), len(sent), "the branch holds 3 turns")
		clone := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Clone(sent).Key(), sentKey(env.MustResume(t, c, clone.SessionID)), "clone: what %s sends", c)
		for n := 1; n <= 3; n++ {
			fork := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
			require.Equal(t, spec.Fork(sent, n).Key(), sentKey(env.MustResume(t, c, fork.SessionID)), fmt.Sprintf("fork-at-turn %d: what %s sends", n, c))
		}
	}
}
