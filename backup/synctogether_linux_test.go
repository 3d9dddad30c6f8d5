package backup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMoveMakesItsNewFilesDurableTogether: a move's new files are made
// durable before its point of no return, by one syncfs of their file
// system where the kernel reports write errors through it (Linux 5.8 and
// later), else by an fsync of each; and a syncfs that fails refuses the
// move with every file as it was. One fsync a file of a session of 859
// small files had each wait on the disk's queue beside the transcript's
// writes (dense: 0.97-1.11 s against 0.90-0.97 with one syncfs, by hand,
// in turn; BENCHMARKS.md 2026-11-28). The member says which broke.
func TestMoveMakesItsNewFilesDurableTogether(t *testing.T) {
	members := []struct {
		name     string
		together bool
		fail     bool
	}{
		{"a kernel whose syncfs reports write errors", true, false},
		{"an older kernel", false, false},
		{"a syncfs that fails", true, true},
	}
	for _, m := range members {
		f := newMoveFixture(t.TempDir())
		f.write(t)
		var mu sync.Mutex
		fsynced, syncfs := 0, 0
		TestHook = func(step string) {
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(step, "temp-fsynced:") && strings.HasPrefix(strings.TrimPrefix(step, "temp-fsynced:"), f.newDir) {
				fsynced++
			}
			if strings.HasPrefix(step, "syncfs:") {
				syncfs++
			}
		}
		syncsTogetherFn = func() bool { return m.together }
		if m.fail {
			syncfsFn = func(int) error { return syscall.EIO }
		}
		_, err := Move(f.plan())
		TestHook, syncsTogetherFn, syncfsFn = nil, syncsTogether, syncfs1
		if m.fail {
			require.Error(t, err, m.name)
			require.True(t, errors.Is(err, syscall.EIO), "%s: the error is not the syncfs's: %v", m.name, err)
			for rel, c := range f.files() {
				b, rerr := os.ReadFile(filepath.Join(f.oldDir, rel))
				require.NoError(t, rerr, "%s: %s", m.name, rel)
				require.Equal(t, c, string(b), "%s: %s changed", m.name, rel)
			}
			_, serr := os.Stat(f.newDir)
			require.True(t, os.IsNotExist(serr), "%s: the new folder is left: %v", m.name, serr)
			continue
		}
		require.NoError(t, err, m.name)
		n := len(f.files())
		if m.together {
			require.Equal(t, 1, syncfs, "%s: syncfs calls (one file system)", m.name)
			require.Zero(t, fsynced, "%s: new files fsynced one by one", m.name)
		} else {
			require.Zero(t, syncfs, "%s: syncfs calls", m.name)
			require.Equal(t, n, fsynced, "%s: new files fsynced", m.name)
		}
		for rel, c := range f.files() {
			b, rerr := os.ReadFile(filepath.Join(f.newDir, rel))
			require.NoError(t, rerr, "%s: %s", m.name, rel)
			if strings.HasSuffix(rel, ".jsonl") {
				c = relocate(c)
			}
			require.Equal(t, c, string(b), "%s: %s", m.name, rel)
		}
	}
}

// TestKernelAtLeast: the kernel releases syncsTogether reads.
func TestKernelAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"5.8.0": true, "5.8": true, "5.7.19": false, "6.18.44-fc-v595": true, "4.19.0-26-amd64": false,
		"5.10.0-rc1": true, "5.8-rc3": true, "5.4.0-150-generic": false, "10.0": true, "": false, "x.y": false,
	} {
		require.Equal(t, want, kernelAtLeast(release, 5, 8), release)
	}
}
