//go:build windows

package backup

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ccsurgeon's own open copy of a session (openNoFollow shares delete
// access) never stops the rename over it, and still reads the old bytes.
func TestReplaceOverOwnOpenHandle(t *testing.T) {
	dir := t.TempDir()
	target, tmp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, ".s.tmp")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
	require.NoError(t, os.WriteFile(tmp, []byte("new\n"), 0o600))
	old, err := openNoFollow(target, os.O_RDONLY, 0)
	require.NoError(t, err)
	defer old.Close()
	require.NoError(t, replaceFile(tmp, target))
	b, _ := os.ReadFile(target)
	assert.Equal(t, "new\n", string(b))
	b, _ = io.ReadAll(old)
	assert.Equal(t, "old\n", string(b))
}

// A file another program holds open without delete sharing cannot be
// replaced on Windows: replaceFile retries for replaceBudget, then says so.
func TestReplaceOverForeignOpenFile(t *testing.T) {
	dir := t.TempDir()
	target, tmp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, ".s.tmp")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
	require.NoError(t, os.WriteFile(tmp, []byte("new\n"), 0o600))
	f, err := os.Open(target) // no FILE_SHARE_DELETE, as most programs open
	require.NoError(t, err)
	start := time.Now()
	err = replaceFile(tmp, target)
	f.Close()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Msg, "another program has it open")
	assert.GreaterOrEqual(t, time.Since(start), replaceBudget)
	b, _ := os.ReadFile(target)
	assert.Equal(t, "old\n", string(b), "nothing changed")
	require.NoError(t, replaceFile(tmp, target), "passes once it is closed")
}

// A read-only session file (attrib +r; os.Chmod 0o444 sets it) is not
// "held by another program": replaceFile says it is read-only at once,
// without the 3 s of retries, and changes nothing.
func TestReplaceOverReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	target, tmp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, ".s.tmp")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
	require.NoError(t, os.WriteFile(tmp, []byte("new\n"), 0o600))
	require.NoError(t, os.Chmod(target, 0o444))
	t.Cleanup(func() { _ = os.Chmod(target, 0o600) })
	start := time.Now()
	err := replaceFile(tmp, target)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Msg, "the file is read-only")
	assert.Contains(t, e.Hint, "attrib -r")
	assert.Less(t, time.Since(start), replaceBudget/2, "a read-only file was retried")
	b, _ := os.ReadFile(target)
	assert.Equal(t, "old\n", string(b), "nothing changed")
}

// The lock holder's line stays readable to the process that is refused
// (the lock is taken far past the end of the file).
func TestLockHolderReadableWhileLocked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.lock")
	a, err := openNoFollow(p, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.NoError(t, err)
	held, err := lockExclusive(a)
	require.NoError(t, err)
	require.False(t, held)
	_, err = a.WriteAt([]byte("123 strip-thinking 2026-11-27T00:00:00Z\n"), 0)
	require.NoError(t, err)
	b, err := openNoFollow(p, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.NoError(t, err)
	held, err = lockExclusive(b)
	require.NoError(t, err)
	assert.True(t, held)
	buf := make([]byte, 64)
	n, _ := b.ReadAt(buf, 0)
	assert.Contains(t, string(buf[:n]), "123 strip-thinking")
	b.Close()
	releaseLockFile(a, filepath.Dir(p), p)
	assert.NoFileExists(t, p)
}
