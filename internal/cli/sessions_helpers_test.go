package cli

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// twoSessionsOfThisFolder is a config dir whose project of the current
// folder holds two sessions, the older three hours old.
func twoSessionsOfThisFolder(t *testing.T) (cfg, older, newer string) {
	t.Helper()
	cfg = t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	project := chain.ProjectSlug(wd)
	older = installSession(t, cfg, project, "testdata/sessions/2.1.328/tools.jsonl")
	newer = installSession(t, cfg, project, "testdata/sessions/2.1.328/multi-turn.jsonl")
	old := time.Now().Add(-3 * time.Hour)
	require.NoError(t, os.Chtimes(older, old, old))
	return cfg, older, newer
}

// needControlCharacterNames skips a test whose subject is a file name
// holding a newline or an escape: Windows refuses such names.
func needControlCharacterNames(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("not run: file names with control characters cannot exist on Windows")
	}
}
