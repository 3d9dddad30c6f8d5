package ops_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/require"
)

// TestBranchCommandSession: /branch in the newest client's TUI (after two
// turns) starts a new session file that copies the conversation, every
// entry keeping its uuid and carrying forkedFrom (the session and entry it
// came from), and goes on in it (a third turn). The branch's file is in
// testdata (harness.TUIShapes "branch", made by cmd/gentestdata); every
// operation on it is held to its specification in process
// (TestSpecEveryOperationEverySession), and clone and fork-at-turn (every
// turn) here with both real clients.
func TestBranchCommandSession(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := env.InstallSession(t, interactiveShape(t, "branch.jsonl"))
	data, err := os.ReadFile(env.SessionPath(id))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte(`{"parentUuid":null`)) && bytes.Contains(data, []byte(`"forkedFrom":{"sessionId":"`)),
		"a session file that starts with the copied conversation, with forkedFrom")
	list := everyTurn(t, env, id)
	require.Len(t, list, 1+3, "the branch holds 3 turns")
	checkOps(t, env, id, list)
}
