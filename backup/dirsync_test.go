package backup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bytesRender(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A batch of new files is made durable in the background; the file that
// makes the batch visible (Last) is linked only once every other one is
// whole and fsynced.
func TestDirSyncLastComesAfterTheWholeBatch(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	synced := 0
	var atLink []int // the files of the batch fsynced when a file is linked
	TestHook = func(step string) {
		mu.Lock()
		defer mu.Unlock()
		switch step {
		case "new-file-synced":
			synced++
		case "create-before-link":
			atLink = append(atLink, synced)
		}
	}
	defer func() { TestHook = nil }()
	ds := &DirSync{}
	const files = 100
	// the main file is rendered while the batch is still being written
	queued := make(chan struct{})
	last := make(chan error, 1)
	go func() {
		last <- ds.Last(filepath.Join(dir, "main.jsonl"), bytesRender("main\n"), func() error { <-queued; return nil })
	}()
	for k := range files {
		require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", fmt.Sprintf("a%03d.jsonl", k)), bytesRender(fmt.Sprintf("file %d\n", k))))
	}
	close(queued)
	require.NoError(t, <-last)
	require.Equal(t, []int{files}, atLink, "the main file was linked before every file of the batch was fsynced")
	for k := range files {
		b, err := os.ReadFile(filepath.Join(dir, "side", fmt.Sprintf("a%03d.jsonl", k)))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("file %d\n", k), string(b))
	}
	left, _ := filepath.Glob(filepath.Join(dir, "side", ".*"))
	assert.Empty(t, left, "temp files left")
}

// A file of the batch whose name is taken is refused, the file there
// left as it was; a file that failed in the background (its fsync) fails
// Last, which then links nothing.
func TestDirSyncBackgroundFailureStopsLast(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "side", "b.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(taken), 0o700))
	require.NoError(t, os.WriteFile(taken, []byte("theirs\n"), 0o600))
	ds := &DirSync{}
	require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", "a.jsonl"), bytesRender("a\n")))
	err := ds.CreateNew(taken, bytesRender("ours\n"))
	assert.True(t, errors.Is(err, ErrExists), "%v", err)
	b, _ := os.ReadFile(taken)
	assert.Equal(t, "theirs\n", string(b), "an existing file was written over")

	require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", "c.jsonl"), bytesRender("c\n")))
	ds.mu.Lock()
	ds.err = ErrNoSpace // as finishNew records a failed fsync
	ds.mu.Unlock()
	err = ds.Last(filepath.Join(dir, "main.jsonl"), bytesRender("main\n"), func() error { return nil })
	assert.True(t, errors.Is(err, ErrNoSpace), "%v", err)
	_, serr := os.Lstat(filepath.Join(dir, "main.jsonl"))
	assert.True(t, errors.Is(serr, os.ErrNotExist), "the main file was linked after a failure")
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, left, "temp files left")
}

// A failure of the caller's part of the batch (written) fails Last too,
// which links nothing and leaves no temp file.
func TestDirSyncLastFailsWithTheBatch(t *testing.T) {
	dir := t.TempDir()
	ds := &DirSync{}
	require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", "a.jsonl"), bytesRender("a\n")))
	err := ds.Last(filepath.Join(dir, "main.jsonl"), bytesRender("main\n"), func() error { return ErrNoSpace })
	assert.True(t, errors.Is(err, ErrNoSpace), "%v", err)
	_, serr := os.Lstat(filepath.Join(dir, "main.jsonl"))
	assert.True(t, errors.Is(serr, os.ErrNotExist), "the main file was linked after a failure")
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, left, "temp files left")
}

// TestDirSyncWritesIntoNoRootMadeAgain: a batch's roots are folders its
// caller made and marked (a new session's <id>/); one gone since (removed
// by another process) is not made again by the batch below Base, where no
// mark would name it for the next run's sweep: the file is refused, and
// nothing is left.
func TestDirSyncWritesIntoNoRootMadeAgain(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "projects", "-p", "0b7e5c1a-1111-4222-8333-944455556661")
	require.NoError(t, os.MkdirAll(filepath.Dir(root), 0o700))
	ds := &DirSync{Base: base, Roots: []string{root}}
	err := ds.CreateNew(filepath.Join(root, "subagents", "agent-a.jsonl"), bytesRender("{}\n"))
	require.ErrorIs(t, err, os.ErrNotExist)
	ds.RemoveMade()
	assert.NoDirExists(t, root)
}
