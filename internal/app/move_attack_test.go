package app

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// swapNode replaces the regular file at p by a node of kind ("link": a
// symbolic link to target; "fifo": a named pipe), keeping nothing of it.
// A link's target is given p's size and modification time, so that a
// guard that compares those (through the link) sees no change.
func swapNode(t *testing.T, p, kind, target string) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.NoError(t, os.Remove(p))
	switch kind {
	case "link":
		require.NoError(t, os.WriteFile(target, bytes.Repeat([]byte("S"), int(fi.Size())), 0o600))
		require.NoError(t, os.Chtimes(target, fi.ModTime(), fi.ModTime()))
		require.NoError(t, os.Symlink(target, p))
	case "fifo":
		require.NoError(t, mkfifo(p))
	}
}

// TestMoveReadsNoNodeSwappedInAfterTheCheck: a move checks that every file
// it moves is a regular file, then copies them. A sidecar file replaced
// after that check by a link to a file outside the config dir (of the
// same size and time, so that the change guard passes) must not have the
// outside file's bytes copied into the moved session, and a named pipe
// must not hang the move: the move is refused, naming the file, and the
// session stays where it was. A member per kind of node and per step at
// which it appears (after the check, after the backup, after the temps:
// the last check before the commit mark).
func TestMoveReadsNoNodeSwappedInAfterTheCheck(t *testing.T) {
	kinds := []string{"link"}
	if canMkfifo { // (windows has no named pipes in the file system: no member there)
		kinds = append(kinds, "fifo")
	}
	for _, kind := range kinds {
		for _, step := range []string{"move-after-journal", "move-after-backup", "move-after-temps"} {
			t.Run(kind+"/"+step, func(t *testing.T) {
				if kind == "link" {
					testlink.Need(t)
				}
				e := newMoveEnv(t, "tools", "old")
				oldDir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
				victim := filepath.Join(oldDir, e.id, "tool-results", "bctrnos8p.txt")
				secret := filepath.Join(e.root, "outside-secret.txt")
				newPath := filepath.Join(e.root, "new")
				var once sync.Once
				backup.TestHook = func(s string) {
					if s == step {
						once.Do(func() { swapNode(t, victim, kind, secret) })
					}
				}
				defer func() { backup.TestHook = nil }()
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, _, err = e.run(MoveOptions{Session: e.id, To: newPath})
				}()
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					if kind == "fifo" {
						// let the hung copy end, so that the test can
						f, _ := os.OpenFile(victim, os.O_WRONLY, 0)
						if f != nil {
							f.Close()
						}
						<-done
					}
					t.Fatalf("the move waited on a %s swapped in at %s", kind, step)
				}
				backup.TestHook = nil
				for p, s := range tree(t, e.cfg) {
					if strings.Contains(s, strings.Repeat("S", 8)) && strings.Contains(p, "tool-results") {
						t.Errorf("the outside file's bytes were copied into the config dir: %s", p)
					}
				}
				require.Error(t, err, "the move went on with a %s in place of %s", kind, victim)
				var na *backup.NotAFileError
				require.True(t, errors.As(err, &na), "not a typed refusal: %T %v", err, err)
				assert.Equal(t, victim, na.Path)
				assert.FileExists(t, filepath.Join(oldDir, e.id+".jsonl"), "the session stays where it was")
				_, serr := os.Stat(filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath), e.id+".jsonl"))
				assert.True(t, os.IsNotExist(serr), "the refused move left the session at its new place")
				left, _ := filepath.Glob(filepath.Join(backup.JournalDir(e.cfg), "*"))
				assert.Empty(t, left, "the refused move left its journal")
			})
		}
	}
}

// TestMoveFollowsNoFolderSwappedForALink: a move checks that no folder on
// the way to a file it moves is a link, then reads the file, and (after
// its point of no return) removes it. The session's tool-results/ folder
// replaced after that check by a link to a folder outside the config dir
// that holds a file of the same name (same size and time) must neither
// have that outside file's bytes copied into the moved session (swapped
// before the copy: the move is refused) nor have the outside file removed
// (swapped after the mark: the outside file stays, whatever the move
// says). A member per step.
func TestMoveFollowsNoFolderSwappedForALink(t *testing.T) {
	testlink.Need(t)
	for _, step := range []string{"move-after-backup", "move-after-commit-mark"} {
		t.Run(step, func(t *testing.T) {
			e := newMoveEnv(t, "tools", "old")
			oldDir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
			folder := filepath.Join(oldDir, e.id, "tool-results")
			outside := filepath.Join(e.root, "outside-folder")
			newPath := filepath.Join(e.root, "new")
			var once sync.Once
			backup.TestHook = func(s string) {
				if s != step {
					return
				}
				once.Do(func() {
					fi, err := os.Stat(filepath.Join(folder, "bctrnos8p.txt"))
					require.NoError(t, err)
					require.NoError(t, os.Rename(folder, filepath.Join(e.root, "moved-away")))
					require.NoError(t, os.Mkdir(outside, 0o700))
					p := filepath.Join(outside, "bctrnos8p.txt")
					require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("S"), int(fi.Size())), 0o600))
					require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
					require.NoError(t, os.Symlink(outside, folder))
				})
			}
			defer func() { backup.TestHook = nil }()
			_, _, err := e.run(MoveOptions{Session: e.id, To: newPath})
			backup.TestHook = nil
			t.Logf("the move says: %v", err)
			b, rerr := os.ReadFile(filepath.Join(outside, "bctrnos8p.txt"))
			require.NoError(t, rerr, "the move removed a file outside the config dir, through a folder swapped for a link (err %v)", err)
			assert.Equal(t, strings.Repeat("S", len(b)), string(b))
			for p, s := range tree(t, e.cfg) {
				if strings.Contains(s, strings.Repeat("S", 8)) {
					t.Errorf("the outside file's bytes were copied into the config dir: %s", p)
				}
			}
			if step == "move-after-backup" {
				require.Error(t, err, "the move read through a folder swapped for a link")
				assert.FileExists(t, filepath.Join(oldDir, e.id+".jsonl"), "the refused move left the session where it was")
			}
		})
	}
}

// TestNewSessionCopiesNoSubagentThatIsALink: a subagent transcript that is
// a link (here to a file outside the config dir that reads as a subagent
// transcript) is read by an in-place change only to be refused; a new
// session (clone, or a share folder -o DIR/) must not copy the bytes of
// the file it names into the new session: it is left out with a warning
// naming it, as clone leaves out a link in tool-results/. A member per
// writer.
func TestNewSessionCopiesNoSubagentThatIsALink(t *testing.T) {
	testlink.Need(t)
	for _, member := range []string{"clone", "share-folder"} {
		t.Run(member, func(t *testing.T) {
			e := newMoveEnv(t, "subagent", "old")
			agent, outside := outsideSubagent(t, e)
			require.NoError(t, os.Remove(agent))
			require.NoError(t, os.Symlink(outside, agent))
			d := Dest{}
			share := filepath.Join(e.root, "share")
			if member == "share-folder" {
				d.Output = share + string(filepath.Separator)
			}
			var errb bytes.Buffer
			env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
			require.NoError(t, env.RunClone(e.id, BranchOptions{}, d), errb.String())
			for _, root := range []string{e.cfg, share} {
				if _, err := os.Stat(root); err != nil {
					continue
				}
				for p, s := range tree(t, root) {
					if strings.Contains(s, marker) {
						t.Errorf("the linked file's bytes were copied into %s", filepath.Join(root, p))
					}
				}
			}
			assert.Contains(t, errb.String(), "not copied: "+agent+" is a symbolic link")
		})
	}
}

// TestMoveLinksNoNewFileThroughAFolderSwappedForALink: a move makes each
// new file's folder, writes its temp file there, and after its point of no
// return gives it its name (a link from the temp, in the same folder). The
// new folder swapped for a link to a folder outside the config dir (that
// holds a file under the temp's name) once made, or after the mark, must
// not get a file made there: nothing is written outside the config dir
// (the move is refused, or stops part-way after the mark, naming the
// link). A member per step.
func TestMoveLinksNoNewFileThroughAFolderSwappedForALink(t *testing.T) {
	for _, step := range []string{"move-folder-made", "move-after-commit-mark"} {
		t.Run(step, func(t *testing.T) { testMoveLinksNoNewFile(t, step) })
	}
}

func testMoveLinksNoNewFile(t *testing.T, step string) {
	testlink.Need(t)
	e := newMoveEnv(t, "tools", "old")
	newPath := filepath.Join(e.root, "new")
	newFolder := filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath), e.id, "tool-results")
	outside := filepath.Join(e.root, "outside-folder")
	var once sync.Once
	backup.TestHook = func(s string) {
		if s != step {
			return
		}
		once.Do(func() {
			require.NoError(t, os.Mkdir(outside, 0o700))
			ents, err := os.ReadDir(newFolder)
			require.NoError(t, err)
			for _, d := range ents { // the temps, as an attacker who can list the folder sees them
				require.NoError(t, os.WriteFile(filepath.Join(outside, d.Name()), []byte("planted"), 0o600))
			}
			require.NoError(t, os.Rename(newFolder, filepath.Join(e.root, "moved-away")))
			require.NoError(t, os.Symlink(outside, newFolder))
		})
	}
	defer func() { backup.TestHook = nil }()
	_, _, err := e.run(MoveOptions{Session: e.id, To: newPath})
	backup.TestHook = nil
	t.Logf("the move says: %v", err)
	ents, rerr := os.ReadDir(outside)
	require.NoError(t, rerr)
	for _, d := range ents {
		b, _ := os.ReadFile(filepath.Join(outside, d.Name()))
		if string(b) != "planted" || !strings.Contains(d.Name(), ".ccsurgeon-move-") {
			t.Errorf("the move made %s outside the config dir", filepath.Join(outside, d.Name()))
		}
	}
}

// TestInPlaceFollowsNoFolderSwappedForALink: an in-place change that
// removes subagent transcripts (drop-tool-calls --tool Agent) backs each
// one up, then removes it. The session's subagents/ folder swapped, as
// the backup starts or just before the removals, for a link to a folder
// outside the config dir that holds files of the same names: those files
// are neither copied into the backups nor removed. A member per step.
func TestInPlaceFollowsNoFolderSwappedForALink(t *testing.T) {
	for _, step := range []string{"backup-copying", "before-removals"} {
		t.Run(step, func(t *testing.T) { testInPlaceFollowsNoFolder(t, step) })
	}
}

func testInPlaceFollowsNoFolder(t *testing.T, step string) {
	testlink.Need(t)
	e := newMoveEnv(t, "subagent", "old")
	folder := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id, "subagents")
	outside := filepath.Join(e.root, "outside-folder")
	var once sync.Once
	backup.TestHook = func(s string) {
		if s != step {
			return
		}
		once.Do(func() {
			require.NoError(t, os.Rename(folder, outside))
			ents, err := os.ReadDir(outside)
			require.NoError(t, err)
			for _, d := range ents {
				p := filepath.Join(outside, d.Name())
				fi, err := os.Stat(p)
				require.NoError(t, err)
				b, _ := os.ReadFile(p)
				b = append([]byte(marker), b[len(marker):]...) // same size
				require.NoError(t, os.WriteFile(p, b, 0o600))
				require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
			}
			require.NoError(t, os.Symlink(outside, folder))
		})
	}
	defer func() { backup.TestHook = nil }()
	var errb bytes.Buffer
	env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
	err := env.RunOps(e.id, OpSpec{Drop: true, DropTools: []string{"Agent"}}, Dest{Force: true})
	backup.TestHook = nil
	t.Logf("the change says: %v", err)
	// the next run finishes what a change stopped part-way left (its
	// journal): through the same folder
	err = env.RunOps(e.id, OpSpec{StripThinking: true}, Dest{Force: true})
	t.Logf("the next run says: %v (%s)", err, errb.String())
	ents, rerr := os.ReadDir(outside)
	require.NoError(t, rerr)
	require.Len(t, ents, 2, "the change (or the next run) removed a file outside the config dir, through a folder swapped for a link")
	for p, s := range tree(t, e.cfg) {
		if strings.Contains(s, marker) {
			t.Errorf("the outside file's bytes were copied into the config dir: %s", p)
		}
	}
}

// TestInPlaceWritesNoFileThroughAFolderSwappedForALink: an in-place change
// (strip-thinking, drop-tool-calls, compress-old-turns without -o;
// repair) checks the session's folders, then writes
// its temp file beside the transcript and renames it over the
// transcript. The project folder swapped for a link to a folder outside
// the config dir holding copies of the session's files (same sizes and
// times, so that the change guard passes through the link) — before the
// temp file is written, or once it is written (the attacker plants a file
// under the temp's name there) — must get no file made, renamed,
// changed or removed there (the planted temp included: its clean-up
// goes beneath too): the change writes beneath the config dir or is
// refused.
// A member per step.
func TestInPlaceWritesNoFileThroughAFolderSwappedForALink(t *testing.T) {
	changes := map[string]func(env *Env, id string) error{
		"strip-thinking": func(env *Env, id string) error {
			return env.RunOps(id, OpSpec{StripThinking: true}, Dest{Force: true})
		},
		"drop-tool-calls": func(env *Env, id string) error {
			return env.RunOps(id, OpSpec{Drop: true, DropTools: []string{"Bash"}}, Dest{Force: true})
		},
		"compress-old-turns": func(env *Env, id string) error {
			return env.RunOps(id, OpSpec{Compress: true, KeepTurns: 1, KeepRecent: true}, Dest{Force: true})
		},
		"repair": func(env *Env, id string) error { return env.RunRepair(id, Dest{Force: true}) },
	}
	for _, name := range []string{"strip-thinking", "drop-tool-calls", "compress-old-turns", "repair"} {
		for _, step := range []string{"after-backup", "before-rename"} {
			t.Run(name+"/"+step, func(t *testing.T) { testInPlaceWritesNoFile(t, step, name, changes[name]) })
		}
	}
}

func testInPlaceWritesNoFile(t *testing.T, step, name string, change func(env *Env, id string) error) {
	testlink.Need(t)
	e := newMoveEnv(t, "thinking-tool-loop", "old")
	folder := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
	if name == "repair" { // a torn last line, as a killed client leaves it: repair has work
		f, err := os.OpenFile(filepath.Join(folder, e.id+".jsonl"), os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		_, err = f.WriteString(`{"type":"user","message":{"role":"us`)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	outside := filepath.Join(e.root, "outside-folder")
	var before map[string]string // what the outside folder held once swapped in
	var once sync.Once
	backup.TestHook = func(s string) {
		if s != step {
			return
		}
		once.Do(func() { before = swapForOutsideCopy(t, folder, filepath.Join(e.root, "moved-away"), outside) })
	}
	defer func() { backup.TestHook = nil }()
	var errb bytes.Buffer
	env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
	err := change(env, e.id)
	backup.TestHook = nil
	t.Logf("the change says: %v", err)
	require.DirExists(t, outside, "the hook never ran at %s (the change says: %v)", step, err)
	after := tree(t, outside)
	for p, s := range after {
		if was, ok := before[p]; !ok {
			t.Errorf("the change made %s outside the config dir", filepath.Join(outside, p))
		} else if was != s {
			t.Errorf("the change replaced %s outside the config dir", filepath.Join(outside, p))
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("the change removed %s outside the config dir", filepath.Join(outside, p))
		}
	}
}

// TestMoveMakesNoFolderThroughAFolderSwappedForALink: a move makes the
// destination's project folder and a file's subfolders (<id>/,
// <id>/subagents/, <id>/tool-results/) as it comes to them. A folder on
// the way swapped for a link to a folder outside the config dir — the
// config dir's projects/ after the backups, or the new project folder
// once the move has made it for a first file — must not have a folder made where the link
// leads: the move is refused, naming the link, and nothing appears
// outside the config dir. A member per folder.
func TestMoveMakesNoFolderThroughAFolderSwappedForALink(t *testing.T) {
	for _, member := range []string{"projects", "new-project-folder"} {
		t.Run(member, func(t *testing.T) { testMoveMakesNoFolder(t, member) })
	}
}

func testMoveMakesNoFolder(t *testing.T, member string) {
	testlink.Need(t)
	e := newMoveEnv(t, "subagent", "old")
	// a second folder of the session: a file of it comes to its folder
	// after another's
	tr := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id, "tool-results", "b0000001.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(tr), 0o700))
	require.NoError(t, os.WriteFile(tr, []byte("a tool's output\n"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(tr, old, old))
	newPath := filepath.Join(e.root, "new")
	swapped, step := filepath.Join(e.cfg, "projects"), "move-after-backup"
	if member == "new-project-folder" {
		// as the move comes to its second file's folders, the first's made
		swapped, step = filepath.Join(e.cfg, "projects", chain.ProjectSlug(newPath)), "move-before-folder"
	}
	calls := 0
	outside := filepath.Join(e.root, "outside-folder")
	var once sync.Once
	had := map[string]bool{}  // what the outside folder held once swapped in
	made := map[string]bool{} // what appeared there, seen each time the move has made a folder
	backup.TestHook = func(s string) {
		if s == "move-folder-made" && len(had) > 0 {
			_ = filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !had[p] {
					made[p] = true
				}
				return err
			})
		}
		if s != step {
			return
		}
		if calls++; member == "new-project-folder" && calls < 2 {
			return
		}
		once.Do(func() {
			if member == "projects" {
				// the user's folder moved out, whole, so that the
				// session's files are still found through the link
				require.NoError(t, os.Rename(swapped, outside))
			} else {
				require.NoError(t, os.Mkdir(outside, 0o700))
				require.NoError(t, os.Rename(swapped, filepath.Join(e.root, "moved-away")))
			}
			require.NoError(t, os.Symlink(outside, swapped))
			require.NoError(t, filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
				had[p] = true
				return err
			}))
		})
	}
	defer func() { backup.TestHook = nil }()
	_, _, err := e.run(MoveOptions{Session: e.id, To: newPath})
	backup.TestHook = nil
	t.Logf("the move says: %v", err)
	require.DirExists(t, outside, "the hook never ran")
	require.NoError(t, filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
		if !had[p] {
			made[p] = true
		}
		return err
	}))
	for p := range made {
		t.Errorf("the move made %s outside the config dir", p)
	}
	var se *backup.SymlinkError
	require.True(t, errors.As(err, &se), "the move went on through the link: %v", err)
	assert.Equal(t, swapped, se.Path)
}

// TestCloneReadsNoSubagentSwappedForALinkAfterTheCheck: a clone as a new
// session checks that each subagent transcript is a regular file (a link
// is left out, with a warning), then reads it. One swapped for a link to
// a file outside the config dir (that reads as a subagent transcript)
// between the check and the read must not have the outside file's bytes
// copied into the new session: the clone fails naming the file (nothing
// of it is left), or has read the file before the swap.
// A member per path of clone (the fast path of a plain clone, a fork
// through the full one).
func TestCloneReadsNoSubagentSwappedForALinkAfterTheCheck(t *testing.T) {
	testlink.Need(t)
	for _, member := range []string{"clone", "fork"} {
		t.Run(member, func(t *testing.T) {
			e := newMoveEnv(t, "subagent", "old")
			agent, outside := outsideSubagent(t, e)
			var once sync.Once
			swapped := false
			backup.TestHook = func(s string) {
				if strings.HasPrefix(s, "dirsync-create:") && strings.HasSuffix(s, ".jsonl") && strings.Contains(s, "agent-") {
					once.Do(func() {
						require.NoError(t, os.Remove(agent))
						require.NoError(t, os.Symlink(outside, agent))
						swapped = true
					})
				}
			}
			defer func() { backup.TestHook = nil }()
			var errb bytes.Buffer
			env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
			var err error
			if member == "clone" {
				err = env.RunClone(e.id, BranchOptions{}, Dest{New: true})
			} else {
				err = env.RunFork(e.id, 1, BranchOptions{}, Dest{New: true})
			}
			backup.TestHook = nil
			t.Logf("the %s says: %v; %s", member, err, errb.String())
			require.True(t, swapped, "the hook never ran")
			for p, s := range tree(t, e.cfg) {
				if strings.Contains(s, marker) {
					t.Errorf("the linked file's bytes were copied into %s", p)
				}
			}
			if err != nil {
				var na *backup.NotAFileError
				require.True(t, errors.As(err, &na), "not a typed refusal: %T %v", err, err)
				assert.Equal(t, agent, na.Path)
				left, _ := filepath.Glob(filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), "*"))
				assert.Len(t, left, 2, "the failed clone left files: %v", left) // the session's transcript and folder
			}
			// (the full path reads the subagent with the session, before
			// the swap: its clone is whole, with the original's bytes)
		})
	}
}

// TestMoveEditsNoFileThroughAFolderSwappedForALink: after its point of no
// return a move renames the new sessions-index.json of the old project
// folder (the entry of the moved session taken out, another session's
// kept) over the old one. That folder swapped, after the mark, for a link
// to a copy of it outside the config dir (same sizes and times; the
// move's temp names planted, as an attacker who lists the folder sees
// them) must have no file there replaced or removed: the move stops
// part-way, naming the link.
func TestMoveEditsNoFileThroughAFolderSwappedForALink(t *testing.T) {
	testlink.Need(t)
	e := newMoveEnv(t, "tools", "old")
	oldDir := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
	index := filepath.Join(oldDir, "sessions-index.json")
	other := "0b0e0a2c-1111-4222-8333-944455556666"
	doc := `{"version":1,"entries":[{"sessionId":"` + e.id + `","fullPath":"` + filepath.Join(oldDir, e.id+".jsonl") + `","projectPath":"` + e.old + `"},` +
		`{"sessionId":"` + other + `","fullPath":"` + filepath.Join(oldDir, other+".jsonl") + `","projectPath":"` + e.old + `"}],"originalPath":"` + e.old + `"}`
	require.NoError(t, os.WriteFile(index, []byte(doc), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(index, old, old))
	outside := filepath.Join(e.root, "outside-folder")
	var had map[string]string
	var once sync.Once
	backup.TestHook = func(s string) {
		if s == "move-after-commit-mark" {
			once.Do(func() { had = swapForOutsideCopy(t, oldDir, filepath.Join(e.root, "moved-away"), outside) })
		}
	}
	defer func() { backup.TestHook = nil }()
	_, _, err := e.run(MoveOptions{Session: e.id, To: filepath.Join(e.root, "new")})
	backup.TestHook = nil
	t.Logf("the move says: %v", err)
	require.NotEmpty(t, had, "the hook never ran")
	after := tree(t, outside)
	for p, was := range had {
		s, ok := after[p]
		switch {
		case !ok:
			t.Errorf("the move removed %s outside the config dir", filepath.Join(outside, p))
		case ok && s != was:
			t.Errorf("the move replaced %s outside the config dir", filepath.Join(outside, p))
		}
	}
}

// swapForOutsideCopy is what an attacker does to folder: it is renamed to
// moved, a copy of it is made at outside (each file with its size and
// times, so that a guard through the link sees no change; a file under
// one of ccsurgeon's own names — a temp — holds "planted", as one who
// lists the folder can plant it), and folder becomes a link to outside.
// It returns what the copy holds, by path below outside.
func swapForOutsideCopy(t *testing.T, folder, moved, outside string) map[string]string {
	had := map[string]string{}
	require.NoError(t, os.Rename(folder, moved))
	require.NoError(t, filepath.WalkDir(moved, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(moved, p)
		to := filepath.Join(outside, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		fi, err := os.Stat(p)
		require.NoError(t, err)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if backup.IsOwnName(d.Name()) {
			b = []byte("planted")
		}
		require.NoError(t, os.WriteFile(to, b, 0o600))
		had[rel] = string(b)
		return os.Chtimes(to, fi.ModTime(), fi.ModTime())
	}))
	require.NoError(t, os.Symlink(outside, folder))
	return had
}

// marker is what the outside file of outsideSubagent holds, and no file
// of the config dir may.
const marker = "OUTSIDE-THE-CONFIG-DIR"

// outsideSubagent makes, outside the config dir, a file that reads as the
// session's subagent transcript with marker in it; it returns the
// subagent transcript's path and that file's.
func outsideSubagent(t *testing.T, e moveEnv) (agent, outside string) {
	agent = filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id, "subagents", "agent-a1eb358aa10f9c9a1.jsonl")
	b, err := os.ReadFile(agent)
	require.NoError(t, err)
	outside = filepath.Join(e.root, "outside.jsonl")
	b = bytes.Replace(b, []byte("Run echo from-subagent"), []byte(marker), 1)
	require.Contains(t, string(b), marker)
	require.NoError(t, os.WriteFile(outside, b, 0o600))
	return agent, outside
}

// TestInPlaceFinishAppendsNothingThroughAFolderSwappedForALink: an in-place
// change (drop-tool-calls --tool Bash, which changes the subagent
// transcript: its agent ran Bash) gives
// each original a second name beside it while its new file takes its
// place: what a client appended to the original goes over to the new file.
// Stopped part-way (the session's subagents/ swapped, after the renames,
// for a link to a copy of it outside the config dir: its fsync is
// refused), it leaves its journal naming that second name; the next run
// finishes the change. Through the link it must neither append what the
// outside copy of the second name holds to the outside transcript, nor
// remove anything there.
func TestInPlaceFinishAppendsNothingThroughAFolderSwappedForALink(t *testing.T) {
	testlink.Need(t)
	e := newMoveEnv(t, "subagent", "old")
	folder := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old), e.id, "subagents")
	outside := filepath.Join(e.root, "outside-folder")
	var had map[string]string
	var once sync.Once
	backup.TestHook = func(s string) {
		if s == "before-removals" {
			once.Do(func() {
				had = swapForOutsideCopy(t, folder, filepath.Join(e.root, "moved-away"), outside)
				// the second name of the original, as one who lists the
				// folder sees it, with lines past the original's size
				for p := range had {
					if strings.Contains(p, "-old-") {
						b := append(bytes.Repeat([]byte("x"), 1<<20), []byte("\n"+marker+"\n")...)
						require.NoError(t, os.WriteFile(filepath.Join(outside, p), b, 0o600))
						had[p] = string(b)
					}
				}
			})
		}
	}
	defer func() { backup.TestHook = nil }()
	var errb bytes.Buffer
	env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
	err := env.RunOps(e.id, OpSpec{Drop: true, DropTools: []string{"Bash"}}, Dest{Force: true})
	backup.TestHook = nil
	t.Logf("the change says: %v", err)
	require.NotNil(t, had, "the hook never ran")
	require.True(t, func() bool {
		for p := range had {
			if strings.Contains(p, "-old-") {
				return true
			}
		}
		return false
	}(), "no second name of the subagent transcript was made: %v", had)
	err = env.RunOps(e.id, OpSpec{StripThinking: true}, Dest{Force: true})
	t.Logf("the next run says: %v", err)
	after := tree(t, outside)
	for p, was := range had {
		s, ok := after[p]
		switch {
		case !ok:
			t.Errorf("the change (or the next run) removed %s outside the config dir", filepath.Join(outside, p))
		case s != was:
			t.Errorf("the change (or the next run) changed %s outside the config dir", filepath.Join(outside, p))
		}
	}
}
