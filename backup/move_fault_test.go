//go:build unix

package backup

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const envMoveKillAt = "CCSURGEON_MOVE_KILL_AT"

// moveFixture is a project folder with three sessions (transcript, a
// subagent transcript, a tool result), the project's memory, and a
// history.jsonl naming the project: what a project move touches.
type moveFixture struct {
	cfg, oldDir, newDir string
	ids                 []string
}

func newMoveFixture(cfg string) moveFixture {
	f := moveFixture{cfg: cfg,
		oldDir: filepath.Join(cfg, "projects", "-home-u-old"),
		newDir: filepath.Join(cfg, "projects", "-home-u-new")}
	for i := range 3 {
		f.ids = append(f.ids, fmt.Sprintf("0b7e5c1a-1111-4222-8333-94445555666%d", i))
	}
	return f
}

// files are the project's files (relative to its folder) with their content.
func (f moveFixture) files() map[string]string {
	out := map[string]string{"memory/MEMORY.md": "remember /home/u/old\n"}
	for n, id := range f.ids {
		out[id+".jsonl"] = strings.Repeat(fmt.Sprintf(`{"type":"user","cwd":"/home/u/old","n":%d}`+"\n", n), 2000)
		out[id+"/subagents/agent-a.jsonl"] = `{"type":"user","cwd":"/home/u/old/sub","isSidechain":true}` + "\n"
		out[id+"/tool-results/r.txt"] = "output\n"
	}
	return out
}

const histBefore = `{"display":"a","project":"/home/u/old"}` + "\n" + `{"display":"b","project":"/elsewhere"}` + "\n"

func relocate(s string) string { return strings.ReplaceAll(s, "/home/u/old", "/home/u/new") }

func (f moveFixture) write(t *testing.T) {
	for rel, c := range f.files() {
		writeOld(t, filepath.Join(f.oldDir, rel), c)
	}
	writeOld(t, filepath.Join(f.cfg, "history.jsonl"), histBefore)
}

func (f moveFixture) plan() MovePlan {
	p := MovePlan{ConfigDir: f.cfg, Force: true, Record: []byte(`{"test":true}`)}
	files := f.files()
	for _, id := range f.ids {
		s := MoveSession{ID: id, ProjectDir: f.oldDir}
		for rel := range files {
			if strings.HasPrefix(rel, id) {
				s.Files = append(s.Files, filepath.Join(f.oldDir, rel))
			}
		}
		p.Sessions = append(p.Sessions, s)
	}
	for rel := range files {
		mf := MoveFile{From: filepath.Join(f.oldDir, rel), To: filepath.Join(f.newDir, rel)}
		if strings.HasSuffix(rel, ".jsonl") {
			src := mf.From
			mf.Render = func(w io.Writer) error {
				b, err := os.ReadFile(src)
				if err != nil {
					return err
				}
				_, err = io.WriteString(w, relocate(string(b)))
				return err
			}
		}
		p.Files = append(p.Files, mf)
	}
	hist := filepath.Join(f.cfg, "history.jsonl")
	snap, _ := TakeSnapshot(hist)
	p.Edits = []MoveEdit{{Path: hist, Snapshot: snap, Render: str(relocate(histBefore))}}
	return p
}

// moveHelper is the child of TestMoveCrash (TestMain starts it when the
// test binary runs with CCSURGEON_BACKUP_HELPER=move): it runs a project
// move and SIGKILLs itself at the named step.
func moveHelper() {
	cfg := os.Getenv(envHelperDir)
	// STEP or STEP#N: killed at the Nth time the step is met
	killAt, nth, _ := strings.Cut(os.Getenv(envMoveKillAt), "#")
	n, _ := strconv.Atoi(nth)
	var mu sync.Mutex
	met := 0
	TestHook = func(step string) {
		if step != killAt {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if met++; met >= n {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	if _, err := Move(newMoveFixture(cfg).plan()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// TestMoveCrash kills a project move (three sessions with sidecars, the
// project's memory, history.jsonl) at every step, then lets the next run
// recover: the project is then entirely in its old folder, byte for byte
// (before the commit mark), or entirely in its new one (after it), with no
// temp, journal or half-moved file left.
func TestMoveCrash(t *testing.T) {
	steps := []struct {
		killAt string
		moved  bool
	}{
		{"move-after-journal", false},
		// the first session's backup named in the journal's log, the
		// second's named, the third's files being copied, the second's
		// manifest about to be linked, a backup whole (its last folder
		// fsync: a review found one left whole and unnamed, claiming to
		// undo a move that never happened)
		{"move-backup-logged", false},
		{"move-backup-logged#2", false},
		{"backup-copying#7", false},
		{"move-render-before-link#2", false},
		{"dir-synced:{backups}", false},
		{"move-after-backup", false},
		{"move-temp-written", false}, // some temps written, others being written
		{"move-temp-made", false},
		{"move-after-temps", false},
		{"move-after-commit-mark", true},
		{"move-between-links", true},
		{"move-after-links", true},
		{"move-after-edits", true},
		{"move-between-removes", true},
		{"move-before-journal-delete", true},
		{"", true}, // not killed
	}
	for _, s := range steps {
		name := strings.TrimPrefix(strings.ReplaceAll(s.killAt, "{backups}", "backups"), "move-")
		if name == "" {
			name = "not-killed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newMoveFixture(t.TempDir())
			f.write(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
			cmd.Env = append(os.Environ(), envHelper+"=move", envHelperDir+"="+f.cfg, envMoveKillAt+"="+strings.ReplaceAll(s.killAt, "{backups}", BackupsRoot(f.cfg)))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if s.killAt == "" {
				require.NoError(t, err, stderr.String())
			} else {
				ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
				require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "child: %v %s", err, stderr.String())
			}

			// the next run
			msgs, err := RecoverMoves(f.cfg)
			require.NoError(t, err)
			if s.killAt != "" && s.killAt != "move-before-journal-delete" {
				require.Len(t, msgs, 1, "one interrupted move handled")
			}
			again, err := RecoverMoves(f.cfg)
			require.NoError(t, err)
			assert.Empty(t, again, "recovery is done once")

			tree := snapshotTree(t, f.cfg)
			want := map[string]string{}
			for rel, c := range f.files() {
				if s.moved {
					if strings.HasSuffix(rel, ".jsonl") {
						c = relocate(c)
					}
					want["projects/-home-u-new/"+rel] = c
				} else {
					want["projects/-home-u-old/"+rel] = c
				}
			}
			want["history.jsonl"] = histBefore
			if s.moved {
				want["history.jsonl"] = relocate(histBefore)
			}
			assert.Equal(t, want, tree, "killed at %q", s.killAt)
			requireNoTemps(t, f.cfg)
			left, _ := filepath.Glob(filepath.Join(JournalDir(f.cfg), "*"))
			assert.Empty(t, left, "no journal left")
			_ = filepath.WalkDir(f.cfg, func(p string, d fs.DirEntry, err error) error {
				if err == nil && IsMoveTemp(d.Name()) {
					t.Errorf("move temp left: %s", p)
				}
				return nil
			})
			if !s.moved {
				_, err := os.Stat(f.newDir)
				assert.True(t, os.IsNotExist(err), "no new folder after a rollback")
				for _, id := range f.ids {
					l, _ := List(f.cfg, id)
					assert.Empty(t, l, "no backup after a rollback")
				}
			} else {
				_, err := os.Stat(f.oldDir)
				assert.True(t, os.IsNotExist(err), "the old folder is gone")
				for _, id := range f.ids {
					l, err := List(f.cfg, id)
					require.NoError(t, err)
					require.Len(t, l, 1)
					assert.JSONEq(t, `{"test":true}`, string(l[0].Move))
					assert.Len(t, l[0].Files, 3, "the session's files are backed up")
				}
			}
		})
	}
}

// TestMoveKeepsLinesAppendedDuringTheMove: a line appended to a session
// after its new copy was made (a client resumed it after the live-session
// check, or the move was forced) must not be lost when the old file is
// removed: it is carried over to the new file, as Apply does.
func TestMoveKeepsLinesAppendedDuringTheMove(t *testing.T) {
	for _, step := range []string{"move-after-temps", "move-after-commit-mark", "move-after-edits"} {
		t.Run(strings.TrimPrefix(step, "move-"), func(t *testing.T) {
			f := newMoveFixture(t.TempDir())
			f.write(t)
			from := filepath.Join(f.oldDir, f.ids[0]+".jsonl")
			const late = `{"type":"user","cwd":"/home/u/old","late":true}` + "\n"
			setHook(t, func(s string) {
				if s == step {
					a, err := os.OpenFile(from, os.O_WRONLY|os.O_APPEND, 0)
					require.NoError(t, err)
					_, err = a.WriteString(late)
					require.NoError(t, err)
					require.NoError(t, a.Close())
				}
			})
			res, err := Move(f.plan())
			if err != nil {
				// refused before the commit mark: nothing moved, nothing lost
				assert.Contains(t, readString(t, from), late)
				return
			}
			got := readString(t, filepath.Join(f.newDir, f.ids[0]+".jsonl"))
			assert.True(t, got == relocate(f.files()[f.ids[0]+".jsonl"])+late, "the moved session is the moved copy and the appended line, once; it ends %q", got[max(0, len(got)-100):])
			assert.NotEmpty(t, res.Warnings, "the carry-over is reported")
			requireNoTemps(t, f.cfg)
		})
	}
}
