package backup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMoveMakesItsNewFilesDurableTogether: a move's new files, and the
// data of the files its backup links (the old files: the client may have
// appended to them a moment ago), are made durable before its point of no
// return, by one syncfs of their file system where the kernel reports
// write errors through it (Linux 5.8 and later), else by an fsync of
// each; and a syncfs that fails refuses the move with every file as it
// was. The backup's fsync of each old file took 80-100 ms of a move of
// dense (859 sidecars; by hand, 2026-11-28). One fsync a file of a session of 859
// small files had each wait on the disk's queue beside the transcript's
// writes (dense: 0.97-1.11 s against 0.90-0.97 with one syncfs, by hand,
// in turn; BENCHMARKS.md 2026-11-28). The member says which broke.
func TestMoveMakesItsNewFilesDurableTogether(t *testing.T) {
	members := []struct {
		name     string
		together bool
		fail     bool
		local    bool
	}{
		{"a kernel whose syncfs reports write errors", true, false, true},
		{"an older kernel", false, false, true},
		{"a file system syncfs is not trusted on (NFS, FUSE)", true, false, false},
		{"a syncfs that fails", true, true, true},
	}
	for _, m := range members {
		f := newMoveFixture(t.TempDir())
		f.write(t)
		var mu sync.Mutex
		fsynced, syncfs, linked := 0, 0, 0
		TestHook = func(step string) {
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(step, "temp-fsynced:") && strings.HasPrefix(strings.TrimPrefix(step, "temp-fsynced:"), f.newDir) {
				fsynced++
			}
			if strings.HasPrefix(step, "backup-source-fsynced:") {
				linked++
			}
			if strings.HasPrefix(step, "syncfs:") {
				syncfs++
			}
		}
		syncsTogetherFn = func() bool { return m.together }
		localDiskFn = func(int64) bool { return m.local }
		if m.fail {
			syncfsFn = func(int) error { return syscall.EIO }
		}
		_, err := Move(f.plan())
		TestHook, syncsTogetherFn, syncfsFn, localDiskFn = nil, syncsTogether, syncfs1, localDisk
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
		if m.together && m.local {
			require.Equal(t, 1, syncfs, "%s: syncfs calls (one file system)", m.name)
			require.Zero(t, fsynced, "%s: new files fsynced one by one", m.name)
			require.Zero(t, linked, "%s: old files fsynced one by one for the backup", m.name)
		} else {
			require.Zero(t, syncfs, "%s: syncfs calls", m.name)
			require.Equal(t, n, fsynced, "%s: new files fsynced", m.name)
			require.Equal(t, n-1, linked, "%s: old files fsynced for the backup (memory/ is not a session's)", m.name)
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

// TestBatchOfNewFilesIsDurableTogether: the files of a batch (a new
// session: a clone, a fork, a session made by --new; its sidecars and its
// main transcript) are made durable before the main transcript is linked
// into place, by one syncfs of their file system where the kernel reports
// write errors through it, else by an fsync of each; a batch made by name
// (no Base: -o DIR/, a folder of the user's, whose handles it does not
// hold) fsyncs each; and a syncfs that fails fails the batch, which
// links nothing and leaves nothing once removed. One fsync a file of a
// clone of the bulk shape (216 sidecars) summed 0.75 s of waits beside
// the transcript's 300 MB of writes (a trace, 2026-11-28). The member
// says which broke.
func TestBatchOfNewFilesIsDurableTogether(t *testing.T) {
	members := []struct {
		name     string
		together bool
		byName   bool
		fail     bool
		local    bool
	}{
		{"a kernel whose syncfs reports write errors", true, false, false, true},
		{"an older kernel", false, false, false, true},
		{"a batch made by name", true, true, false, true},
		{"a file system syncfs is not trusted on (NFS, FUSE)", true, false, false, false},
		{"a syncfs that fails", true, false, true, true},
	}
	for _, m := range members {
		base := t.TempDir()
		proj := filepath.Join(base, "projects", "-p")
		require.NoError(t, os.MkdirAll(proj, 0o700))
		want := map[string]string{}
		for k := range 12 {
			want[filepath.Join(proj, "s", "subagents", fmt.Sprintf("agent-%02d.jsonl", k))] = fmt.Sprintf("{\"n\":%d}\n", k)
		}
		for k := range 5 {
			want[filepath.Join(proj, "s", "tool-results", fmt.Sprintf("t%d.txt", k))] = strings.Repeat("x", 100*k)
		}
		main := filepath.Join(proj, "s.jsonl")
		var mu sync.Mutex
		var steps []string
		TestHook = func(step string) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, step)
		}
		syncsTogetherFn = func() bool { return m.together }
		localDiskFn = func(int64) bool { return m.local }
		if m.fail {
			syncfsFn = func(int) error { return syscall.EIO }
		}
		ds := &DirSync{Base: base}
		if m.byName {
			ds.Base = ""
		}
		queued := make(chan struct{})
		last := make(chan error, 1)
		go func() {
			last <- ds.Last(main, bytesRender("main\n"), func() error { <-queued; return nil })
		}()
		for p, c := range want {
			require.NoError(t, ds.CreateNew(p, bytesRender(c)), "%s: %s", m.name, p)
		}
		close(queued)
		err := <-last
		TestHook, syncsTogetherFn, syncfsFn, localDiskFn = nil, syncsTogether, syncfs1, localDisk
		count := func(prefix string) (n int) {
			for _, s := range steps {
				if strings.HasPrefix(s, prefix) {
					n++
				}
			}
			return n
		}
		at := func(prefix string) int {
			return slices.IndexFunc(steps, func(s string) bool { return strings.HasPrefix(s, prefix) })
		}
		if m.fail {
			require.Error(t, err, m.name)
			require.True(t, errors.Is(err, syscall.EIO), "%s: the error is not the syncfs's: %v", m.name, err)
			require.NoFileExists(t, main, "%s: the main file was linked after the batch failed", m.name)
			ds.RemoveMade()
			for p := range want {
				require.NoFileExists(t, p, "%s: left after the batch failed", m.name)
			}
			continue
		}
		require.NoError(t, err, m.name)
		n := len(want)
		if m.together && !m.byName && m.local {
			require.Equal(t, 1, count("syncfs:"), "%s: syncfs calls (one file system)", m.name)
			require.Zero(t, count("new-file-syncing:"), "%s: files of the batch fsynced one by one", m.name)
			require.Zero(t, count("temp-fsynced:"+main), "%s: the main file fsynced alone", m.name)
			require.Less(t, at("syncfs:"), at("create-before-link"), "%s: the main file was linked before the batch was durable", m.name)
		} else {
			require.Zero(t, count("syncfs:"), "%s: syncfs calls", m.name)
			require.Equal(t, n, count("new-file-syncing:"), "%s: files of the batch fsynced", m.name)
			require.Equal(t, 1, count("temp-fsynced:"+main), "%s: the main file fsynced", m.name)
		}
		require.Equal(t, n, count("new-file-done"), "%s: files of the batch finished", m.name)
		for p, c := range want {
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr, "%s: %s", m.name, p)
			require.Equal(t, c, string(b), "%s: %s", m.name, p)
		}
		b, rerr := os.ReadFile(main)
		require.NoError(t, rerr, m.name)
		require.Equal(t, "main\n", string(b), m.name)
	}
}

// TestLocalDisk: the file systems whose syncfs is trusted to make a
// batch durable, and some it is not (each file fsynced there).
func TestLocalDisk(t *testing.T) {
	for magic, want := range map[int64]bool{
		0xef53: true, 0x58465342: true, 0x9123683e: true, 0xf2f52010: true, 0x01021994: true,
		0x6969 /* nfs */ : false, 0x65735546 /* fuse */ : false, 0x794c7630 /* overlayfs */ : false,
		0xfe534d42 /* smb2 */ : false, 0: false,
	} {
		require.Equal(t, want, localDisk(magic), "%#x", magic)
	}
}

// TestMoveOfAFolderGoneSinceItWasRead: a folder of the moved files removed
// once the move has checked them (the client, or the user, cleaning a
// session's tool-results/) refuses the move with what changed, and every
// other file as it was, whether the move takes its old folders' file
// systems first (syncfs) or not: the syncfs's opening of the folders
// said "open the moved files' folders: no such file or directory".
func TestMoveOfAFolderGoneSinceItWasRead(t *testing.T) {
	for _, together := range []bool{true, false} {
		f := newMoveFixture(t.TempDir())
		f.write(t)
		p := f.plan()
		for i := range p.Files { // as the app plans a move: each file as it was read
			var serr error
			p.Files[i].Snapshot, serr = TakeSnapshot(p.Files[i].From)
			require.NoError(t, serr)
		}
		gone := filepath.Join(f.oldDir, f.ids[1], "tool-results")
		TestHook = func(step string) {
			if step == "move-after-journal" { // after the move's checks, before its backup
				require.NoError(t, os.RemoveAll(gone))
			}
		}
		syncsTogetherFn = func() bool { return together }
		_, err := Move(p)
		TestHook, syncsTogetherFn = nil, syncsTogether
		require.Error(t, err, "together %v", together)
		require.ErrorIs(t, err, ErrChanged, "together %v: %v", together, err)
		require.Contains(t, err.Error(), filepath.Join(gone, "r.txt")+" was deleted", "together %v", together)
		for rel, c := range f.files() {
			if strings.HasPrefix(rel, f.ids[1]+"/tool-results/") {
				continue
			}
			b, rerr := os.ReadFile(filepath.Join(f.oldDir, rel))
			require.NoError(t, rerr, "together %v: %s", together, rel)
			require.Equal(t, c, string(b), "together %v: %s changed", together, rel)
		}
		_, serr := os.Stat(f.newDir)
		require.True(t, os.IsNotExist(serr), "together %v: the new folder is left: %v", together, serr)
	}
}
