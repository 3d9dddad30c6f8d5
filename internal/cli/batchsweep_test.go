package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABatchSweepsEachProjectFolderOnce: a change over many sessions of
// one project folder (--all) looked for what killed runs left in the
// whole folder (temps, unfinished new sessions: every folder's marker)
// before each session, twice: 1,000 sessions of 188 MB took 17 s, 15 s
// of it in the kernel (1.3 M opens, 980,000 folder reads). The folder
// once a run, whatever the count of its sessions; a member per command
// that writes a batch. A session's own folders are still swept before
// its change.
func TestABatchSweepsEachProjectFolderOnce(t *testing.T) {
	for _, args := range [][]string{
		{"strip-thinking", "--all"},
		{"clone", "--all"},
		{"redact-secrets", "--all"},
	} {
		t.Run(args[0], func(t *testing.T) {
			cfg := t.TempDir()
			path, b := installSessionOf(t, cfg, "-work-proj", "/work/proj")
			id := idOf(path)
			const sessions = 12
			old := time.Now().Add(-time.Hour)
			for i := 1; i < sessions; i++ {
				nid := fmt.Sprintf("%s%04d", id[:len(id)-4], i)
				p := filepath.Join(filepath.Dir(path), nid+".jsonl")
				require.NoError(t, os.WriteFile(p, bytes.ReplaceAll(b, []byte(id), []byte(nid)), 0o600))
				require.NoError(t, os.Chtimes(p, old, old))
			}
			require.NoError(t, os.Chtimes(path, old, old))
			proj := filepath.Dir(path)
			var mu sync.Mutex
			sweeps := 0
			backup.TestHook = func(step string) {
				if d, ok := strings.CutPrefix(step, "sweep-temps:"); ok && filepath.Base(d) == filepath.Base(proj) {
					mu.Lock()
					sweeps++
					mu.Unlock()
				}
			}
			defer func() { backup.TestHook = nil }()
			_, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "-q"}, append(args, "--force")...)...)
			require.Equal(t, 0, code, errs)
			assert.LessOrEqual(t, sweeps, 2, "the project folder swept %d times for %d sessions", sweeps, sessions)
		})
	}
}
