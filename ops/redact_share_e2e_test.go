package ops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedactShareFolderResumes: 'redact-secrets SESSION -o DIR/' writes
// the session with its subagent transcripts and tool-results files,
// redacted, as a project folder. No file of it holds a secret, and the
// folder put under a fresh config dir's projects/ resumes with the real
// client: the request holds the conversation and no secret.
func TestRedactShareFolderResumes(t *testing.T) {
	t.Parallel()
	const (
		inMain  = "ghp_M4inTr4nscr1ptZ9y8X7w6V5u4T3s2R1q0P9"
		inAgent = "ghp_Sub4g3ntTr4nsZ9y8X7w6V5u4T3s2R1q0P9o"
		inTool  = "ghp_T00lR3sultF1leZ9y8X7w6V5u4T3s2R1q0P9"
	)
	c := harness.Latest(t)
	fx := newFixture(t, c, filepath.Join("..", "testdata", "sessions", c.Sessions, "subagent.jsonl"))
	proj := fx.env.ProjectDir()
	plant := func(p, old, new string) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(b), old)
		require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o600))
	}
	plant(fx.env.SessionPath(fx.id), `"content":"Delegate a check to a subagent."`, `"content":"Delegate a check to a subagent. GITHUB_TOKEN=`+inMain+`"`)
	agents, err := filepath.Glob(filepath.Join(proj, fx.id, "subagents", "agent-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, agents, 1)
	plant(agents[0], `"content":"Run echo from-subagent and report."`, `"content":"Run echo from-subagent and report. token `+inAgent+`"`)
	tool := filepath.Join(proj, fx.id, "tool-results", "b0ut9ut.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(tool), 0o700))
	require.NoError(t, os.WriteFile(tool, []byte("export GH_TOKEN="+inTool+"\n"), 0o600))

	share := filepath.Join(t.TempDir(), "share") + "/"
	r := fx.ccsurgeon(t, func(a *app.Env) error {
		return a.RunOps(fx.id, app.OpSpec{Redact: true}, app.Dest{Output: share, Force: true})
	})
	assert.Equal(t, len(r.Redactions), r.Counts["secrets_redacted"], "every secret is in the folder, redacted")
	assert.GreaterOrEqual(t, len(r.Redactions), 3)
	assert.Zero(t, r.SidecarSecretsNotWritten)
	assert.Equal(t, filepath.Join(share, fx.id+".jsonl"), r.Path)
	var files []string
	require.NoError(t, filepath.Walk(share, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(share, p)
		files = append(files, rel)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, s := range []string{inMain, inAgent, inTool} {
			assert.NotContains(t, string(b), s, "%s holds a secret", rel)
		}
		return nil
	}))
	base := strings.TrimSuffix(filepath.Base(agents[0]), ".jsonl")
	assert.ElementsMatch(t, []string{fx.id + ".jsonl", filepath.Join(fx.id, "subagents", base+".jsonl"), filepath.Join(fx.id, "subagents", base+".meta.json"),
		filepath.Join(fx.id, "tool-results", "b0ut9ut.txt")}, files)
	b, err := os.ReadFile(filepath.Join(share, fx.id, "subagents", base+".jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "report. token [REDACTED:github-pat:2]")
	b, err = os.ReadFile(filepath.Join(share, fx.id, "tool-results", "b0ut9ut.txt"))
	require.NoError(t, err)
	assert.Equal(t, "export GH_TOKEN=[REDACTED:github-pat:3]\n", string(b))

	// another person: a fresh config dir, the folder under its projects/
	other := harness.NewEnv(t)
	require.NoError(t, harness.CopyDir(share, other.ProjectDir()))
	other.InstallSession(t, filepath.Join(share, fx.id+".jsonl")) // the mock trusts its signed thinking
	got := other.MustResume(t, c, fx.id)
	body := string(got.Request.Body)
	for _, s := range []string{inMain, inAgent, inTool} {
		assert.False(t, strings.Contains(body, s), "the resumed request sends a secret")
	}
	assert.True(t, strings.Contains(body, `"content":"Delegate a check to a subagent. GITHUB_TOKEN=[REDACTED:github-pat:1]"`), "the conversation is sent, redacted")
	assert.True(t, strings.Contains(body, "Subagent report: the command printed from-subagent."), "the conversation is sent")
}
