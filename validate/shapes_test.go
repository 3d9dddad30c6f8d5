package validate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// installShape writes main (and the subagent transcripts of agents, by
// file name) as a session in a temp project folder and loads it.
func installShape(t *testing.T, main []byte, agents map[string][]byte) *chain.Session {
	t.Helper()
	dir := t.TempDir()
	id := sessionIDOf(t, main)
	p := filepath.Join(dir, id+".jsonl")
	require.NoError(t, os.WriteFile(p, main, 0o644))
	for name, data := range agents {
		sub := filepath.Join(dir, id, "subagents")
		require.NoError(t, os.MkdirAll(sub, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sub, name), data, 0o644))
	}
	s, err := chain.Load(p)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func sessionIDOf(t *testing.T, data []byte) string {
	t.Helper()
	f, err := chain.LoadBytes("x.jsonl", data)
	require.NoError(t, err)
	for i := range f.Entries {
		if id := f.Entries[i].SessionID(); id != "" {
			return id
		}
	}
	t.Fatal("no sessionId in the session")
	return ""
}

func readSession(t *testing.T, version, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", version, name+".jsonl"))
	require.NoError(t, err)
	return b
}

func errorsOf(r Report) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Severity == Error {
			out = append(out, p)
		}
	}
	return out
}

// The shapes of FORMAT.md's "Seen in real sessions of many versions" that
// the clients resume whole (proven in ops.TestResumeWholeShapes) get no
// error; each is a generated session transformed the way the client
// writes it.

func TestCompactionAgentTranscriptIsNoError(t *testing.T) {
	for _, v := range []string{"2.1.328", "2.0.50"} {
		data := readSession(t, v, "compact")
		name, agent, ok := harness.CompactionAgent(data)
		require.True(t, ok)
		s := installShape(t, data, map[string][]byte{name: agent})
		require.Len(t, s.Subagents, 1)
		assert.Empty(t, errorsOf(Session(s)), v)
	}
}

func TestCompactionAgentFileAloneIsNoError(t *testing.T) {
	// `validate path/to/agent-acompact-….jsonl`: judged as a subagent
	// transcript, not as a session whose history was cut
	_, agent, ok := harness.CompactionAgent(readSession(t, "2.1.328", "compact"))
	require.True(t, ok)
	f, err := chain.LoadBytes("/p/agent-acompact-5e1f0c4d2b3a6978.jsonl", agent)
	require.NoError(t, err)
	ps := File(f, "")
	assert.Empty(t, errorsOf(Report{Problems: ps}))
	require.NotEmpty(t, ps)
	assert.Contains(t, ps[0].Message, "subagent transcript")
}

func TestUnlinkedCompactionIsNoError(t *testing.T) {
	for _, v := range []string{"2.1.328", "2.0.50"} {
		s := installShape(t, harness.UnlinkCompactions(readSession(t, v, "compact")), nil)
		r := Session(s)
		assert.Empty(t, errorsOf(r), v)
		warned := false
		for _, p := range r.Problems {
			warned = warned || (p.Code == "dangling-reference" && strings.Contains(p.Message, "logicalParentUuid"))
		}
		assert.True(t, warned, "%s: the unlinked compaction is still worth a warning: %v", v, r.Problems)
	}
}

func TestContinuedSessionIsNoError(t *testing.T) {
	for _, v := range []string{"2.1.328", "2.0.50"} {
		prev := harness.LastUUID(readSession(t, v, "tools"))
		s := installShape(t, harness.ContinuedFrom(readSession(t, v, "multi-turn"), prev), nil)
		assert.Empty(t, errorsOf(Session(s)), v)
	}
}

// TestDanglingParentInsideTheFileIsAnError: the same dangling parent on
// a later entry still loses the history above it.
func TestDanglingParentInsideTheFileIsAnError(t *testing.T) {
	data := readSession(t, "2.0.50", "multi-turn")
	f, err := chain.LoadBytes("x.jsonl", data)
	require.NoError(t, err)
	second := f.ActiveTurns().List[1].Entry
	lines := strings.SplitAfter(string(data), "\n")
	lines[second] = strings.Replace(lines[second], `"parentUuid":"`+f.Entries[second].ParentUUID()+`"`, `"parentUuid":"`+harness.NowhereUUID+`"`, 1)
	s := installShape(t, []byte(strings.Join(lines, "")), nil)
	assert.Equal(t, 1, Session(s).ErrorCounts()["dangling-parent"])
}

// anonymized are corpus files whose publisher replaced every uuid and
// session id by the placeholder "<UUID>": not files a client wrote, and
// no client resumes them (ops.TestAnonymizedCorpusFilesDoNotResume).
var anonymized = map[string]bool{
	"claudeless/dotclaude/v2.1.12/plan-mode/session.jsonl":  true,
	"claudeless/dotclaude/v2.1.12/todo-write/session.jsonl": true,
}

// TestNoErrorOnSessionsTheClientsResumeWhole: every generated session and
// every session of ../shared/corpus (with its subagent transcripts, the
// prompt-suggestion agents of 2.1.29 among them) gets no validation error,
// but the two anonymized files that no client resumes. The clients resume
// the generated ones in harness.TestGeneratedSessionsResume and the corpus
// in ops.TestCorpusOperationsResume.
func TestNoErrorOnSessionsTheClientsResumeWhole(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*", "*.jsonl"))
	require.NoError(t, err)
	root := testcorpus.Require(t)
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			files = append(files, p)
		}
		return err
	}))
	checked := 0
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		if anonymized[filepath.ToSlash(rel)] {
			continue
		}
		s, err := chain.Load(p)
		require.NoError(t, err)
		r := Session(s)
		s.Close()
		assert.Empty(t, errorsOf(r), p)
		checked++
	}
	assert.Greater(t, checked, 50)
	t.Logf("%d sessions checked", checked)
}

// TestCopyUnderAnotherNameWarnsNothing: a session saved as export.jsonl (a
// name that is no session id) is checked against its own entries' id: no
// "mixed-session-id" warning for a whole session, one for a file that
// joins two sessions.
func TestCopyUnderAnotherNameWarnsNothing(t *testing.T) {
	data := readSession(t, "2.1.328", "multi-turn")
	other := readSession(t, "2.0.50", "multi-turn")
	codes := func(data []byte) map[string]bool {
		p := filepath.Join(t.TempDir(), "export.jsonl")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		s, err := chain.Load(p)
		require.NoError(t, err)
		defer s.Close()
		out := map[string]bool{}
		for _, pr := range Session(s).Problems {
			out[pr.Code] = true
		}
		return out
	}
	assert.False(t, codes(data)["mixed-session-id"], "one session under another name")
	assert.True(t, codes(append(append([]byte{}, data...), other...))["mixed-session-id"], "two sessions in one file")
}
