package backup

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errBusy = errors.New("busy")

// A rename over a file another program holds open (Windows refuses it) is
// retried with growing waits for a bounded time, then fails with an error
// that names the file and says why; any other error is not retried.
func TestRetryReplace(t *testing.T) {
	busy := func(err error) replaceVerdict {
		if errors.Is(err, errBusy) {
			return replaceRetry
		}
		return replaceFail
	}
	t.Run("passes once the file is closed", func(t *testing.T) {
		tries, waits := 0, []time.Duration{}
		err := retryReplace("/s.jsonl", func() error {
			if tries++; tries < 4 {
				return errBusy
			}
			return nil
		}, busy, func(d time.Duration) { waits = append(waits, d) }, time.Second)
		require.NoError(t, err)
		assert.Equal(t, 4, tries)
		assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}, waits)
	})
	t.Run("gives up after the budget", func(t *testing.T) {
		var slept time.Duration
		tries := 0
		err := retryReplace(`C:\Users\me\.claude\projects\p\s.jsonl`, func() error { tries++; return errBusy }, busy,
			func(d time.Duration) {
				assert.LessOrEqual(t, d, 500*time.Millisecond, "no single wait is long")
				slept += d
			}, 3*time.Second)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, 3*time.Second, slept, "waits exactly the budget")
		assert.Contains(t, e.Msg, `cannot replace C:\Users\me\.claude\projects\p\s.jsonl: another program has it open`)
		assert.NotEmpty(t, e.Hint)
		assert.ErrorIs(t, err, errBusy, "the OS error stays reachable")
		assert.Greater(t, tries, 5)
	})
	t.Run("other errors are not retried", func(t *testing.T) {
		tries := 0
		err := retryReplace("/s.jsonl", func() error { tries++; return os.ErrNotExist }, busy,
			func(time.Duration) { t.Fatal("slept") }, time.Second)
		assert.ErrorIs(t, err, os.ErrNotExist)
		assert.Equal(t, 1, tries)
	})
}

// A rename that Windows refuses is told apart by why (issue 27 polish): a
// sharing or lock violation, or access denied on a file another program
// holds open without delete sharing, passes once that program closes it
// and is retried; access denied on a file with the read-only attribute,
// or on one the user may not delete (its permissions), never passes and
// was retried for 3 s, then blamed on "another program". The decision is
// a function of the rename's error code, the target's attributes and what
// opening the target for deletion gives (Windows codes, tested here on
// every OS).
func TestReplaceDeniedToldFromBusy(t *testing.T) {
	const (
		ok            = 0
		accessDenied  = 5
		sharing       = 32
		lock          = 33
		notFound      = 2
		readOnly      = 0x1
		archive       = 0x20
		noAttrs       = 0xFFFFFFFF // INVALID_FILE_ATTRIBUTES: could not be read
		normal        = 0x80
		readOnlyArchv = readOnly | archive
	)
	for _, c := range []struct {
		what              string
		code, attrs, open uint32
		want              replaceVerdict
	}{
		{"sharing violation", sharing, archive, sharing, replaceRetry},
		{"lock violation", lock, normal, ok, replaceRetry},
		{"held open without delete sharing", accessDenied, archive, sharing, replaceRetry},
		{"delete probe passes: transient", accessDenied, normal, ok, replaceRetry},
		{"read-only attribute", accessDenied, readOnly, accessDenied, replaceReadOnly},
		{"read-only and held open", accessDenied, readOnlyArchv, sharing, replaceReadOnly},
		{"permissions deny deletion", accessDenied, archive, accessDenied, replaceDenied},
		{"attributes unreadable, delete denied", accessDenied, noAttrs, accessDenied, replaceDenied},
		{"attributes unreadable, held", accessDenied, noAttrs, sharing, replaceRetry},
		{"not found", notFound, noAttrs, notFound, replaceFail},
	} {
		assert.Equal(t, c.want, classifyReplace(c.code, c.attrs, c.open), c.what)
	}

	target := `C:\Users\me\.claude\projects\p\s.jsonl`
	denied := errors.New("Access is denied.")
	for verdict, want := range map[replaceVerdict][2]string{
		replaceReadOnly: {"cannot replace " + target + ": the file is read-only", `attrib -r "` + target + `"`},
		replaceDenied:   {"cannot replace " + target + ": access denied by the file's permissions", `icacls "` + target + `"`},
	} {
		tries := 0
		err := retryReplace(target, func() error { tries++; return denied }, func(error) replaceVerdict { return verdict },
			func(time.Duration) { t.Fatal("slept: a denial that never passes was retried") }, 3*time.Second)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, 1, tries)
		assert.Contains(t, e.Msg, want[0])
		assert.NotContains(t, e.Msg, "another program")
		assert.Contains(t, e.Hint, want[1])
		assert.ErrorIs(t, err, denied, "the OS error stays reachable")
	}
}

// openNoFollow refuses a symlink at the name (it would lead out of the
// config dir), reads a FIFO-free regular file, and creates with O_CREATE.
func TestOpenNoFollow(t *testing.T) {
	testlink.Need(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	require.NoError(t, os.WriteFile(real, []byte("x\n"), 0o600))
	link := filepath.Join(dir, "link.jsonl")
	require.NoError(t, os.Symlink(real, link))

	f, err := openNoFollow(real, os.O_RDONLY, 0)
	require.NoError(t, err)
	f.Close()
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_CREATE} {
		_, err = openNoFollow(link, flag, DefaultMode)
		require.Error(t, err, "flag %#x", flag)
	}
	dangling := filepath.Join(dir, "dangling.lock")
	require.NoError(t, os.Symlink(filepath.Join(dir, "elsewhere"), dangling))
	_, err = openNoFollow(dangling, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(dir, "elsewhere"), "nothing is created through a link")

	nf := filepath.Join(dir, "new.lock")
	f, err = openNoFollow(nf, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.NoError(t, err)
	f.Close()
	fi, err := os.Stat(nf)
	require.NoError(t, err)
	assert.Equal(t, DefaultMode, fi.Mode().Perm())
}

// The lock is exclusive between open files, and released with its file.
func TestLockExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.lock")
	a, err := openNoFollow(p, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.NoError(t, err)
	held, err := lockExclusive(a)
	require.NoError(t, err)
	require.False(t, held)
	b, err := openNoFollow(p, os.O_RDWR|os.O_CREATE, DefaultMode)
	require.NoError(t, err)
	defer b.Close()
	held, err = lockExclusive(b)
	require.NoError(t, err)
	assert.True(t, held, "a second open file does not get the lock")
	releaseLockFile(a, filepath.Dir(p), p)
	assert.NoFileExists(t, p)
}

// changeTime is the kernel's: a file whose modification time is set back
// keeps a change time of now.
func TestChangeTimeCannotBeSetBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), "backup.json")
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	old := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	c, ok := changeTime(p)
	require.True(t, ok)
	assert.WithinDuration(t, time.Now(), c, time.Minute)
}

// Where the file system folds case, a session named by a path typed in
// other capitals is in the config dir's projects all the same: it gets the
// same backup key, and so the same one-writer lock.
func TestInProjectsFoldsCaseWhereTheOSDoes(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "Claude")
	other := filepath.Join(filepath.Dir(cfg), "claude", "PROJECTS", "-Users-me-proj")
	for goos, want := range map[string]bool{"linux": false, "darwin": true, "windows": true} {
		old := chain.HostOS
		chain.HostOS = goos
		assert.Equal(t, want, InProjects(cfg, other), goos)
		assert.Equal(t, want, KeyFor(cfg, "3f2a9c1e", other) == "3f2a9c1e", goos)
		// -o's rule: anything under projects/, in other capitals too
		assert.Equal(t, want, UnderProjects(cfg, filepath.Join(other, "copy.jsonl")), goos)
		assert.Equal(t, want, UnderProjects(cfg, filepath.Dir(other)), goos)
		assert.False(t, UnderProjects(cfg, filepath.Join(filepath.Dir(cfg), "claude", "projects-old", "x.jsonl")), goos)
		assert.True(t, UnderProjects(cfg, filepath.Join(cfg, "projects", "a", "b", "c.jsonl")), goos)
		assert.False(t, UnderProjects(cfg, filepath.Join(cfg, "c.jsonl")), goos)
		chain.HostOS = old
	}
}

// The lock is never held by two at once across a release: a process that
// takes it at the instant the holder lets go (here, at the step between
// the two halves of releaseLockFile) holds it alone, and the next one is
// refused. Windows closed the file before removing it: a process that
// locked the old file then kept a lock on a file the removal took away,
// and the next created a new one and locked it too.
func TestLockNeverHeldTwiceAcrossARelease(t *testing.T) {
	cfg := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(cfg, "projects"), 0o700)) // a config dir has one
	const key = "1c2b3a4d-0000-4000-8000-000000000000"
	a, err := Lock(cfg, key, "first")
	require.NoError(t, err)
	var b *SessionLock
	var berr error
	taken := false
	TestHook = func(step string) {
		if step == "lock-file-unlinked" && !taken {
			taken = true
			b, berr = Lock(cfg, key, "second")
		}
	}
	a.Unlock()
	TestHook = nil
	require.True(t, taken, "releaseLockFile passed its step")
	c, cerr := Lock(cfg, key, "third")
	if b != nil && c != nil {
		t.Fatalf("the lock of %s is held twice: by the one that took it as the first let go, and by the next", key)
	}
	if b != nil {
		assert.ErrorIs(t, cerr, ErrLocked, "the next one is refused while the second holds it")
		b.Unlock()
	} else {
		// Windows without POSIX deletion: the old file is only marked for
		// deletion until its last handle closes, and cannot be opened
		t.Logf("the second did not get the lock: %v", berr)
	}
	if c != nil {
		c.Unlock()
	}
}

// TestLockWhileAnotherRunEmptiesItsFolder: a run's Unlock removes the
// folders of ccsurgeon it leaves empty (backups/, then ccsurgeon/), and a
// batch runs two sessions at a time: the other session's Lock, between
// making those folders and opening its lock file in them (or while it
// made them: a folder it had opened on the way removed), failed with
// "create backup directory: ... no such file or directory" (1 batch in
// 25 of 12 sessions, TestABatchSweepsEachProjectFolderOnce). The folders
// removed at each step of the Lock: it makes them again and takes its
// lock. A member per step.
func TestLockWhileAnotherRunEmptiesItsFolder(t *testing.T) {
	for _, at := range []string{"mkdir:", "made:"} {
		t.Run(at, func(t *testing.T) {
			cfg := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(cfg, "projects"), 0o700))
			const key = "1c2b3a4d-0000-4000-8000-000000000000"
			root := BackupsRoot(cfg)
			removed := false
			setHook(t, func(step string) {
				if step != at+root || removed {
					return
				}
				if at == "mkdir:" {
					// made by the other run, about to be emptied by it
					require.NoError(t, os.MkdirAll(root, 0o700))
				}
				removed = true
				require.NoError(t, os.Remove(root))
				require.NoError(t, os.Remove(filepath.Dir(root)))
			})
			l, err := Lock(cfg, key, "test")
			require.NoError(t, err)
			assert.True(t, removed, "the step was reached")
			assert.FileExists(t, filepath.Join(root, key+".lock"))
			l.Unlock()
		})
	}
}
