package ops_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/app"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/harness"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/spec"
	"github.com/stretchr/testify/require"
)

// sentKey is what the client sent on a resume, projected for comparison
// with a specification (2.0.x's synthetic last answer left out).
func sentKey(r harness.ResumeResult) []string {
	k := spec.FromAPI(r.Messages).Key()
	if n := len(k); n > 0 && k[n-1] == `assistant: text("No response requested.")` {
		k = k[:n-1]
	}
	return k
}

// activeConversation is chain's rebuild of the session file at path.
func activeConversation(t *testing.T, path string) spec.Conversation {
	t.Helper()
	f, err := chain.LoadFile(path)
	require.NoError(t, err)
	defer f.Close()
	c, err := spec.Active(f)
	require.NoError(t, err)
	return c
}

// TestParallelCallsOutOfOrder: a turn whose parallel calls finished out of
// order (the later call's result written first, the answer below the first
// call's result, the other call on a side branch). fork-at-turn must keep
// every call of the turn, and drop-tool-calls must remove exactly the
// selected calls: both resumed by the real client with the spec's messages.
func TestParallelCallsOutOfOrder(t *testing.T) {
	type shape struct {
		c    harness.Client
		file string
	}
	latest, old := harness.Latest(t), harness.Old(t)
	shapes := []shape{{latest, "parallel-out-of-order.jsonl"}, {old, "parallel-out-of-order.jsonl"}}
	orders, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", latest.Sessions, "shapes", "parallel3-order-*.jsonl"))
	for _, p := range orders {
		shapes = append(shapes, shape{latest, filepath.Join("shapes", filepath.Base(p))})
	}
	require.NotEmpty(t, orders, "no parallel3-order-* shapes for %s", latest)
	for _, sh := range shapes {
		c := sh.c
		src := filepath.Join("..", "testdata", "sessions", c.Sessions, sh.file)
		name := c.Version + "/" + strings.TrimSuffix(sh.file, ".jsonl")
		t.Run(name+"/fork-at-turn-1", func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, src)
			// the spec on what the client sends for the original, and chain agreeing with it
			sent := fx.resume(t, fx.id)
			r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(fx.id, 1, app.BranchOptions{}, app.Dest{}) })
			want := spec.Fork(spec.FromAPI(sent.Messages), 1)
			require.Equal(t, want.Key(), sentKey(fx.resume(t, r.SessionID)), "what %s sends for the fork", c)
			require.Equal(t, sentKey(sent), activeConversation(t, fx.env.SessionPath(fx.id)).Key(), "chain's rebuild of the original")
			require.Equal(t, want.Key(), activeConversation(t, r.Path).Key(), "chain's rebuild of the fork")
		})
		t.Run(name+"/drop-tool-calls-Bash", func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, src)
			sent := fx.resume(t, fx.id)
			r := fx.ccsurgeon(t, func(a *app.Env) error {
				return a.RunRewrite(app.RewriteOptions{Session: fx.id, Dest: app.Dest{New: true}, Ops: []ops.Op{ops.DropToolCalls{Tools: []string{"Bash"}}}})
			})
			want := spec.DropToolCalls(spec.FromAPI(sent.Messages), func(use spec.Block, _ int) bool { return use.Name == "Bash" })
			require.Equal(t, want.Key(), sentKey(fx.resume(t, r.SessionID)), "what %s sends for the result", c)
			require.Equal(t, sentKey(sent), activeConversation(t, fx.env.SessionPath(fx.id)).Key(), "chain's rebuild of the original")
			require.Equal(t, want.Key(), activeConversation(t, r.Path).Key(), "chain's rebuild of the result")
		})
	}
}
