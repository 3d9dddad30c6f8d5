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

// A batch of new files is linked in the background; the file that makes
// the batch visible (Last) comes only once every other one is in place,
// whole, under its name.
func TestDirSyncLastComesAfterTheWholeBatch(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var linked []string // the files present at each link, in order
	TestHook = func(step string) {
		if step != "create-before-link" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		n, _ := filepath.Glob(filepath.Join(dir, "side", "*.jsonl"))
		linked = append(linked, fmt.Sprint(len(n)))
	}
	defer func() { TestHook = nil }()
	ds := &DirSync{}
	const files = 100
	for k := range files {
		require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", fmt.Sprintf("a%03d.jsonl", k)), bytesRender(fmt.Sprintf("file %d\n", k))))
	}
	require.NoError(t, ds.Last(filepath.Join(dir, "main.jsonl"), bytesRender("main\n")))
	require.Len(t, linked, files+1)
	assert.Equal(t, fmt.Sprint(files), linked[files], "the main file was linked before every file of the batch was")
	for k := range files {
		b, err := os.ReadFile(filepath.Join(dir, "side", fmt.Sprintf("a%03d.jsonl", k)))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("file %d\n", k), string(b))
	}
	left, _ := filepath.Glob(filepath.Join(dir, "side", ".*"))
	assert.Empty(t, left, "temp files left")
}

// A file of the batch that fails in the background (its name taken while
// it was written) fails Last, which then links nothing.
func TestDirSyncBackgroundFailureStopsLast(t *testing.T) {
	dir := t.TempDir()
	ds := &DirSync{}
	taken := filepath.Join(dir, "side", "b.jsonl")
	require.NoError(t, ds.CreateNew(filepath.Join(dir, "side", "a.jsonl"), bytesRender("a\n")))
	require.NoError(t, ds.CreateNew(taken, func(w io.Writer) error {
		_, err := io.WriteString(w, "ours\n")
		if err == nil {
			err = os.WriteFile(taken, []byte("theirs\n"), 0o600) // appears while ours is written
		}
		return err
	}))
	err := ds.Last(filepath.Join(dir, "main.jsonl"), bytesRender("main\n"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrExists), "%v", err)
	_, serr := os.Lstat(filepath.Join(dir, "main.jsonl"))
	assert.True(t, errors.Is(serr, os.ErrNotExist), "the main file was linked after a failure")
	b, _ := os.ReadFile(taken)
	assert.Equal(t, "theirs\n", string(b), "the file that appeared was replaced")
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	left2, _ := filepath.Glob(filepath.Join(dir, ".*"))
	assert.Empty(t, append(left, left2...), "temp files left")
}
