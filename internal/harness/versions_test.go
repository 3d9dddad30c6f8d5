//go:build experiments

package harness

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExpVersionsAgree resumes every 2.1.x generated session (shapes/
// included) with 2.1.328 and with the newest pinned client in one
// environment and logs what differs in the request: the messages
// (normalized), the number of tools and the system prompt's size.
// Evidence for FINDINGS.md "2.1.328 and 2.1.330".
func TestExpVersionsAgree(t *testing.T) {
	old, cur := ClientByVersion(t, "2.1.328"), Latest(t)
	root, err := RepoRoot()
	require.NoError(t, err)
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "sessions", "2.1.328", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(root, "testdata", "sessions", "2.1.328", "shapes", "*.jsonl"))
	for _, f := range append(files, more...) {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			id := e.InstallSession(t, f)
			a := e.MustResume(t, old, id)
			b := e.MustResume(t, cur, id)
			n := NewNormalizer(e, id)
			d := n.DiffMessages(a.Messages, b.Messages)
			tools := func(r ResumeResult) int { ts, _ := r.Request.Parsed["tools"].([]any); return len(ts) }
			t.Logf("VERSIONS %s: %s vs %s: messages %d/%d same=%v tools %d/%d system %d/%d bytes%s",
				name, old, cur, len(a.Messages), len(b.Messages), d == "", tools(a), tools(b), len(a.Request.System()), len(b.Request.System()),
				map[bool]string{true: "", false: "\n" + truncate(d, 1500)}[d == ""])
		})
	}
}
