package backup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failAfter writes n bytes then fails with err, like a full disk would.
func failAfter(n int, err error) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, werr := w.Write([]byte(strings.Repeat("x", n))); werr != nil {
			return werr
		}
		return fmt.Errorf("writing line 42: %w", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name     string
		existing *os.FileMode // nil: no file yet
		mode     os.FileMode
		render   func(io.Writer) error
		wantErr  error // sentinel, or errAny
		wantMode os.FileMode
		want     string // content after the call
	}{
		{name: "new file default mode", render: str("hello\n"), wantMode: 0o600, want: "hello\n"},
		{name: "new file given mode", mode: 0o640, render: str("x"), wantMode: 0o640, want: "x"},
		{name: "keeps existing mode", existing: ptr(os.FileMode(0o644)), mode: 0o600, render: str("new"), wantMode: 0o644, want: "new"},
		{name: "render error keeps original", existing: ptr(os.FileMode(0o600)), render: failAfter(3<<20, errors.New("boom")), wantErr: errAny, wantMode: 0o600, want: "original"},
		{name: "ENOSPC keeps original", existing: ptr(os.FileMode(0o600)), render: failAfter(3<<20, syscall.ENOSPC), wantErr: ErrNoSpace, wantMode: 0o600, want: "original"},
		{name: "ENOSPC on new file leaves nothing", render: failAfter(10, syscall.ENOSPC), wantErr: ErrNoSpace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			if tc.existing != nil {
				require.NoError(t, os.WriteFile(path, []byte("original"), *tc.existing))
				require.NoError(t, os.Chmod(path, *tc.existing))
			}
			err := WriteFileAtomic(path, tc.mode, tc.render)
			requireNoTemps(t, dir)
			switch {
			case tc.wantErr == nil:
				require.NoError(t, err)
			case tc.wantErr == errAny:
				require.Error(t, err)
			default:
				require.ErrorIs(t, err, tc.wantErr)
			}
			if tc.want == "" {
				assert.NoFileExists(t, path)
				return
			}
			assert.Equal(t, tc.want, readString(t, path))
			assert.Equal(t, tc.wantMode, perm(t, path))
		})
	}
}

var errAny = errors.New("any error")

func ptr[T any](v T) *T { return &v }

func TestWriteFileAtomicNoSpaceError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	err := WriteFileAtomic(path, 0, failAfter(1, syscall.ENOSPC))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.ErrorIs(t, err, ErrNoSpace)
	assert.Contains(t, e.Msg, "no space left on device")
	assert.NotEmpty(t, e.Hint)
}

func TestWriteFileAtomicSymlink(t *testing.T) {
	testlink.Need(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o600))
	require.NoError(t, os.Symlink(real, link))
	// never written through (the link may lead out of the config dir),
	// never replaced
	require.ErrorIs(t, WriteFileAtomic(link, 0, str("new")), ErrSymlink)
	require.ErrorIs(t, WriteTo(link, true, str("new")), ErrSymlink)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "link must stay a link")
	assert.Equal(t, "old", readString(t, real))
}

func TestWriteFileAtomicLarge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	line := strings.Repeat("a", 999) + "\n"
	require.NoError(t, WriteFileAtomic(path, 0, func(w io.Writer) error {
		for range 10_000 {
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return nil
	}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.EqualValues(t, 10_000_000, fi.Size())
}

func TestWriteTo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	require.NoError(t, WriteTo(path, false, str("one")))
	assert.Equal(t, "one", readString(t, path))
	assert.Equal(t, os.FileMode(0o600), perm(t, path))

	require.NoError(t, os.Chmod(path, 0o644))
	require.ErrorIs(t, WriteTo(path, false, str("two")), ErrExists, "overwriting needs force")
	assert.Equal(t, "one", readString(t, path))
	require.NoError(t, WriteTo(path, true, str("two")), "overwriting is allowed with force")
	assert.Equal(t, "two", readString(t, path))
	assert.Equal(t, os.FileMode(0o644), perm(t, path))

	require.Error(t, WriteTo(filepath.Join(dir, "missing", "x"), false, str("x")))
	requireNoTemps(t, dir)
}

func TestCreateNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "new-proj", "new.jsonl")
	require.NoError(t, CreateNew(dir, path, str("clone\n")))
	assert.Equal(t, "clone\n", readString(t, path))
	assert.Equal(t, os.FileMode(0o600), perm(t, path))
	assert.Equal(t, os.FileMode(0o700), perm(t, filepath.Dir(path)))

	err := CreateNew(dir, path, str("other\n"))
	require.ErrorIs(t, err, ErrExists)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "clone\n", readString(t, path))

	// The file appears while rendering: the final link must refuse.
	racy := filepath.Join(dir, "racy.jsonl")
	err = CreateNew(dir, racy, func(w io.Writer) error {
		require.NoError(t, os.WriteFile(racy, []byte("theirs"), 0o600))
		_, err := io.WriteString(w, "ours")
		return err
	})
	require.ErrorIs(t, err, ErrExists)
	assert.Equal(t, "theirs", readString(t, racy))

	// A failing render leaves nothing.
	failed := filepath.Join(dir, "failed.jsonl")
	require.Error(t, CreateNew(dir, failed, failAfter(100, syscall.ENOSPC)))
	assert.NoFileExists(t, failed)
	requireNoTemps(t, dir)
}

func TestErrorType(t *testing.T) {
	e := &Error{Msg: "m", Hint: "h"}
	assert.Equal(t, "m", e.Error())
	assert.Equal(t, "h", e.HintText())
	wrapped := fmt.Errorf("ctx: %w", &Error{Msg: "x", Err: ErrLive})
	assert.ErrorIs(t, wrapped, ErrLive)
	assert.ErrorIs(t, fmt.Errorf("ctx: %w", &LiveError{PID: 1}), ErrLive)
	assert.ErrorIs(t, &Error{Msg: "x", Err: ErrAmbiguous}, ErrNoBackup, "an ambiguous prefix is no one backup")
}

func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	stale := filepath.Join(dir, ".s.jsonl.ccsurgeon-tmp-123")
	fresh := filepath.Join(dir, ".s.jsonl.ccsurgeon-tmp-456")
	other := filepath.Join(dir, ".t.jsonl.ccsurgeon-tmp-789")
	for _, p := range []string{stale, fresh, other} {
		require.NoError(t, os.WriteFile(p, []byte("junk"), 0o600))
	}
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, os.Chtimes(other, old, old))
	require.NoError(t, WriteFileAtomic(path, 0, str("x")))
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh, "may belong to a running ccsurgeon")
	assert.FileExists(t, other, "belongs to another file")
}
