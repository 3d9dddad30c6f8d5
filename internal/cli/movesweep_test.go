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
	// a member per kind of pass over a folder: the journal's sweep for
	// killed moves' temps, the sweep for killed writes' temps before a
	// temp is made, a folder's fsync (the backup's folder and the new one)
	sweeps := map[string]map[string]int{"sweep-temps:": {}, "stale-temps:": {}, "dir-synced:": {}}
	backup.TestHook = func(step string) {
		for kind, n := range sweeps {
			if d, ok := strings.CutPrefix(step, kind); ok {
				mu.Lock()
				n[filepath.Base(d)]++
				mu.Unlock()
			}
		}
	}
	defer func() { backup.TestHook = nil }()
	_, errs, code := cliRun(t, "--config-dir", cfg, "-q", "move", id, "--to", "/work/other")
	require.Equal(t, 0, code, errs)
	moved := filepath.Join(cfg, "projects", "-work-other", id, "tool-results")
	got, err := os.ReadDir(moved)
	require.NoError(t, err)
	require.Len(t, got, files, "the tool results moved")
	for _, kind := range []string{"sweep-temps:", "stale-temps:", "dir-synced:"} {
		assert.LessOrEqual(t, sweeps[kind]["tool-results"], 4, "%s the tool-results folders (from, to and the backup's) passed over %d times for %d files", kind, sweeps[kind]["tool-results"], files)
	}
}

// TestMoveWritesItsFilesTogether: a move wrote each of a session's files
// under its new name one after the other, each waiting for its own fsync
// (859 files on the bench's dense shape: 2,603 fsyncs, serial, most of
// the move's 2.4 s). The first file's temp, made, waits (up to 5 s)
// for a second one to be written at the same time.
func TestMoveWritesItsFilesTogether(t *testing.T) {
	cfg := t.TempDir()
	path, _ := installSessionOf(t, cfg, "-work-proj", "/work/proj")
	id := idOf(path)
	tr := filepath.Join(filepath.Dir(path), id, "tool-results")
	require.NoError(t, os.MkdirAll(tr, 0o700))
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 8; i++ {
		f := filepath.Join(tr, fmt.Sprintf("r%02d.txt", i))
		require.NoError(t, os.WriteFile(f, []byte("output\n"), 0o600))
		require.NoError(t, os.Chtimes(f, old, old))
	}
	var mu sync.Mutex
	inFlight, most, waited, closed := 0, 0, false, false
	second := make(chan struct{})
	backup.TestHook = func(step string) {
		if step != "move-temp-made" {
			return
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		first := !waited
		waited = true
		if inFlight == 2 && most == 2 && !closed {
			closed = true
			close(second)
		}
		mu.Unlock()
		if first {
			select {
			case <-second:
			case <-time.After(5 * time.Second):
			}
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	}
	defer func() { backup.TestHook = nil }()
	_, errs, code := cliRun(t, "--config-dir", cfg, "-q", "move", id, "--to", "/work/other")
	require.Equal(t, 0, code, errs)
	assert.GreaterOrEqual(t, most, 2, "files written at once")
	got, err := os.ReadDir(filepath.Join(cfg, "projects", "-work-other", id, "tool-results"))
	require.NoError(t, err)
	assert.Len(t, got, 8, "the tool results moved")
}
