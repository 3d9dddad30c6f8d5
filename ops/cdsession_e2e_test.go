package ops_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/stretchr/testify/require"
)

// TestCdSession: /cd in the newest client's TUI moves the session to
// another working directory: its file goes to that project's folder, the
// entries after it carry the new cwd, and a "relocated" entry names it.
// The file is in testdata (harness.TUIShapes "cd": a turn, /cd, a turn;
// made by cmd/gentestdata); every operation on it is held to its
// specification in process (TestSpecEveryOperationEverySession), and here
// with both real clients clone and fork at every turn: each result lies
// beside the session and sends the specification's messages.
func TestCdSession(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := env.InstallSession(t, interactiveShape(t, "cd.jsonl"))
	path := env.SessionPath(id)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"type":"relocated"`, "the /cd made a relocated entry")

	for _, c := range harness.Clients(t) {
		orig := env.MustResume(t, c, id)
		sent := spec.FromAPI(orig.Messages)
		if !c.IsOld() {
			// (TestShapesResumeWithSpec checked it before it left this shape out)
			require.Equal(t, sentKey(orig), activeConversation(t, path).Key(), "chain's rebuild of the session is what %s sends", c)
		}
		fx := &fixture{env: env, id: id}
		clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, filepath.Dir(path), filepath.Dir(clone.Path), "the clone lies beside the session")
		require.Equal(t, spec.Clone(sent).Key(), sentKey(resultResume(t, env, c, id, clone.SessionID, orig)), "clone: what %s sends", c)
		for n := 1; n <= 2; n++ {
			fork := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
			require.Equal(t, filepath.Dir(path), filepath.Dir(fork.Path), "the fork lies beside the session")
			require.Equal(t, spec.Fork(sent, n).Key(), sentKey(resultResume(t, env, c, id, fork.SessionID, orig)), "fork-at-turn %d: what %s sends", n, c)
		}
	}
}
