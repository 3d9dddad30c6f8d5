package ops_test

import (
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestCdSession: /cd in the newest client's TUI moves the session to
// another working directory: its file goes to that project's folder, the
// entries after it carry the new cwd, and a "relocated" entry names it.
// Made at test time (a turn, /cd, a turn); every operation on it is held
// to its specification in process, and with both real clients, run in
// the new directory, clone and fork at every turn: each result lies in
// the folder the session lives in now and sends the specification's
// messages.
func TestCdSession(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	tuiShape(t, env, "cd") // env.Cwd is the new folder after it
	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 1, "the session's file is in the new directory's project folder")
	id, path := ids[0], env.SessionPath(ids[0])

	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	checkSpecCases(t, path, "cd", sc)

	for _, c := range harness.Clients(t) {
		sent := spec.FromAPI(env.MustResume(t, c, id).Messages)
		fx := &fixture{env: env, id: id}
		clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, filepath.Dir(path), filepath.Dir(clone.Path), "the clone lies beside the session")
		require.Equal(t, spec.Clone(sent).Key(), sentKey(env.MustResume(t, c, clone.SessionID)), "clone: what %s sends", c)
		for n := 1; n <= 2; n++ {
			fork := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
			require.Equal(t, filepath.Dir(path), filepath.Dir(fork.Path), "the fork lies beside the session")
			require.Equal(t, spec.Fork(sent, n).Key(), sentKey(env.MustResume(t, c, fork.SessionID)), "fork-at-turn %d: what %s sends", n, c)
		}
	}
}
