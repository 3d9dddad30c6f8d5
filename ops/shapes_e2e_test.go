package ops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/harness"
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
				src := filepath.Join("..", "testdata", "sessions", c.Version, sh.src+".jsonl")
				fx := newFixture(t, c, src)
				orig := fx.resume(t, fx.id)
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
