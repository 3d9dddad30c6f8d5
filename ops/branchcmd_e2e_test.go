package ops_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

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
	tui, err := env.StartTUI(harness.Latest(t), 200, 50, "--dangerously-skip-permissions")
	require.NoError(t, err)
	defer tui.Close()
	tui.CaptureDir = t.TempDir()
	require.NoError(t, tui.WaitIdle("startup"))
	require.NoError(t, tui.Turn("First question.", "First answer.", harness.Text("First answer.")))
	require.NoError(t, tui.Turn("Second question.", "Second answer.", harness.Text("Second answer.")))
	require.NoError(t, tui.Submit("/branch"))
	time.Sleep(2 * time.Second)
	require.NoError(t, tui.WaitIdle("after /branch"))
	require.NoError(t, tui.Turn("Third question.", "Third answer.", harness.Text("Third answer.")))
	require.NoError(t, tui.Exit())
	tui.Close()
	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 2, "the original and the branch")
	id := ""
	for _, s := range ids {
		data, err := os.ReadFile(env.SessionPath(s))
		require.NoError(t, err)
		if bytes.HasPrefix(data, []byte(`{"parentUuid":null`)) && bytes.Contains(data, []byte(`"forkedFrom":{"sessionId":"`)) {
			id = s
		}
	}
	require.NotEmpty(t, id, "a session file that starts with the copied conversation, with forkedFrom")
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
