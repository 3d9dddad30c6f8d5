package chain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLegacyAgentsAreReadOncePerBatch: a 2.0.x project keeps its
// subagents as agent-*.jsonl beside the sessions, and whose each one is
// can only be read in it; SubagentFiles read the head of every one for
// every session, so a batch (validate --all, redact --all, doctor) over
// 300 sessions with 1,500 agent files opened 450,000 files (13.6 s for
// validate --all). Each agent file is read once while it stays the same
// file (inode, size, time); one changed since is read again; one
// modified in the last seconds is read every time (git's racy-clean rule:
// a change within the clock's resolution does not show in its time).
func TestLegacyAgentsAreReadOncePerBatch(t *testing.T) {
	dir := t.TempDir()
	const sessions, agents = 6, 3
	old := time.Now().Add(-time.Hour)
	id := func(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1) }
	line := func(sid string) string {
		return `{"type":"user","isSidechain":true,"sessionId":"` + sid + `","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n"
	}
	for i := 0; i < sessions; i++ {
		p := filepath.Join(dir, id(i)+".jsonl")
		require.NoError(t, os.WriteFile(p, []byte(line(id(i))), 0o600))
		for k := 0; k < agents; k++ {
			a := filepath.Join(dir, fmt.Sprintf("agent-%02d%02d.jsonl", i, k))
			require.NoError(t, os.WriteFile(a, []byte(line(id(i))), 0o600))
			require.NoError(t, os.Chtimes(a, old, old))
		}
	}
	owned := func(i int) []string {
		var out []string
		for _, f := range SubagentFiles(filepath.Join(dir, id(i)+".jsonl")) {
			require.True(t, f.Legacy)
			out = append(out, filepath.Base(f.Path))
		}
		return out
	}
	before := headReads.Load()
	for i := 0; i < sessions; i++ {
		require.Len(t, owned(i), agents, "session %d", i)
		for _, name := range owned(i) {
			require.True(t, strings.HasPrefix(name, fmt.Sprintf("agent-%02d", i)), "session %d owns %s", i, name)
		}
	}
	require.Equal(t, int64(sessions*agents), headReads.Load()-before,
		"a batch over %d sessions read the heads of %d agent files", sessions, sessions*agents)

	// an agent file that changes hands (rewritten: another file, another
	// time) is read again
	moved := filepath.Join(dir, "agent-0000.jsonl")
	require.NoError(t, os.Remove(moved))
	require.NoError(t, os.WriteFile(moved, []byte(line(id(1))), 0o600))
	assert.Len(t, owned(0), agents-1)
	assert.Len(t, owned(1), agents+1)
	// modified just now and rewritten in place, same size, at once: read
	// every time, so the new owner shows
	require.NoError(t, os.WriteFile(moved, []byte(line(id(2))), 0o600))
	assert.Len(t, owned(1), agents)
	assert.Len(t, owned(2), agents+1)
	n := headReads.Load()
	owned(2)
	assert.Equal(t, n+1, headReads.Load(), "a file modified in the last seconds is not remembered")
}
