//go:build unix

package app

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/require"
)

// TestNewSessionCrashAtEachStepIsSwept: a new session killed (SIGKILL)
// at each step of its writer (a folder made before its marker is,
// writing the first marker, a sidecar
// written, after the sidecars, before the main transcript's link) leaves no
// main transcript, and the next run's sweep leaves the config dir as it
// was. A member per step and per kind of sidecar the source has.
func TestNewSessionCrashAtEachStepIsSwept(t *testing.T) {
	shapes := []string{"all-sidecars", "tool-results-only", "file-history-only", "subagent-only", "legacy-agents-only"}
	for _, shape := range shapes {
		for _, step := range []string{"new-folder-made", "atomic-temp-written", "new-file-done", "new-after-sidecars", "create-before-link"} {
			if step == "new-folder-made" && shape == "legacy-agents-only" {
				continue // no folder: its files lie beside the main transcript
			}
			t.Run(shape+"/"+step, func(t *testing.T) {
				t.Parallel()
				f := newAttackFixture(t, shape == "legacy-agents-only")
				switch shape {
				case "tool-results-only":
					f.dropSubagent(t)
					f.dropFileHistory(t)
				case "file-history-only":
					f.dropSubagent(t)
					f.dropToolResults(t)
				case "subagent-only", "legacy-agents-only":
					f.dropToolResults(t)
					f.dropFileHistory(t)
				}
				before := treeHash(t, f.cfg)
				cmd := exec.Command(os.Args[0], "-test.run=^TestNewSessionCrashHelper$", "-test.count=1")
				cmd.Env = append(os.Environ(), "CCSURGEON_CRASH_CFG="+f.cfg, "CCSURGEON_CRASH_STEP="+step, "CCSURGEON_CRASH_SHAPE="+shape)
				out, err := cmd.CombinedOutput()
				ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if err == nil || !ok || !ws.Signaled() {
					t.Fatalf("the child was not killed at %s: %v\n%s", step, err, out)
				}
				_, err = os.Lstat(filepath.Join(f.dir, attackNewID+".jsonl"))
				require.True(t, os.IsNotExist(err), "the crash left the main transcript before its sidecars were whole")
				backup.SweepProject(f.cfg, f.dir)
				got := treeHash(t, f.cfg)
				for p, h := range before {
					require.Equal(t, h, got[p], "%s changed or lost", p)
				}
				for p := range got {
					if _, ok := before[p]; !ok {
						t.Errorf("left by the crash after the next run's sweep: %s", p)
					}
				}
			})
		}
	}
}

// TestNewSessionCrashHelper is not a test: the child of
// TestNewSessionCrashAtEachStepIsSwept, which writes the new session and
// kills itself at the step named.
func TestNewSessionCrashHelper(t *testing.T) {
	cfg, step, shape := os.Getenv("CCSURGEON_CRASH_CFG"), os.Getenv("CCSURGEON_CRASH_STEP"), os.Getenv("CCSURGEON_CRASH_SHAPE")
	if cfg == "" {
		return
	}
	f := &attackFixture{cfg: cfg, dir: filepath.Join(cfg, "projects", "-p"), src: "aaaaaaaa-2222-4333-8444-555555555555", legacy: shape == "legacy-agents-only"}
	backup.TestHook = func(s string) {
		if s == step {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	ns := f.plan(nil, nil)
	if shape == "tool-results-only" || shape == "file-history-only" {
		ns.subagents = nil
	}
	env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	_, err := env.writeNewSession(ns)
	t.Fatalf("not killed at %s (err %v)", step, err)
}

// TestNewSessionCopiesNoNodeButFiles: a sidecar folder the new session
// copies (tool-results/, file-history/<id>/) holding a node that is not a
// regular file — a link to a file outside the config dir, a named pipe —
// is never read through: the outside file's bytes never land in the
// config dir, and the writer never waits forever on a pipe. A member per
// node and folder.
func TestNewSessionCopiesNoNodeButFiles(t *testing.T) {
	for _, folder := range []string{"tool-results", "file-history"} {
		for _, node := range []string{"link-to-outside", "named-pipe"} {
			t.Run(folder+"/"+node, func(t *testing.T) {
				f := newAttackFixture(t, false)
				secret := filepath.Join(f.outside, "secret.txt")
				require.NoError(t, os.WriteFile(secret, []byte("OUTSIDE-SECRET"), 0o600))
				in := filepath.Join(f.dir, f.src, "tool-results")
				if folder == "file-history" {
					in = filepath.Join(f.cfg, "file-history", f.src)
				}
				p := filepath.Join(in, "x")
				if node == "link-to-outside" {
					require.NoError(t, os.Symlink(secret, p))
				} else {
					require.NoError(t, syscall.Mkfifo(p, 0o600))
				}
				done := make(chan error, 1)
				go func() {
					env := &Env{ConfigDir: f.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
					_, err := env.writeNewSession(f.plan(nil, nil))
					done <- err
				}()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					// let the writer go, so that the test can end
					if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
						w.Close()
					}
					t.Fatalf("the new session waited on the named pipe %s", p)
				}
				_ = filepath.WalkDir(f.cfg, func(q string, d fs.DirEntry, err error) error {
					if err == nil && d.Type().IsRegular() {
						b, _ := os.ReadFile(q)
						require.NotContains(t, string(b), "OUTSIDE-SECRET", "%s holds the bytes of a file outside the config dir", q)
					}
					return nil
				})
			})
		}
	}
}
