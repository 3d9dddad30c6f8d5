package ops_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloneResumesTheSameConversation clones every generated session and
// resumes original and clone with the client that made it: both must send
// the same messages, and the clone must hold no identifier of the original
// outside message content.
func TestCloneResumesTheSameConversation(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(fx.id, app.BranchOptions{}, app.Dest{}) })
				require.NotEqual(t, fx.id, r.SessionID)
				require.Equal(t, fx.env.SessionPath(r.SessionID), r.Path)
				// run in the session's working directory, where the client
				// looks for it (move's form)
				if cwd := chain.RecordedCwdOf(r.Path); cwd != "" && chain.ProjectSlug(cwd) == filepath.Base(filepath.Dir(r.Path)) {
					require.Equal(t, app.CdAnd(cwd, "claude --resume "+r.SessionID), r.ResumeCommand)
				} else {
					require.Equal(t, "claude --resume "+r.SessionID, r.ResumeCommand)
				}

				orig := fx.original(t)
				clone := fx.resume(t, r.SessionID)
				harness.AssertSameConversation(t, sameNormalizer(fx.env, fx.id, r.SessionID), orig, clone)

				// no identifier of the original outside message content
				origIDs := idsOf(t, fx.env.SessionPath(fx.id))
				for s, where := range structuralStrings(t, r.Path) {
					for _, id := range uuidRe.FindAllString(s, -1) {
						assert.False(t, origIDs[strings.ToLower(id)], "clone keeps original id %s at %s", id, where)
					}
				}
				// subagent transcripts exist for the new id, with the new session id
				origSub, _ := filepath.Glob(filepath.Join(fx.env.ProjectDir(), fx.id, "subagents", "agent-*"))
				newSub, _ := filepath.Glob(filepath.Join(fx.env.ProjectDir(), r.SessionID, "subagents", "agent-*"))
				assert.Equal(t, len(origSub), len(newSub), "subagent files")
				for _, p := range newSub {
					if strings.HasSuffix(p, ".jsonl") {
						b, err := os.ReadFile(p)
						require.NoError(t, err)
						assert.Contains(t, string(b), `"sessionId":"`+r.SessionID+`"`)
						assert.NotContains(t, string(b), `"sessionId":"`+fx.id+`"`)
					}
				}
				// the clone validates
				s, err := chain.Load(r.Path)
				require.NoError(t, err)
				defer s.Close()
				assert.Equal(t, len(orig.Messages), len(clone.Messages))
			})
		}
	}
}

// TestCloneTwiceSharesNoUUID: two clones share no UUID with each other or
// with the original, outside message content.
func TestCloneTwiceSharesNoUUID(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	src := filepath.Join("..", "testdata", "sessions", c.Sessions, "subagent.jsonl")
	fx := newFixture(t, c, src)
	clone := func() app.WriteResult {
		return fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(fx.id, app.BranchOptions{}, app.Dest{}) })
	}
	a, b := clone(), clone()
	ids := func(id string) map[string]bool {
		out := map[string]bool{}
		for _, p := range append([]string{fx.env.SessionPath(id)}, globAll(filepath.Join(fx.env.ProjectDir(), id, "subagents", "*.jsonl"))...) {
			for s := range structuralStrings(t, p) {
				for _, u := range uuidRe.FindAllString(s, -1) {
					out[u] = true
				}
			}
		}
		return out
	}
	o, x, y := ids(fx.id), ids(a.SessionID), ids(b.SessionID)
	require.NotEmpty(t, x)
	for u := range x {
		assert.False(t, o[u], "clone 1 shares %s with the original", u)
		assert.False(t, y[u], "the clones share %s", u)
	}
	for u := range y {
		assert.False(t, o[u], "clone 2 shares %s with the original", u)
	}
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// TestForkAtEveryTurn forks every generated session at every turn; the
// fork must resume with exactly the original's messages up to the end of
// that turn. Each fork is a subtest of its own, in an environment of its
// own: a session's forks resume side by side instead of one after another,
// the longest chain of client runs that used to end the package's run.
func TestForkAtEveryTurn(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				f, err := chain.LoadFile(fx.env.SessionPath(fx.id))
				require.NoError(t, err)
				turns := f.ActiveTurns()
				var prompts []string
				for _, tn := range turns.List {
					p, err := f.PromptText(tn.Entry)
					require.NoError(t, err)
					prompts = append(prompts, p)
				}
				f.Close()
				for n := 1; n <= len(turns.List); n++ {
					if turns.List[n-1].Compacted {
						continue // the original no longer sends it: nothing to compare with
					}
					t.Run(fmt.Sprintf("turn-%d", n), func(t *testing.T) {
						t.Parallel()
						fx := newFixture(t, c, src)
						orig := fx.original(t)
						r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunFork(fx.id, n, app.BranchOptions{}, app.Dest{}) })
						if n == len(turns.List) && slices.Equal(activeConversation(t, fx.env.SessionPath(fx.id)).Key(), activeConversation(t, r.Path).Key()) {
							// the whole conversation (the last turn is complete):
							// chain rebuilds the original's, which is what the client
							// sends (TestCompatibilityWithRealClient), and the clone
							// test resumes that; an unfinished last turn is resumed
							return
						}
						fork := resultResume(t, fx.env, c, fx.id, r.SessionID, orig)
						want := orig
						if n < len(prompts) {
							want.Messages = cutBeforePrompt(t, orig.Messages, prompts[n])
						}
						harness.AssertSameConversation(t, sameNormalizer(fx.env, fx.id, r.SessionID), want, fork)
					})
				}
			})
		}
	}
}

// cutBeforePrompt returns the messages before the user message that holds
// the typed prompt p, without the client's system messages just before it.
func cutBeforePrompt(t *testing.T, msgs []json.RawMessage, p string) []json.RawMessage {
	t.Helper()
	quoted, _ := json.Marshal(p)
	q := strings.Trim(string(quoted), `"`)
	for i, m := range msgs {
		var v struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(m, &v)
		if v.Role == "user" && strings.Contains(string(m), q) {
			return msgs[:i]
		}
	}
	t.Fatalf("prompt %q not found in the original's messages", p)
	return nil
}

func TestForkRefusesTurnOutOfRange(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	fx := newFixture(t, c, filepath.Join("..", "testdata", "sessions", c.Sessions, "multi-turn.jsonl"))
	a := &app.Env{ConfigDir: fx.env.ConfigDir, Out: &strings.Builder{}, Err: &strings.Builder{}}
	err := a.RunFork(fx.id, 99, app.BranchOptions{}, app.Dest{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "turn 99 is out of range: the branch has turns 1-3")
	var tr *ops.TurnRangeError // a fact the command layer words, not words
	require.ErrorAs(t, err, &tr)
	assert.Equal(t, ops.TurnRangeError{N: 99, Last: 3}, *tr)
	err = a.RunFork(fx.id, 0, app.BranchOptions{}, app.Dest{})
	require.Error(t, err)
	entries, _ := os.ReadDir(fx.env.ProjectDir())
	assert.Len(t, entries, 1, "nothing written")
}
