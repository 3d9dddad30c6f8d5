package ops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// resumedElsewhere names the interactive shapes whose original and
// fork-at-turn 1 another test resumes with both clients, and holds to the
// specification: TestCdSession, TestBranchCommandSession,
// TestRewindToBeforeClear, TestForkCommandShapes (every turn of the three
// /fork files). TestShapesResumeWithSpec leaves them out.
var resumedElsewhere = map[string]bool{
	"cd.jsonl": true, "branch.jsonl": true, "rewind-before-clear.jsonl": true,
	"fork-agent.jsonl": true, "fork-session.jsonl": true, "fork-session-parent.jsonl": true,
}

// sentKey is what the client sent on a resume, projected for comparison
// with a specification (2.0.x's synthetic last answer left out).
func sentKey(r harness.ResumeResult) []string {
	return withoutSynthetic(spec.FromAPI(r.Messages).Key())
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

// TestShapesResumeWithSpec: every shape of testdata/sessions/<version>/shapes
// (with CCSURGEON_SHAPES=all, inprocess/ too) and parallel-out-of-order (a turn whose parallel calls finished out of
// order: the later call's result written first, the answer below the first
// call's result, the other call on a side branch), with both pinned
// clients. fork-at-turn must keep every call of the turn, drop-tool-calls
// must remove exactly the selected calls, strip-thinking only the thinking:
// each result resumed by the real client with the spec's messages (a
// result the operation found nothing to change in is the original file:
// the original's resume), the spec taken on what the client sends for the
// original.
//
// The shapes of resumedElsewhere are left out: a test of their own resumes
// the original and its fork-at-turn 1 with both clients (this one: the
// newest only), and neither drop-tool-calls Bash nor strip-thinking finds
// anything to change in them, which TestSpecEveryOperationEverySession
// checks in process. They cost 12 client runs here that proved nothing new.
func TestShapesResumeWithSpec(t *testing.T) {
	t.Parallel()
	type shape struct {
		c    harness.Client
		file string
	}
	var shapes []shape
	for _, c := range harness.Clients(t) {
		shapes = append(shapes, shape{c, "parallel-out-of-order.jsonl"})
		more, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", c.Sessions, "shapes", "*.jsonl"))
		if os.Getenv("CCSURGEON_SHAPES") == "all" {
			// the shapes only the in-process spec check reads by default
			// (more permutations, the long session): a one-off run
			all, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", c.Sessions, "inprocess", "*.jsonl"))
			more = append(more, all...)
		}
		for _, p := range more {
			if resumedElsewhere[filepath.Base(p)] {
				continue
			}
			shapes = append(shapes, shape{c, filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))})
		}
	}
	type op struct {
		name string
		run  func(fx *fixture, a *app.Env) error
		// want is the specification, from what the client sent for the
		// original and the original's file
		want func(sent spec.Conversation, path string) spec.Conversation
	}
	rewrite := func(o ops.Op) func(fx *fixture, a *app.Env) error {
		return func(fx *fixture, a *app.Env) error {
			return a.RunPipeline(fx.id, ops.Pipeline{o}, app.Dest{New: true})
		}
	}
	opsToCheck := []op{
		{"fork-at-turn-1", func(fx *fixture, a *app.Env) error { return a.RunFork(fx.id, 1, app.BranchOptions{}, app.Dest{}) },
			func(c spec.Conversation, path string) spec.Conversation {
				// a turn a compaction summarized is not in what the client
				// sends: the spec is taken on the conversation that held it
				f, err := chain.LoadFile(path)
				require.NoError(t, err)
				defer f.Close()
				return spec.Fork(heldTurn(t, f, f.ActiveTurns(), c, 1), 1)
			}},
		{"drop-tool-calls-Bash", rewrite(ops.DropToolCalls{Tools: []string{"Bash"}}),
			func(c spec.Conversation, _ string) spec.Conversation {
				return spec.DropToolCalls(c, func(use spec.Block, _ int) bool { return use.Name == "Bash" })
			}},
		{"strip-thinking", rewrite(ops.StripThinking{}),
			func(c spec.Conversation, _ string) spec.Conversation { return spec.StripThinking(c, 0) }},
	}
	for _, sh := range shapes {
		c := sh.c
		src := filepath.Join("..", "testdata", "sessions", c.Sessions, sh.file)
		t.Run(c.Version+"/"+strings.TrimSuffix(sh.file, ".jsonl"), func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, src)
			sent := fx.original(t)
			for _, o := range opsToCheck {
				r := fx.ccsurgeon(t, func(a *app.Env) error { return o.run(fx, a) })
				want := o.want(spec.FromAPI(sent.Messages), fx.env.SessionPath(fx.id))
				require.Equal(t, want.Key(), activeConversation(t, r.Path).Key(), "%s: chain's rebuild of the result", o.name)
				if o.name == "fork-at-turn-1" && sh.file == "parallel-out-of-order.jsonl" {
					// a generated session: TestForkAtEveryTurn resumes this
					// fork with both clients and compares it with the
					// original's messages up to turn 2 (the same run, with
					// the ids numbered, CCSURGEON_RUN_LOG)
					continue
				}
				got := sent // nothing to change: the result is the original file, resumed above
				if !r.NothingToChange {
					got = resultResume(t, fx.env, c, fx.id, r.SessionID, sent)
				}
				require.Equal(t, want.Key(), sentKey(got), "%s: what %s sends for the result", o.name, c)
			}
			require.Equal(t, sentKey(sent), activeConversation(t, fx.env.SessionPath(fx.id)).Key(), "chain's rebuild of the original")
		})
	}
}
