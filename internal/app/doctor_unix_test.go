//go:build unix

package app

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
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
