package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	shareSecretMain  = "ghp_M4inTr4nscr1ptZ9y8X7w6V5u4T3s2R1q0P9" // in the main transcript
	shareSecretAgent = "ghp_Sub4g3ntTr4nsZ9y8X7w6V5u4T3s2R1q0P9o" // in the subagent transcript only
	shareSecretTool  = "ghp_T00lR3sultF1leZ9y8X7w6V5u4T3s2R1q0P9" // in a tool-results file only
)

// newShareEnv installs the real 2.1.x subagent session with a secret in
// its main transcript, one in its subagent transcript and one in a
// tool-results file; which of them are planted is chosen per test.
func newShareEnv(t *testing.T, inMain, inAgent, inTool bool) *sidecarEnv {
	t.Helper()
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.1.328", "subagent.jsonl"))
	e := &sidecarEnv{cfg: cfg, proj: filepath.Dir(main), main: main, id: strings.TrimSuffix(filepath.Base(main), ".jsonl")}
	plant := func(p, old, new string) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(b), old)
		require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o600))
	}
	if inMain {
		plant(main, `"content":"Delegate a check to a subagent."`, `"content":"Delegate a check to a subagent. GITHUB_TOKEN=`+shareSecretMain+`"`)
	}
	if inAgent {
		plant(filepath.Join(e.proj, e.id, "subagents", "agent-a1eb358aa10f9c9a1.jsonl"), `"content":"Run echo from-subagent and report."`, `"content":"Run echo from-subagent and report. token `+shareSecretAgent+`"`)
	}
	if inTool {
		e.side = filepath.Join(e.proj, e.id, "tool-results", "b0ut9ut.txt")
		require.NoError(t, os.MkdirAll(filepath.Dir(e.side), 0o700))
		require.NoError(t, os.WriteFile(e.side, []byte("line 1\nexport GH_TOKEN="+shareSecretTool+"\n"), 0o600))
	}
	backdate(t, cfg)
	return e
}

// -o FILE never claims a redaction it did not write: with the only secret
// in a subagent transcript it said "secrets redacted: 1" and wrote a copy
// byte-identical to the original. The count is of what FILE holds; the
// files that hold secrets and are not in FILE are named, text and --json.
func TestRedactToFileCountsOnlyWhatItWrote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                    string
		inMain, inAgent, inTool bool
		written, notWritten     int
		named                   []string
	}{
		{"only in the subagent transcript", false, true, false, 0, 1, []string{"agent-a1eb358aa10f9c9a1.jsonl"}},
		{"only in a tool-results file", false, false, true, 0, 1, []string{"b0ut9ut.txt"}},
		{"in all three", true, true, true, 2, 2, []string{"agent-a1eb358aa10f9c9a1.jsonl", "b0ut9ut.txt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newShareEnv(t, c.inMain, c.inAgent, c.inTool)
			out := filepath.Join(t.TempDir(), "share.jsonl")
			r := e.cli(t, "redact-secrets", e.id, "-o", out)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			if c.written == 0 {
				assert.NotContains(t, r.stdout, "secrets redacted", "a count of secrets FILE does not hold")
			} else {
				assert.Contains(t, r.stdout, "secrets redacted: 2 (github-pat 2)\n")
			}
			for _, n := range c.named {
				assert.Contains(t, r.stdout, n, "the file holding a secret -o did not write is named")
			}
			assert.Contains(t, r.stdout, "not in "+out)

			r = e.cli(t, "--json", "redact-secrets", e.id, "-o", out, "--force")
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			var res app.WriteResult
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
			assert.Equal(t, c.written, res.Counts["secrets_redacted"])
			assert.Equal(t, c.notWritten, res.SidecarSecretsNotWritten)
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.NotContains(t, string(b), shareSecretMain)
		})
	}
}

// -o DIR/ on a 2.0.x session: its subagent transcripts lived in the
// project folder itself (agent-*.jsonl), and are written there in DIR.
// A folder that already holds the session is refused, nothing written.
func TestRedactToFolderOldLayout(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.0.50", "subagent.jsonl"))
	id := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	agents, err := filepath.Glob(filepath.Join("testdata", "sessions", "2.0.50", "subagent", "agent-*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, agents)
	for _, a := range agents { // the 2.0.x layout: beside the main transcript
		b, err := os.ReadFile(a)
		require.NoError(t, err)
		b = []byte(strings.Replace(string(b), `"content":"`, `"content":"token `+shareSecretAgent+` `, 1))
		require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(main), filepath.Base(a)), b, 0o600))
	}
	require.NoError(t, os.RemoveAll(filepath.Join(filepath.Dir(main), id)))
	backdate(t, cfg)
	dir := filepath.Join(t.TempDir(), "share") + "/"
	r := runCLI(t, "--config-dir="+cfg, "redact-secrets", id, "-o", dir)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "wrote session "+id)
	for _, a := range agents {
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(a)))
		require.NoError(t, err, "the subagent transcript is in the folder")
		assert.NotContains(t, string(b), shareSecretAgent)
		assert.Contains(t, string(b), "[REDACTED:github-pat:")
	}
	_, err = os.Stat(filepath.Join(dir, id+".jsonl"))
	require.NoError(t, err)

	h0 := hashTree(t, dir)
	r = runCLI(t, "--config-dir="+cfg, "redact-secrets", id, "-o", dir)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "already exists; nothing was written")
	assert.Regexp(t, `(?m)^ccsurgeon: hint: `, r.stderr)
	assert.Empty(t, changes(h0, hashTree(t, dir)), "a refused share changed the folder")
}

// A share folder goes outside the config dir's projects/: there it would
// be a second copy of the session under the same id.
func TestRedactToFolderNotInProjects(t *testing.T) {
	t.Parallel()
	e := newShareEnv(t, true, false, false)
	h0 := hashTree(t, e.cfg)
	r := e.cli(t, "redact-secrets", e.id, "-o", filepath.Join(e.cfg, "projects", "-other")+"/")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "under the config dir's projects folder")
	assert.Regexp(t, `(?m)^ccsurgeon: hint: `, r.stderr)
	assert.Empty(t, changes(h0, hashTree(t, e.cfg)))
	_, err := os.Stat(filepath.Join(e.cfg, "projects", "-other"))
	assert.True(t, os.IsNotExist(err), "the folder was made")
}
