//go:build linux

package app

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testmount"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The attacks on a move that writes its files several at a time (its
// backup beside its temps, eight files at a time each): a session with
// many sidecar files, each of its own mode, owner (as root) and time.

// manyEnv is a moveEnv whose session has n more tool results, t000.txt...
type manyEnv struct {
	moveEnv
	oldDir, side string // the session's project folder, its tool-results/
	newPath      string // the project path it moves to
}

func newManyMoveEnv(t *testing.T, n int) manyEnv {
	t.Helper()
	e := manyEnv{moveEnv: newMoveEnv(t, "tools", "old")}
	e.oldDir = filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
	e.side = filepath.Join(e.oldDir, e.id, "tool-results")
	e.newPath = filepath.Join(e.root, "new")
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	modes := []os.FileMode{0o600, 0o640, 0o644, 0o400, 0o660}
	for i := range n {
		p := filepath.Join(e.side, fmt.Sprintf("t%03d.txt", i))
		line := fmt.Sprintf("output %d of a tool\n", i)
		require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte(line), 1+i*37%200), 0o600))
		require.NoError(t, os.Chmod(p, modes[i%len(modes)]))
		if os.Geteuid() == 0 {
			require.NoError(t, os.Lchown(p, 4000+i%3, 5000+i%2))
		}
		mt := base.Add(-time.Duration(i)*time.Second - time.Duration(i*1234567))
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	return e
}

func (e manyEnv) sidecar(i int) string { return filepath.Join(e.side, fmt.Sprintf("t%03d.txt", i)) }

// newPlace is where old (a file of the session's old project folder) is
// once moved.
func (e manyEnv) newPlace(old string) string {
	rel, _ := filepath.Rel(e.oldDir, old)
	return filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.newPath), rel)
}

// fileFact is what a move must keep of a file: its bytes, mode, owner and
// modification time.
type fileFact struct {
	data       string
	mode       fs.FileMode
	uid, gid   uint32
	mtimeNanos int64
}

// facts maps each regular file below root (by its path relative to root)
// to its facts.
func facts(t *testing.T, root string) map[string]fileFact {
	t.Helper()
	out := map[string]fileFact{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fileFact{string(b), fi.Mode(), st.Uid, st.Gid, fi.ModTime().UnixNano()}
		return nil
	}))
	return out
}

// assertRolledBack: the refused move left the session's files as they
// were (bytes, mode, owner, time: before), nothing at its new place, no
// backup, no journal, no temp file in the config dir.
func (e manyEnv) assertRolledBack(t *testing.T, before map[string]fileFact, skip ...string) {
	t.Helper()
	after := facts(t, filepath.Join(e.cfg, "projects"))
	for _, s := range skip { // a file the test itself replaced
		rel, _ := filepath.Rel(filepath.Join(e.cfg, "projects"), s)
		delete(before, rel)
		delete(after, rel)
	}
	assert.Equal(t, before, after, "the refused move changed the config dir's projects")
	backups, _ := filepath.Glob(filepath.Join(backup.BackupsRoot(e.cfg), "*", "*"))
	for _, b := range backups {
		ents, _ := os.ReadDir(b)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the refused move left a backup %s holding %v", b, names)
	}
	left, _ := filepath.Glob(filepath.Join(backup.JournalDir(e.cfg), "*"))
	assert.Empty(t, left, "the refused move left its journal")
	_ = filepath.WalkDir(e.cfg, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".ccsurgeon-") && !strings.HasSuffix(d.Name(), ".lock") {
			t.Errorf("the refused move left %s", p)
		}
		return nil
	})
}

// TestMoveRefusedForOneFileAmongManyNamesTheFirst: a move of a session
// of 120 sidecar files, one or two of which cannot be moved while the
// others are being written: the move is refused, everything rolled
// back, and the refusal names the first such file in the files' order,
// in the same words run after run. A member per way a file fails: two
// sidecars become named pipes, or links to a file outside the config
// dir, once the move has checked them; the new place's tool-results
// folder on a read-only file system; a config dir on a file system too
// full for the new copies (met by whichever file is written when the
// space runs out: the backup's manifest, its record of the move, one of
// the temps; told in the same words, naming none).
func TestMoveRefusedForOneFileAmongManyNamesTheFirst(t *testing.T) {
	const n, runs = 120, 5
	members := []struct {
		name string
		set  func(t *testing.T, e *manyEnv) (skip []string)
		want func(t *testing.T, e manyEnv, err error)
	}{
		{"two sidecars become named pipes", func(t *testing.T, e *manyEnv) []string {
			e.swapAt(t, "move-after-journal", "fifo", e.sidecar(81), e.sidecar(37))
			return []string{e.sidecar(37), e.sidecar(81)}
		}, func(t *testing.T, e manyEnv, err error) {
			var na *backup.NotAFileError
			require.True(t, errors.As(err, &na), "not a typed refusal: %T %v", err, err)
			assert.Equal(t, e.sidecar(37), na.Path, "not the first in order")
		}},
		{"two sidecars become links out of the config dir", func(t *testing.T, e *manyEnv) []string {
			e.swapAt(t, "move-after-journal", "link", e.sidecar(81), e.sidecar(37))
			return []string{e.sidecar(37), e.sidecar(81)}
		}, func(t *testing.T, e manyEnv, err error) {
			var na *backup.NotAFileError
			var se *backup.SymlinkError
			require.True(t, errors.As(err, &na) || errors.As(err, &se), "not a typed refusal: %T %v", err, err)
			if na != nil {
				assert.Equal(t, e.sidecar(37), na.Path, "not the first in order")
			} else {
				assert.Equal(t, e.sidecar(37), se.Path, "not the first in order")
			}
		}},
		{"the new tool-results folder is read-only", func(t *testing.T, e *manyEnv) []string {
			if os.Geteuid() != 0 {
				testmount.Cannot(t, "a read-only bind mount needs root")
			}
			dir := e.newPlace(e.side)
			require.NoError(t, os.MkdirAll(dir, 0o700))
			require.NoError(t, syscall.Mount(dir, dir, "", syscall.MS_BIND, ""))
			t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
			require.NoError(t, syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""))
			return nil
		}, func(t *testing.T, e manyEnv, err error) {
			require.True(t, errors.Is(err, syscall.EROFS), "%T %v", err, err)
			assert.Contains(t, err.Error(), filepath.Join(e.newPlace(e.side), "bctrnos8p.txt")+",", "not the first in order (the folder's first file: bctrnos8p.txt, then t000...)")
			assert.NotContains(t, err.Error(), ".ccsurgeon-", "the refusal names a temp file of the move's")
		}},
		{"two sidecars may not be removed (append-only, immutable)", func(t *testing.T, e *manyEnv) []string {
			if os.Geteuid() != 0 {
				testmount.Cannot(t, "setting a file immutable needs root")
			}
			const immutable, appendOnly = 0x10, 0x20 // FS_IMMUTABLE_FL, FS_APPEND_FL: no removal
			setFlag := func(p string, flag uint32, on bool) error {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				defer f.Close()
				was, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
				if err != nil {
					return err
				}
				if on {
					was |= flag
				} else {
					was &^= flag
				}
				return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(was))
			}
			for p, flag := range map[string]uint32{e.sidecar(37): appendOnly, e.sidecar(81): immutable} {
				t.Cleanup(func() { _ = setFlag(p, flag, false) })
				if err := setFlag(p, flag, true); err != nil {
					testmount.Cannot(t, "this file system keeps no such flag: %v", err)
				}
			}
			return nil
		}, func(t *testing.T, e manyEnv, err error) {
			assert.Contains(t, err.Error(), e.sidecar(37), "not the first in order")
			assert.NotContains(t, err.Error(), "part-way")
		}},
		{"the disk fills up with the new copies", func(t *testing.T, e *manyEnv) []string {
			e.onSmallDisk(t)
			return nil
		}, func(t *testing.T, e manyEnv, err error) {
			require.True(t, errors.Is(err, backup.ErrNoSpace), "%T %v", err, err)
		}},
	}
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) {
			said := map[string]int{}
			for range runs {
				e := newManyMoveEnv(t, n)
				skip := m.set(t, &e)
				before := facts(t, filepath.Join(e.cfg, "projects"))
				_, _, err := e.run(MoveOptions{Session: e.id, To: e.newPath})
				backup.TestHook = nil
				require.Error(t, err, "the move went on")
				m.want(t, e, err)
				// the new place's folders made for the move go with it
				// (a mount point stays: it was there before)
				if m.name != "the new tool-results folder is read-only" {
					assert.NoDirExists(t, filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.newPath)))
				}
				e.assertRolledBack(t, before, skip...)
				words := strings.ReplaceAll(err.Error(), e.root, "ROOT")
				said[strings.ReplaceAll(words, chain.ProjectSlug(e.root), "ROOT")]++
				e = manyEnv{} // (a later run's own config dir)
			}
			assert.Len(t, said, 1, "the refusal's words changed from run to run: %v", said)
		})
	}
}

// swapAt replaces each of paths by a node of kind (swapNode: a link to a
// file outside the config dir of its size and time, a named pipe) at the
// first call of the hook step.
func (e manyEnv) swapAt(t *testing.T, step, kind string, paths ...string) {
	var once sync.Once
	backup.TestHook = func(s string) {
		if s == step {
			once.Do(func() {
				for i, p := range paths {
					swapNode(t, p, kind, filepath.Join(e.root, fmt.Sprintf("outside-%d.txt", i)))
				}
			})
		}
	}
	t.Cleanup(func() { backup.TestHook = nil })
}

// onSmallDisk puts e's config dir on a file system of its own (a tmpfs)
// with room for nine tenths of the new copies of its files: a move's
// temps fill it while its other files are being written.
func (e *manyEnv) onSmallDisk(t *testing.T) { e.onOwnDisk(t, "cfg", true) }

// onOwnDisk puts e's config dir on a tmpfs of its own, as the folder sub
// of it ("": the mount point itself), with room for nine tenths of the new
// copies of its files (small) or plenty.
func (e *manyEnv) onOwnDisk(t *testing.T, sub string, small bool) {
	t.Helper()
	fsDir := filepath.Join(e.root, "small")
	require.NoError(t, os.Mkdir(fsDir, 0o700))
	testmount.Tmpfs(t, fsDir, "16m")
	cfg := filepath.Join(fsDir, sub)
	var need int64
	require.NoError(t, filepath.Walk(e.cfg, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.cfg, p)
		to := filepath.Join(cfg, rel)
		if fi.IsDir() {
			return os.MkdirAll(to, fi.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		need += (fi.Size() + 4095) / 4096 * 4096
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if err := os.Lchown(to, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
		return os.Chtimes(to, fi.ModTime(), fi.ModTime())
	}))
	var sf syscall.Statfs_t
	require.NoError(t, syscall.Statfs(fsDir, &sf))
	used := int64(sf.Blocks-sf.Bfree) * sf.Bsize
	if small {
		require.NoError(t, syscall.Mount("tmpfs", fsDir, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d", used+need*9/10)))
	}
	e.cfg = cfg
	e.oldDir = filepath.Join(cfg, "projects", chain.ProjectSlug(e.old))
	e.side = filepath.Join(e.oldDir, e.id, "tool-results")
}

// TestMoveFollowsNoSwapWhileItWritesManyFiles: while a move writes its
// backup and its temps side by side (eight files at a time each), one who
// shares the config dir swaps a node at a hook of that phase (the k-th
// backup file, the k-th temp written): a sidecar not yet read for a link
// to a file outside the config dir (of its size and time) or a named
// pipe; the session's old tool-results/ folder for a link to a copy of it
// outside; the new place's tool-results/ folder (its temps being written)
// renamed away for a link to an empty folder outside; the backup's
// tool-results/ folder (its links being made) likewise. Nothing is read
// from or written to outside the config dir, the move is refused with a
// typed error (a link met: *SymlinkError, a node that is not a file:
// *NotAFileError) naming the swapped node, the move rolled back.
func TestMoveFollowsNoSwapWhileItWritesManyFiles(t *testing.T) {
	const n = 120
	type member struct {
		what, step string
		k          int // the swap at the k-th call of step (0: the 6th)
		// swap makes the swap; it returns the node the refusal must name
		// and the outside folder whose files must stay as they are
		swap func(t *testing.T, e manyEnv, outside string) (named string)
	}
	sidecar := func(kind string) func(t *testing.T, e manyEnv, outside string) string {
		return func(t *testing.T, e manyEnv, outside string) string {
			victim := e.sidecar(n - 1) // the last in order: not read yet
			require.NoError(t, os.Mkdir(outside, 0o700))
			swapNode(t, victim, kind, filepath.Join(outside, "secret.txt"))
			return victim
		}
	}
	// a folder swapped for a link in one step (renameat2 RENAME_EXCHANGE):
	// no moment without either; what the outside folder holds is a
	// copy of the folder (with "planted" for ccsurgeon's own names)
	exchange := func(t *testing.T, e manyEnv, d, outside string, copyIt bool) {
		require.NoError(t, os.Mkdir(outside, 0o700))
		if strings.HasSuffix(outside, "fifo") { // a named pipe in the folder's place, not a link
			pipe := filepath.Join(e.root, "pipe")
			require.NoError(t, mkfifo(pipe))
			require.NoError(t, unix.Renameat2(unix.AT_FDCWD, pipe, unix.AT_FDCWD, d, unix.RENAME_EXCHANGE))
			return
		}
		if copyIt {
			ents, err := os.ReadDir(d)
			require.NoError(t, err)
			for _, ent := range ents {
				fi, err := os.Lstat(filepath.Join(d, ent.Name()))
				if err != nil || !fi.Mode().IsRegular() {
					continue
				}
				b := bytes.Repeat([]byte("S"), int(fi.Size()))
				if backup.IsOwnName(ent.Name()) {
					b = []byte("planted")
				}
				to := filepath.Join(outside, ent.Name())
				require.NoError(t, os.WriteFile(to, b, 0o600))
				require.NoError(t, os.Chtimes(to, fi.ModTime(), fi.ModTime()))
			}
		}
		link := filepath.Join(e.root, "link-to-outside")
		require.NoError(t, os.Symlink(outside, link))
		require.NoError(t, unix.Renameat2(unix.AT_FDCWD, link, unix.AT_FDCWD, d, unix.RENAME_EXCHANGE))
	}
	oldFolder := func(t *testing.T, e manyEnv, outside string) string {
		exchange(t, e, e.side, outside, true)
		return e.side
	}
	folderOf := func(dir func(e manyEnv) string) func(t *testing.T, e manyEnv, outside string) string {
		return func(t *testing.T, e manyEnv, outside string) string {
			d := dir(e)
			for start := time.Now(); ; time.Sleep(time.Millisecond) { // (being made by the other side)
				if _, err := os.Lstat(d); err == nil {
					break
				}
				require.Less(t, time.Since(start), 5*time.Second, "%s never made", d)
			}
			exchange(t, e, d, outside, false)
			return d
		}
	}
	newFolder := folderOf(func(e manyEnv) string { return e.newPlace(e.side) })
	backupFolder := folderOf(func(e manyEnv) string {
		dirs, _ := filepath.Glob(filepath.Join(backup.BackupsRoot(e.cfg), e.id, "*-move"))
		if len(dirs) != 1 {
			return filepath.Join(e.root, "no backup folder yet")
		}
		return filepath.Join(dirs[0], e.id, "tool-results")
	})
	var members []member
	for _, step := range []string{"backup-copying", "move-temp-made"} {
		members = append(members,
			member{"a sidecar becomes a link", step, 0, sidecar("link")},
			member{"a sidecar becomes a named pipe", step, 0, sidecar("fifo")},
			member{"the old tool-results folder becomes a link", step, 0, oldFolder},
			member{"a sidecar is removed", step, 0, func(t *testing.T, e manyEnv, outside string) string {
				require.NoError(t, os.Mkdir(outside, 0o700))
				require.NoError(t, os.Remove(e.sidecar(n-1)))
				return e.sidecar(n - 1)
			}},
		)
	}
	members = append(members,
		member{"the new tool-results folder becomes a link", "move-temp-made", 0, newFolder},
		member{"the new tool-results folder becomes a link", "move-temp-written", 0, newFolder},
		member{"a sidecar becomes a link", "move-temp-written", 0, sidecar("link")},
		member{"the backup's tool-results folder becomes a link", "backup-copying", 0, backupFolder},
		member{"the backup's tool-results folder becomes a named pipe", "backup-copying", 0, backupFolder},
		member{"the new tool-results folder becomes a named pipe", "move-temp-made", 0, newFolder},
		member{"the old tool-results folder becomes a named pipe", "backup-copying", 0, oldFolder},
		// as the backup ends (the temps may be all written) and once
		// both are: the last check before the commit mark
		member{"the old tool-results folder becomes a link", "move-after-backup", 1, oldFolder},
		member{"the old tool-results folder becomes a link", "move-after-temps", 1, oldFolder},
	)
	for _, m := range members {
		t.Run(m.what+" at "+m.step, func(t *testing.T) {
			e := newManyMoveEnv(t, n)
			outside := filepath.Join(e.root, "outside")
			if strings.Contains(m.what, "folder becomes a named pipe") {
				outside += "-fifo"
			}
			before := facts(t, filepath.Join(e.cfg, "projects"))
			var named string
			var outsideHad map[string]fileFact
			var mu sync.Mutex
			calls := 0
			backup.TestHook = func(s string) {
				if s != m.step {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				k := m.k
				if k == 0 {
					k = 6
				}
				if calls++; calls == k {
					named = m.swap(t, e, outside)
					outsideHad = facts(t, outside)
				}
			}
			defer func() { backup.TestHook = nil }()
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _, err = e.run(MoveOptions{Session: e.id, To: e.newPath})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				// a reader waiting on a named pipe: let it go, so that
				// the test can end
				_ = filepath.WalkDir(e.cfg, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.Type()&fs.ModeNamedPipe != 0 {
						if fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
							unix.Close(fd)
						}
					}
					return nil
				})
				<-done
				t.Fatalf("the move waited on a named pipe (%s at the %s), until let go; then said: %v", m.what, m.step, err)
			}
			backup.TestHook = nil
			require.NotEmpty(t, named, "the hook never ran")
			assert.Equal(t, outsideHad, facts(t, outside), "the move changed what is outside the config dir")
			for p, f := range facts(t, e.cfg) {
				if strings.Contains(f.data, "SSSSSSSS") || f.data == "planted" {
					t.Errorf("an outside file's bytes were read into the config dir: %s", p)
				}
			}
			require.Error(t, err, "the move went on")
			var na *backup.NotAFileError
			var se *backup.SymlinkError
			var nf *backup.NotAFileError
			switch {
			case strings.Contains(m.what, "folder becomes a named pipe"):
				// a folder on the way that is no folder any more
				require.True(t, errors.As(err, &se) || errors.As(err, &nf) || errors.Is(err, syscall.ENOTDIR), "not a typed refusal: %T %v", err, err)
				assert.Contains(t, err.Error(), named)
			case errors.Is(err, backup.ErrChanged):
				assert.Contains(t, err.Error(), named+" was deleted")
			case errors.As(err, &se):
				assert.Equal(t, named, se.Path, "the refusal names another link")
			case errors.As(err, &na):
				assert.Equal(t, named, na.Path, "the refusal names another node")
			default:
				t.Fatalf("not a typed refusal: %T %v", err, err)
			}
			skip := []string{named}
			if named == e.side {
				for i := range n {
					skip = append(skip, e.sidecar(i))
				}
				skip = append(skip, filepath.Join(e.side, "bctrnos8p.txt"))
			}
			if named == e.newPlace(e.side) {
				// the folder the move made is the one swapped away (with
				// what the move had made in it): the link is the swap's
				require.NoError(t, os.Remove(named))
			}
			e.assertRolledBack(t, before, skip...)
		})
	}
}

// TestMoveKeepsOwnerModeAndTimeOfManyFiles: a move writes 120 sidecar
// files eight at a time beside its backup; each moved file keeps its
// bytes, mode, owner (as root: of other users, several) and modification
// time to the nanosecond; the backup's copy of each is the file as it
// was (two with a second name elsewhere are copied, not linked); the
// restore puts every file back as it was.
func TestMoveKeepsOwnerModeAndTimeOfManyFiles(t *testing.T) {
	const n = 120
	e := newManyMoveEnv(t, n)
	// the folders too: each of its own mode (and owner, as root)
	dirs := []string{filepath.Join(e.oldDir, e.id), e.side, filepath.Join(e.oldDir, e.id, "subagents")}
	dirFacts := map[string][3]uint32{}
	for i, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		require.NoError(t, os.Chmod(d, []os.FileMode{0o750, 0o711, 0o755}[i]))
		if os.Geteuid() == 0 {
			require.NoError(t, os.Chown(d, 4100+i, 5100+i))
		}
		fi, err := os.Stat(d)
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		dirFacts[d] = [3]uint32{uint32(fi.Mode()), st.Uid, st.Gid}
	}
	// two sidecars with a second name (outside the config dir): their
	// backup is a copy, not a second name, and must keep them as well
	for _, i := range []int{5, 77} {
		require.NoError(t, os.Link(e.sidecar(i), filepath.Join(e.root, fmt.Sprintf("second-name-%d", i))))
	}
	oldFacts := facts(t, e.oldDir)
	_, _, err := e.run(MoveOptions{Session: e.id, To: e.newPath})
	require.NoError(t, err)
	newDir := e.newPlace(e.oldDir)
	newFacts := facts(t, newDir)
	require.Len(t, newFacts, len(oldFacts))
	for rel, was := range oldFacts {
		now, ok := newFacts[rel]
		if !assert.True(t, ok, "%s not moved", rel) {
			continue
		}
		if !strings.HasSuffix(rel, ".jsonl") { // (a transcript is rendered anew)
			assert.Equal(t, was.data, now.data, "%s: its bytes", rel)
		}
		assert.Equal(t, was.mode, now.mode, "%s: its mode", rel)
		assert.Equal(t, [2]uint32{was.uid, was.gid}, [2]uint32{now.uid, now.gid}, "%s: its owner", rel)
		assert.Equal(t, was.mtimeNanos, now.mtimeNanos, "%s: its time", rel)
	}
	for d, was := range dirFacts {
		fi, err := os.Stat(e.newPlace(d))
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		assert.Equal(t, was, [3]uint32{uint32(fi.Mode()), st.Uid, st.Gid}, "%s: the folder's mode and owner", d)
	}
	backups, _ := filepath.Glob(filepath.Join(backup.BackupsRoot(e.cfg), e.id, "*-move"))
	require.Len(t, backups, 1)
	saved := facts(t, backups[0])
	delete(saved, "manifest.json")
	for rel, f := range oldFacts { // a copy is the backup's own file: its bytes, and mode and owner in the manifest
		if s, ok := saved[rel]; ok && s != f {
			assert.Equal(t, f.data, s.data, "%s: the backup's bytes", rel)
			saved[rel] = f
		}
	}
	assert.Equal(t, oldFacts, saved, "the backup holds the files as they were")
	a := &Env{ConfigDir: e.cfg, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Quiet: true}
	require.NoError(t, a.RunRestore(e.id, "", false))
	assert.Equal(t, oldFacts, facts(t, e.oldDir), "the restore put back every file as it was")
	assert.NoDirExists(t, newDir)
}

// TestMoveOfManyFilesFromAnOddConfigDir: the walks from the config dir
// down (openat2 in one call where the kernel has it, else one folder at
// a time) start from the config dir as the user names it (made absolute
// by the command line: a relative one never reaches them). A member per
// way: a link to it, a link to a link to it, a config dir that is the
// mount point of a file system of its own. The move of a session of 120 sidecars goes
// through, every file's bytes in the new place, nothing of ccsurgeon's
// left, and the restore puts it back.
func TestMoveOfManyFilesFromAnOddConfigDir(t *testing.T) {
	for _, member := range []string{"a link to it", "a link to a link to it", "a mount point"} {
		t.Run(member, func(t *testing.T) {
			e := newManyMoveEnv(t, 120)
			if member == "a mount point" {
				e.onOwnDisk(t, "", false)
			}
			was := facts(t, e.oldDir)
			name := e.cfg
			switch member {
			case "a link to it":
				name = filepath.Join(e.root, "cfg-link")
				require.NoError(t, os.Symlink(e.cfg, name))
			case "a link to a link to it":
				name = filepath.Join(e.root, "cfg-link2")
				require.NoError(t, os.Symlink(e.cfg, filepath.Join(e.root, "cfg-link")))
				require.NoError(t, os.Symlink("cfg-link", name))
			}
			a := &Env{ConfigDir: name, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Quiet: true}
			require.NoError(t, a.RunMove(MoveOptions{Session: e.id, To: e.newPath}))
			moved := facts(t, e.newPlace(e.oldDir))
			require.Len(t, moved, len(was))
			for rel, f := range was {
				if !strings.HasSuffix(rel, ".jsonl") {
					assert.Equal(t, f, moved[rel], "%s", rel)
				}
			}
			require.NoError(t, a.RunRestore(e.id, "", false))
			assert.Equal(t, was, facts(t, e.oldDir), "the restore")
			_ = filepath.WalkDir(e.cfg, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".ccsurgeon-") && !strings.HasSuffix(d.Name(), ".lock") {
					t.Errorf("left %s", p)
				}
				return nil
			})
		})
	}
}

// TestRestoreOfAMoveReadsNoNodeSwappedIntoItsBackup: the undo of a move
// of 120 sidecars reads each file from the move's backup (in the config
// dir's ccsurgeon/backups, which one who shares the config dir can
// change). A file there swapped for a named pipe must not hang the
// restore, nor one swapped for a link have the file it names read into
// the session: the restore is refused, naming it, and the session stays
// where the move put it.
func TestRestoreOfAMoveReadsNoNodeSwappedIntoItsBackup(t *testing.T) {
	for _, kind := range []string{"fifo", "link"} {
		t.Run(kind, func(t *testing.T) {
			e := newManyMoveEnv(t, 120)
			_, _, err := e.run(MoveOptions{Session: e.id, To: e.newPath})
			require.NoError(t, err)
			backups, _ := filepath.Glob(filepath.Join(backup.BackupsRoot(e.cfg), e.id, "*-move"))
			require.Len(t, backups, 1)
			victim := filepath.Join(backups[0], e.id, "tool-results", "t050.txt")
			secret := filepath.Join(e.root, "secret.txt")
			swapNode(t, victim, kind, secret)
			moved := facts(t, e.newPlace(e.oldDir))
			a := &Env{ConfigDir: e.cfg, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Quiet: true}
			done := make(chan struct{})
			go func() {
				defer close(done)
				err = a.RunRestore(e.id, "", false)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				if fd, err := unix.Open(victim, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
					unix.Close(fd)
				}
				<-done
				t.Fatalf("the restore waited on a named pipe in its backup, until let go; then said: %v", err)
			}
			require.Error(t, err, "the restore went on")
			assert.Contains(t, err.Error(), victim)
			for p, f := range facts(t, e.cfg) {
				if strings.Contains(f.data, "SSSSSSSS") {
					t.Errorf("the outside file's bytes were read into the config dir: %s", p)
				}
			}
			assert.Equal(t, moved, facts(t, e.newPlace(e.oldDir)), "the refused restore changed the session")
		})
	}
}
