package ops_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestEmptyThinkingWithSignature: newer models answer with thinking blocks
// whose text is empty and that carry only a signature. A session of two
// turns made by the newest client at test time, each answer led by such a
// block (the second inside a tool loop): every operation is held to its
// specification in process, and strip-thinking and fork-at-turn 1 with
// both real clients (what each sends for the result is the specification
// of what it sends for the original, and the mock API accepts it).
func TestEmptyThinkingWithSignature(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	maker := harness.Latest(t)
	id := env.Turn(t, maker, "", "Plan it.", harness.Blocks(harness.ThinkingBlock(""), harness.TextBlock("Planned.")))
	env.Turn(t, maker, id, "Run it.", harness.Blocks(harness.ThinkingBlock(""), harness.ToolUse("Bash", map[string]any{"command": "echo ran", "description": "run"})), harness.Text("Ran it."))
	path := env.SessionPath(id)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 2, bytes.Count(data, []byte(`"thinking":"","type":"thinking"`)), "the client wrote both thinking blocks with empty text and a signature")

	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	checkSpecCases(t, path, "empty-thinking", sc)

	for _, c := range harness.Clients(t) {
		sent := spec.FromAPI(env.MustResume(t, c, id).Messages)
		strip := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error {
			return a.RunPipeline(id, ops.Pipeline{ops.StripThinking{}}, app.Dest{New: true})
		})
		got := env.MustResume(t, c, strip.SessionID)
		require.Empty(t, got.Violations)
		require.Equal(t, spec.StripThinking(sent, 0).Key(), sentKey(got), "strip-thinking: what %s sends", c)
		fork := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, 1, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Fork(sent, 1).Key(), sentKey(env.MustResume(t, c, fork.SessionID)), "fork-at-turn 1: what %s sends", c)
	}
}
