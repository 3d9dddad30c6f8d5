//go:build unix

package app

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorSideFileIsAFIFO: every file beside the sessions that doctor
// reads by name (the settings, managed settings, a project's
// sessions-index.json, history.jsonl, .claude.json) may be a FIFO: doctor
// reads none of them as such (opening one blocks until a writer comes) and
// finishes; the subtest names the file that hung.
func TestDoctorSideFileIsAFIFO(t *testing.T) {
	for _, name := range []string{"settings.json", "managed-settings.json", "sessions-index.json", "history.jsonl", ".claude.json"} {
		t.Run(name, func(t *testing.T) {
			d := newDoctorDir(t)
			proj := d.dir("p")
			d.add("multi-turn", proj, "", time.Hour, nil)
			managed := filepath.Join(d.root, "managed")
			require.NoError(t, os.MkdirAll(managed, 0o755))
			p := filepath.Join(d.cfg, name)
			switch name {
			case "managed-settings.json":
				p = filepath.Join(managed, name)
			case "sessions-index.json":
				p = filepath.Join(d.cfg, "projects", chain.ProjectSlug(proj), name)
			}
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			done := make(chan error, 1)
			go func() {
				_, err := d.text(DoctorOptions{ManagedSettingsDir: managed})
				done <- err
			}()
			select {
			case err := <-done:
				require.NoError(t, err, "a FIFO is no finding")
			case <-time.After(10 * time.Second):
				// unblock the reader so that the test process can end
				if fh, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					fh.Close()
				}
				t.Fatalf("doctor hangs on %s as a FIFO", name)
			}
		})
	}
}

// TestDoctorNamesAnUnreadableSession: a session file the user cannot read
// (mode 000) is left out of every listing (chain.SessionsIn): doctor still
// names it, with the error. Root reads every file, so as root (CI) doctor
// runs as another user (nobody, 65534) on a config dir given to that user:
// the test runs wherever it runs, not skipped.
func TestDoctorNamesAnUnreadableSession(t *testing.T) {
	if cfg := os.Getenv("CCSURGEON_DOCTOR_AS_USER"); cfg != "" {
		// the other user's side: doctor on the config dir the test made,
		// its JSON on stdout and nothing else (exit before the test's own
		// output)
		var out, errb bytes.Buffer
		_ = (&Env{ConfigDir: cfg, Out: &out, Err: &errb, Quiet: true, JSON: true}).RunDoctor(DoctorOptions{})
		_, _ = os.Stdout.Write(out.Bytes())
		os.Exit(0)
	}
	d := newDoctorDir(t)
	proj := d.dir("p")
	_, p := d.add("multi-turn", proj, "", 2*time.Hour, nil)
	require.NoError(t, os.Chmod(p, 0))
	t.Cleanup(func() { _ = os.Chmod(p, 0o600) })
	var r DoctorResult
	if os.Geteuid() != 0 {
		var err error
		r, _, err = d.run(DoctorOptions{})
		require.Error(t, err)
	} else {
		bin := filepath.Join(d.root, "app.test") // where the other user can run it
		self, err := os.ReadFile(os.Args[0])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(bin, self, 0o755))
		for dir := d.root; dir != "/" && dir != filepath.Clean(os.TempDir()); dir = filepath.Dir(dir) {
			require.NoError(t, os.Chmod(dir, 0o755)) // the other user reaches the tree
		}
		require.NoError(t, filepath.Walk(d.root, func(q string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(q, 65534, 65534)
		}))
		cmd := exec.Command(bin, "-test.run=^TestDoctorNamesAnUnreadableSession$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CCSURGEON_DOCTOR_AS_USER="+d.cfg)
		cmd.Dir = d.root
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), errb.String())
		require.NoError(t, json.Unmarshal(out.Bytes(), &r), "%s%s", out.String(), errb.String())
	}
	require.Len(t, r.Findings, 1, "%+v", r.Findings)
	assert.Equal(t, doctor.Unreadable, r.Findings[0].Kind)
	assert.Contains(t, r.Findings[0].Message, "permission denied")
}
