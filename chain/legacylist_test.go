package chain

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAProjectFolderIsListedOncePerBatch: whether a session has legacy
// subagents (2.0.x: agent-*.jsonl beside the sessions) is read in a
// listing of its project folder, and SubagentFiles listed the whole folder
// for every session: a batch (validate --all, info --all, redact --all,
// doctor) over a project of n sessions read n folders of n names, 0.75 s
// of CPU for 1,000 sessions and 9.1 s for 4,000. The folder is listed once
// while it stays the same folder (inode, modification time: a name added
// or removed changes it); one changed since is listed again; one modified
// in the last seconds is listed every time (git's racy-clean rule).
func TestAProjectFolderIsListedOncePerBatch(t *testing.T) {
	dir := t.TempDir()
	const sessions = 6
	old := time.Now().Add(-time.Hour)
	id := func(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1) }
	line := func(sid string) string {
		return `{"type":"user","isSidechain":true,"sessionId":"` + sid + `","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n"
	}
	for i := 0; i < sessions; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, id(i)+".jsonl"), []byte(line(id(i))), 0o600))
	}
	agent := func(name string, i int) {
		a := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(a, []byte(line(id(i))), 0o600))
		require.NoError(t, os.Chtimes(a, old, old))
	}
	agent("agent-a0.jsonl", 0)
	require.NoError(t, os.Chtimes(dir, old, old))
	owned := func(i int) []string {
		var out []string
		for _, f := range SubagentFiles(filepath.Join(dir, id(i)+".jsonl")) {
			out = append(out, filepath.Base(f.Path))
		}
		return out
	}
	before := legacyListings.Load()
	for i := 0; i < sessions; i++ {
		want := []string(nil)
		if i == 0 {
			want = []string{"agent-a0.jsonl"}
		}
		require.Equal(t, want, owned(i), "session %d", i)
	}
	require.Equal(t, int64(1), legacyListings.Load()-before,
		"a batch over the %d sessions of one folder listed it %d times", sessions, legacyListings.Load()-before)

	// a name added (the folder's time changes): listed again, seen
	agent("agent-b1.jsonl", 1)
	assert.Equal(t, []string{"agent-b1.jsonl"}, owned(1), "an agent file added since the listing")
	// a name removed: not seen any more
	require.NoError(t, os.Remove(filepath.Join(dir, "agent-a0.jsonl")))
	assert.Empty(t, owned(0), "an agent file removed since the listing")
	// the folder was modified just now: listed every time
	n := legacyListings.Load()
	owned(2)
	owned(3)
	assert.Equal(t, n+2, legacyListings.Load(), "a folder modified in the last seconds is not remembered")
	// the folder left alone since: remembered again
	require.NoError(t, os.Chtimes(dir, old, old))
	owned(4)
	n = legacyListings.Load()
	owned(5)
	assert.Equal(t, n, legacyListings.Load(), "an unchanged old folder is remembered")
}
