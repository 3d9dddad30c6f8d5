package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveSweepsEachFolderOnce: a move's journal swept the folder of each
// of its files for killed runs' temps once per file, reading the whole
// folder every time: a session with 859 subagent and tool-result files
// read 859 folders of 859 names (0.37 s of the 2.5 s move of the bench's
// dense shape). Each folder once a step, whatever the count of its files.
func TestMoveSweepsEachFolderOnce(t *testing.T) {
	cfg := t.TempDir()
	path, _ := installSessionOf(t, cfg, "-work-proj", "/work/proj")
	id := idOf(path)
	tr := filepath.Join(filepath.Dir(path), id, "tool-results")
	require.NoError(t, os.MkdirAll(tr, 0o700))
	const files = 30
	old := time.Now().Add(-time.Hour)
	for i := 0; i < files; i++ {
		f := filepath.Join(tr, fmt.Sprintf("r%02d.txt", i))
		require.NoError(t, os.WriteFile(f, []byte("output\n"), 0o600))
		require.NoError(t, os.Chtimes(f, old, old)) // not a file the client is writing
	}
	var mu sync.Mutex
	sweeps := map[string]int{}
	backup.TestHook = func(step string) {
		if d, ok := strings.CutPrefix(step, "sweep-temps:"); ok {
			mu.Lock()
			sweeps[filepath.Base(d)]++
			mu.Unlock()
		}
	}
	defer func() { backup.TestHook = nil }()
	_, errs, code := cliRun(t, "--config-dir", cfg, "-q", "move", id, "--to", "/work/other")
	require.Equal(t, 0, code, errs)
	moved := filepath.Join(cfg, "projects", "-work-other", id, "tool-results")
	got, err := os.ReadDir(moved)
	require.NoError(t, err)
	require.Len(t, got, files, "the tool results moved")
	assert.LessOrEqual(t, sweeps["tool-results"], 4, "the tool-results folders (from and to) swept %d times for %d files", sweeps["tool-results"], files)
}
