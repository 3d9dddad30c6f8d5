package ops_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// TestStreamingToolsProgressBetweenCalls: Claude Code 2.1.37-2.1.39 with
// streaming tool execution (a feature gate real users had on) start a
// parallel call while the model still writes the next one, and record the
// running calls' progress entries in the chain, between the tool_use
// entries of one message; the client of the "streaming-tools" shape
// (internal/harness/shape-clients.txt: 2.1.38) makes it here. A turn of 3
// parallel Bash calls made by its TUI with streaming tool execution, the model
// taking 3 s to write the 2nd call while the 1st (sleep 7) runs: the 1st
// call's progress entry is written before the 2nd tool_use, which hangs
// below it; the 1st call finishes last, so the answer hangs below its
// result and the 2nd and 3rd calls are on no path from the answer. The
// newest client sends all 3 calls; fork-at-turn (every turn) and clone must
// keep them: what 2.1.332 sends for each is spec.Fork / spec.Clone of what
// it sends for the original, and no entry is counted as another branch.
func TestStreamingToolsProgressBetweenCalls(t *testing.T) {
	t.Parallel()
	maker := harness.ShapeClient(t, "streaming-tools")
	env := harness.NewEnv(t)
	require.NoError(t, env.EnableGates("tengu_streaming_tool_execution2"))
	tui := startTUI(t, env, maker)
	blocks := []harness.Block{harness.TextBlock("I will run these at once.")}
	for pos, secs := range []int{7, 1, 1} {
		b := harness.ToolUse("Bash", map[string]any{"command": fmt.Sprintf("sleep %d && echo call-%d", secs, pos+1), "description": fmt.Sprintf("call %d", pos+1)})
		if pos == 1 {
			b.Delay = 3 * time.Second // the 1st call runs meanwhile: its progress is written
		}
		blocks = append(blocks, b)
	}
	require.NoError(t, tui.Turn("Check these at once.", "All calls finished.", harness.Blocks(blocks...), harness.Text("All calls finished.")))
	require.NoError(t, tui.Turn("Anything else?", "No, that is all.", harness.Text("No, that is all.")))
	require.NoError(t, tui.Exit())
	tui.Close()
	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 1)
	id, path := ids[0], env.SessionPath(ids[0])

	// the shape was made: a tool_use entry hangs below a progress entry,
	// and the answer's path up the parents misses that call
	f, err := chain.LoadFile(path)
	require.NoError(t, err)
	g := f.Graph()
	belowProgress := 0
	for i := range f.Entries {
		e := &f.Entries[i]
		if p := g.Parent[i]; p >= 0 && e.Type() == "assistant" && len(e.ToolUseIDs()) > 0 && f.Entries[p].Type() == "progress" {
			belowProgress++
		}
	}
	f.Close()
	require.Equal(t, 1, belowProgress, "the 2nd call's tool_use hangs below the 1st call's progress entry")

	newest := harness.Latest(t)
	sent := spec.FromAPI(env.MustResume(t, newest, id).Messages)
	calls := 0
	for _, m := range sent {
		for _, b := range m.Blocks {
			if b.Type == "tool_use" {
				calls++
			}
		}
	}
	require.Equal(t, 3, calls, "%s sends the 3 calls of the original", newest)
	require.Equal(t, sentKey(env.MustResume(t, newest, id)), activeConversation(t, path).Key(), "chain's rebuild of the original is what %s sends", newest)

	run := func(name string, do func(a *app.Env) error) app.WriteResult {
		r := (&fixture{env: env, id: id}).ccsurgeon(t, do)
		require.Zero(t, r.Counts[ops.CountOtherBranches], "%s: the file has one branch: %+v", name, r.Counts)
		return r
	}
	clone := run("clone", func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
	require.Equal(t, spec.Clone(sent).Key(), sentKey(env.MustResume(t, newest, clone.SessionID)), "what %s sends for the clone", newest)
	for n := 1; n <= 2; n++ {
		r := run(fmt.Sprintf("fork-at-turn %d", n), func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
		got := env.MustResume(t, newest, r.SessionID)
		require.Equal(t, spec.Fork(sent, n).Key(), sentKey(got), "fork-at-turn %d: what %s sends", n, newest)
		require.Equal(t, spec.Fork(sent, n).Key(), activeConversation(t, r.Path).Key(), "fork-at-turn %d: chain's rebuild", n)
	}
	// the writer itself resumes the 1st call only (it walks the parents
	// from the answer): the fork keeps what it sends too
	own := spec.FromAPI(env.MustResume(t, maker, id).Messages)
	r := run("fork-at-turn 1", func(a *app.Env) error { return a.RunFork(id, 1, app.BranchOptions{}, app.Dest{}) })
	require.Equal(t, spec.Fork(own, 1).Key(), sentKey(env.MustResume(t, maker, r.SessionID)), "fork-at-turn 1: what %s sends", maker)
}
