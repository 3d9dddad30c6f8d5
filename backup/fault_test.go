//go:build unix

package backup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment variables understood by the helper processes (TestMain).
const (
	envHelperDir = "CCSURGEON_BACKUP_HELPER_DIR" // config dir of the session to edit
	envKillAt    = "CCSURGEON_BACKUP_KILL_AT"    // step at which the child SIGKILLs itself
)

// faultTransform is the edit the child performs: it drops every 7th line
// and shortens "thinking" blocks. It returns nil to drop a line.
func faultTransform(n int, line []byte) []byte {
	if n%7 == 0 {
		return nil
	}
	return bytes.ReplaceAll(line, []byte(`"thinking":"`), []byte(`"thinking":"[stripped] `))
}

func transformAll(data []byte) []byte {
	var out bytes.Buffer
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) > 0 {
			out.Write(faultTransform(n, line))
		}
	}
	return out.Bytes()
}

// genSession produces about size bytes of JSONL.
func genSession(size int) []byte {
	var b bytes.Buffer
	pad := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), 20)
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"%08x-0000-4000-8000-%012x","message":{"content":[{"type":"thinking","thinking":"step %d %s"}]}}`+"\n",
			n, n, n, pad[:n%len(pad)])
	}
	return b.Bytes()
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// applyHelper is the child of TestFaultInjection (TestMain starts it when
// the test binary runs with CCSURGEON_BACKUP_HELPER=apply): it performs an
// Apply that the parent kills.
func applyHelper() {
	cfg := os.Getenv(envHelperDir)
	killAt := os.Getenv(envKillAt)
	die := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	TestHook = func(step string) {
		if step == killAt {
			die()
		}
	}
	e := faultPaths(cfg)
	mainSnap, err := TakeSnapshot(e.main)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	render := func(src string, snap *Snapshot) func(io.Writer) error {
		return func(w io.Writer) error {
			f, err := os.Open(src)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			var read int64
			for n := 0; sc.Scan(); n++ {
				read += int64(len(sc.Bytes())) + 1
				if killAt == "mid-render" && src == e.main && read > snap.Size/2 {
					die()
				}
				if out := faultTransform(n, append(sc.Bytes(), '\n')); out != nil {
					if _, err := w.Write(out); err != nil {
						return err
					}
				}
			}
			return sc.Err()
		}
	}
	sideSnap, _ := TakeSnapshot(e.sidecar)
	_, err = Apply(Plan{ConfigDir: cfg, SessionID: testSession, Op: "strip-thinking", Force: true,
		Files: []FileWrite{
			{Path: e.main, Snapshot: mainSnap, Render: render(e.main, mainSnap)},
			{Path: e.sidecar, Snapshot: sideSnap, Render: render(e.sidecar, sideSnap)},
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

func faultPaths(cfg string) testEnv {
	proj := filepath.Join(cfg, "projects", "-p")
	return testEnv{configDir: cfg, projectDir: proj,
		main:    filepath.Join(proj, testSession+".jsonl"),
		sidecar: filepath.Join(proj, testSession, "subagents", "agent-a1.jsonl")}
}

// TestFaultInjection SIGKILLs a child performing an in-place Apply of a
// ~50 MB session at named steps and at many random moments, and checks that
// every file is always either byte-identical to the original or to the
// complete result, and that a backup with a manifest always restores the
// original.
func TestFaultInjection(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	size := 50 << 20
	if raceEnabled {
		size = 8 << 20 // the race-instrumented child is ~10× slower
	}
	if s := os.Getenv("CCSURGEON_FAULT_MB"); s != "" {
		mb, err := strconv.Atoi(s)
		require.NoError(t, err)
		size = mb << 20
	}
	base := t.TempDir()
	// Template files, hard-linked into each run: Apply never writes to the
	// original inode (it renames a new file over the name), so the template
	// stays pristine — which is checked at the end.
	tmpl := faultPaths(filepath.Join(base, "template"))
	mainData := genSession(size)
	sideData := genSession(64 << 10)
	for p, d := range map[string][]byte{tmpl.main: mainData, tmpl.sidecar: sideData} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, d, 0o600))
	}
	want := map[string][2]string{ // name -> {original sha, result sha}
		"main":    {sha(mainData), sha(transformAll(mainData))},
		"sidecar": {sha(sideData), sha(transformAll(sideData))},
	}
	const original, result = 0, 1

	run := 0
	// runChild prepares a fresh config dir, runs the child, kills it after
	// delay (if >0) and returns the dir and the per-file state (0 original,
	// 1 result).
	runChild := func(killAt string, delay time.Duration) (testEnv, map[string]int, time.Duration) {
		run++
		e := faultPaths(filepath.Join(base, fmt.Sprintf("run%d", run)))
		require.NoError(t, os.MkdirAll(filepath.Dir(e.sidecar), 0o700))
		require.NoError(t, os.Link(tmpl.main, e.main))
		require.NoError(t, os.Link(tmpl.sidecar, e.sidecar))

		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
		cmd.Env = append(os.Environ(), envHelper+"=apply", envHelperDir+"="+e.configDir, envKillAt+"="+killAt)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		require.NoError(t, cmd.Start())
		if delay > 0 {
			time.Sleep(delay)
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		err := cmd.Wait()
		elapsed := time.Since(start)
		if err != nil {
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
				"child failed (%v): %s", err, stderr.String())
		}
		state := map[string]int{}
		for name, p := range map[string]string{"main": e.main, "sidecar": e.sidecar} {
			got := fileSHA(t, p)
			switch got {
			case want[name][original]:
				state[name] = original
			case want[name][result]:
				state[name] = result
			default:
				t.Fatalf("run %d (kill at %q after %v): %s is neither the original nor the result (half-written?)",
					run, killAt, delay, name)
			}
		}
		checkBackups(t, e, want, original)
		return e, state, elapsed
	}
	cleanup := func(e testEnv) { require.NoError(t, os.RemoveAll(e.configDir)) }

	// Deterministic kill points.
	steps := []struct {
		killAt      string
		main, side  int
		restoreable bool // a complete backup must exist
	}{
		{"after-backup", original, original, true},
		{"mid-render", original, original, true},
		{"after-fsync", original, original, true},
		{"before-rename", original, original, true},
		{"between-renames", result, original, true},
		{"after-rename", result, result, true},
		{"", result, result, true}, // no kill: complete run
	}
	var full time.Duration
	t0 := time.Now()
	for _, s := range steps {
		e, state, elapsed := runChild(s.killAt, 0)
		assert.Equal(t, s.main, state["main"], "kill at %q: main", s.killAt)
		assert.Equal(t, s.side, state["sidecar"], "kill at %q: sidecar", s.killAt)
		if s.killAt == "" {
			full = elapsed
			requireNoTemps(t, e.configDir)
		}
		if s.restoreable {
			// The user can always get back to the original.
			list, err := List(e.configDir, testSession)
			require.NoError(t, err)
			require.Len(t, list, 1, "kill at %q", s.killAt)
			_, _, err = Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir, Force: true})
			require.NoError(t, err, "kill at %q", s.killAt)
			assert.Equal(t, want["main"][original], fileSHA(t, e.main))
			assert.Equal(t, want["sidecar"][original], fileSHA(t, e.sidecar))
		}
		cleanup(e)
	}

	t.Logf("deterministic kill points: %v", time.Since(t0))
	t0 = time.Now()

	// Kills at increasing delays across the whole run.
	n := 30
	if raceEnabled {
		n = 8
	}
	seen := map[string]int{}
	for i := range n {
		// Up to 1.5× the full run so that both outcomes are covered.
		delay := time.Duration(i+1) * full * 3 / time.Duration(2*n)
		e, state, _ := runChild("", delay)
		seen[fmt.Sprintf("main=%d sidecar=%d", state["main"], state["sidecar"])]++
		cleanup(e)
	}
	t.Logf("full run %v; %d timed kills in %v; states: %v", full, n, time.Since(t0), seen)

	assert.Equal(t, want["main"][original], fileSHA(t, tmpl.main), "template modified in place")
	assert.Equal(t, want["sidecar"][original], fileSHA(t, tmpl.sidecar), "template modified in place")
}

// checkBackups verifies that every backup with a manifest holds the original
// files with matching checksums.
func checkBackups(t *testing.T, e testEnv, want map[string][2]string, original int) {
	t.Helper()
	list, err := List(e.configDir, testSession)
	require.NoError(t, err)
	for _, b := range list {
		require.Len(t, b.Files, 2)
		for _, f := range b.Files {
			name := "main"
			if f.Rel != testSession+".jsonl" {
				name = "sidecar"
			}
			p := filepath.Join(b.Dir, filepath.FromSlash(f.Rel))
			assert.Equal(t, want[name][original], fileSHA(t, p), "copy in %s", b.Name)
			assert.NoError(t, verifyChecksum(b.Dir, p, f), "manifest of %s", b.Name)
		}
	}
}
