package ops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumeWholeShapes: shapes of real sessions that the generated ones do
// not hold (FORMAT.md, "Seen in real sessions of many versions"), made by
// transforming a generated session as the client writes them. Each
// resumes exactly as the untouched session does, with both clients, and
// validate reports no error on it.
func TestResumeWholeShapes(t *testing.T) {
	t.Parallel()
	shapes := []struct {
		name, src string
		// apply transforms the installed session (main file path, env)
		apply func(t *testing.T, env *harness.Env, src, path string, data []byte) []byte
	}{
		// 2.1.39 after a compaction: the agent's transcript, whose first
		// entry names the main session's last entry before the compaction,
		// and a boundary whose logicalParentUuid names no entry
		{"compaction-agent+unlinked", "compact", func(t *testing.T, env *harness.Env, src, path string, data []byte) []byte {
			name, agent, ok := harness.CompactionAgent(data)
			require.True(t, ok)
			dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), agent, 0o644))
			return harness.UnlinkCompactions(data)
		}},
		{"continued-session", "multi-turn", func(t *testing.T, env *harness.Env, src, path string, data []byte) []byte {
			// the session it continued from is in the project too
			prevID := env.InstallSession(t, filepath.Join(filepath.Dir(src), "tools.jsonl"))
			prev, err := os.ReadFile(env.SessionPath(prevID))
			require.NoError(t, err)
			return harness.ContinuedFrom(data, harness.LastUUID(prev))
		}},
	}
	for _, c := range harness.Clients(t) {
		for _, sh := range shapes {
			t.Run(c.Version+"/"+sh.name, func(t *testing.T) {
				t.Parallel()
				src := filepath.Join("..", "testdata", "sessions", c.Sessions, sh.src+".jsonl")
				fx := newFixture(t, c, src)
				orig := fx.original(t)
				path := fx.env.SessionPath(fx.id)
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				out := sh.apply(t, fx.env, src, path, data)
				require.NoError(t, os.WriteFile(path, out, 0o644))

				got := fx.resume(t, fx.id)
				harness.AssertSameConversation(t, harness.NewNormalizer(fx.env), orig, got)

				s, err := chain.Load(path)
				require.NoError(t, err)
				defer s.Close()
				rep := validate.Session(s)
				assert.Zero(t, rep.Errors(), "a session the client resumes whole: %v", rep.Problems)
			})
		}
	}
}

// TestAnonymizedCorpusFilesDoNotResume: the two corpus files whose
// publisher replaced every uuid by "<UUID>" (so validate reports duplicate
// uuids and a self-parent) are not resumed by either client (2.1.328 finds
// no conversation in them, 2.0.50 hangs): they are damaged, and validate is
// right to say so.
func TestAnonymizedCorpusFilesDoNotResume(t *testing.T) {
	t.Parallel()
	corpus := testcorpus.Require(t)
	for _, c := range harness.Clients(t) {
		for _, name := range []string{"plan-mode", "todo-write"} {
			t.Run(c.Version+"/"+name, func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(filepath.Join(corpus, "claudeless", "dotclaude", "v2.1.12", name, "session.jsonl"))
				require.NoError(t, err)
				const id = "a0a0a0a0-0000-4000-8000-000000000012"
				env := harness.NewEnv(t)
				// the session id as the client writes it; the entries' uuids
				// stay placeholders
				data = bytes.ReplaceAll(data, []byte(`"sessionId":"<UUID>"`), []byte(`"sessionId":"`+id+`"`))
				env.InstallSessionBytes(t, id, data)
				if c.IsOld() {
					// 2.0.x hangs on the self-parent the placeholders make
					hung, out := hangs(t, env, c, id)
					assert.True(t, hung, "2.0.50 ended with: %s", out)
					return
				}
				r := env.Resume(t, c, id)
				// the file holds 5 message entries (user, assistant text,
				// tool call, its result, final answer): 4 API messages
				assert.False(t, r.OK() && len(r.Messages) >= 4, "resumed whole: %s\n%s", r, harness.MessageSummary(r.Messages))
				t.Logf("%s: %s\n%s", name, r, harness.MessageSummary(r.Messages))
			})
		}
	}
}
