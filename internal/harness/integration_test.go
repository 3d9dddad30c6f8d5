package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testdataSessions(t *testing.T, version string) []string {
	root, err := RepoRoot()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "testdata", "sessions", version, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no generated sessions for %s: run scripts/gen-testdata.sh", version)
	return files
}

// The harness itself: a resume leaves the session file unchanged, gives the same
// messages twice, and the same (normalized) messages in a second environment;
// a resume of an input already resumed in the env does not start the client. Checked
// on a session without and one with a sidecar folder (subagent transcripts): every
// generated session is resumed under the API rules by ops'
// TestCompatibilityWithRealClient, so repeating all of them three times here only cost
// six minutes of test time.
func TestGeneratedSessionsResume(t *testing.T) {
	for _, c := range Clients(t) {
		for _, f := range testdataSessions(t, c.Sessions) {
			name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
			if name != "multi-turn" && name != "subagent" {
				continue
			}
			t.Run(c.Version+"/"+name, func(t *testing.T) {
				t.Parallel()
				e := NewEnv(t)
				id := e.InstallSession(t, f)
				before, err := os.ReadFile(e.SessionPath(id))
				require.NoError(t, err)
				r1 := e.MustResume(t, c, id)
				after, err := os.ReadFile(e.SessionPath(id))
				require.NoError(t, err)
				assert.True(t, bytes.Equal(before, after), "Resume must leave the session file unchanged")
				require.NotEmpty(t, r1.Messages)
				e.Fresh = true // the client runs again: the same answer is what makes the memo sound
				r2 := e.MustResume(t, c, id)
				n := NewNormalizer(e, id)
				AssertSameConversation(t, n, r1, r2)
				// without Fresh, the same input again does not start the client
				e.Fresh = false
				seen := len(e.Mock.Requests())
				r4 := e.MustResume(t, c, id)
				assert.Equal(t, seen, len(e.Mock.Requests()), "a repeated resume started the client")
				AssertSameConversation(t, n, r1, r4)

				e2 := NewEnv(t)
				e2.InstallSession(t, f)
				r3 := e2.MustResume(t, c, id)
				n2 := NewNormalizer(e2, id)
				if d := diffNormalized(n, n2, r1, r3); d != "" {
					t.Errorf("resume in another env differs:\n%s", d)
				}
			})
		}
	}
}

func diffNormalized(n1, n2 *Normalizer, a, b ResumeResult) string {
	na, nb := n1.Normalize(a.Messages), n2.Normalize(b.Messages)
	if strings.Join(na, "\n") == strings.Join(nb, "\n") {
		return ""
	}
	return "a:\n" + MessageSummary(a.Messages) + "b:\n" + MessageSummary(b.Messages)
}

// Editing a signed thinking block's text makes the mock answer 400 like the real API.
func TestMockRejectsEditedThinking(t *testing.T) {
	for _, c := range Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			root, err := RepoRoot()
			require.NoError(t, err)
			data, err := os.ReadFile(filepath.Join(root, "testdata", "sessions", c.Sessions, "multi-turn.jsonl"))
			require.NoError(t, err)
			const orig = "Append-only logging is cheap with JSONL."
			require.Contains(t, string(data), orig)
			e := NewEnv(t)
			id, err := SessionIDOf(filepath.Join(root, "testdata", "sessions", c.Sessions, "multi-turn.jsonl"))
			require.NoError(t, err)
			e.InstallSessionBytes(t, id, bytes.ReplaceAll(data, []byte(orig), []byte("Append-only logging is EDITED.")))
			r := e.Resume(t, c, id)
			require.NotNil(t, r.Request, r.String())
			require.NotEmpty(t, r.Violations, r.String())
			assert.Equal(t, RuleThinkingSignature, r.Violations[0].Rule)
			assert.False(t, r.OK())
		})
	}
}

// Dropping the first tool_result line leaves its child with a dangling parentUuid:
// 2.0.50 drops all history above it, sends a conversation starting with an assistant
// message, and the mock answers 400 like the real API.
func TestOldClientDanglingParentDropsHistory(t *testing.T) {
	c := Old(t)
	root, err := RepoRoot()
	require.NoError(t, err)
	src := filepath.Join(root, "testdata", "sessions", c.Sessions, "tools.jsonl")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	id, err := SessionIDOf(src)
	require.NoError(t, err)
	var kept [][]byte
	dropped := false
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if !dropped && bytes.Contains(l, []byte(`"tool_use_id"`)) && bytes.Contains(l, []byte("hello from bash")) {
			dropped = true
			continue
		}
		kept = append(kept, l)
	}
	require.True(t, dropped)
	e := NewEnv(t)
	e.InstallSessionBytes(t, id, append(bytes.Join(kept, []byte("\n")), '\n'))
	r := e.Resume(t, c, id)
	require.NotNil(t, r.Request, r.String())
	assert.False(t, r.OK())
	require.NotEmpty(t, r.Violations)
	assert.Equal(t, RuleFirstNotUser, r.Violations[0].Rule, "%s\n%s", r, MessageSummary(r.Messages))
	assert.NotContains(t, string(r.Request.Body), "Run some shell commands.", "history above the dangling entry is dropped")
}

// TestExecHangsNotOnAWholeRun: ExecHangs, which the hang tests of ops
// take 2.0.50's spin on a parent cycle with, does not take a client that
// resumes and answers for a hung one: the control of those tests.
func TestExecHangsNotOnAWholeRun(t *testing.T) {
	t.Parallel()
	c := Old(t)
	e := NewEnv(t)
	id := e.InstallSession(t, filepath.Join(testdataDir(t, c), "multi-turn.jsonl"))
	hung, res, err := e.ExecHangs(c, "-p", ResumePrompt, "--output-format", "json", "--dangerously-skip-permissions", "--resume", id)
	require.NoError(t, err)
	assert.False(t, hung, "a whole run taken for a hang: %s", res.Stderr)
	assert.Equal(t, 0, res.ExitCode, res.Stderr)
	assert.Equal(t, id, res.SessionID)
	assert.NotEmpty(t, e.Mock.RequestsOf(KindMain))
}

func testdataDir(t *testing.T, c Client) string {
	root, err := RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "testdata", "sessions", c.Sessions)
}
