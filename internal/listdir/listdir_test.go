package listdir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatchingReadsNoFolderAsAPattern: the folder is a place, not a
// pattern, whatever its name; the pattern matches names only, and the
// paths come back sorted. filepath.Glob of the same path found nothing
// under `br[1]` and a backslash (off Windows).
func TestMatchingReadsNoFolderAsAPattern(t *testing.T) {
	names := []string{"br[1]", "star*x", "q?x", "cl]x", "[", "plain"}
	if runtime.GOOS != "windows" {
		names = append(names, `back\slash`)
	}
	for _, name := range names {
		dir := filepath.Join(t.TempDir(), name, "subagents")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "agent-dir.jsonl.d"), 0o700))
		for _, f := range []string{"agent-b.jsonl", "agent-a.jsonl", "agent-a.meta.json", "other.jsonl"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o600))
		}
		assert.Equal(t, []string{filepath.Join(dir, "agent-a.jsonl"), filepath.Join(dir, "agent-b.jsonl")},
			Matching(dir, "agent-*.jsonl"), "under %q", name)
		assert.Len(t, Matching(dir, "*"), 5, "under %q", name)
		assert.Nil(t, Matching(filepath.Join(dir, "none"), "*"), "a folder that is not there")
	}
}
