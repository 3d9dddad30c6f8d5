//go:build linux

package backup

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/testmount"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackupOnAFullDiskSaysSoInTheSameWords: a backup (an in-place
// change's: copies) of a session of 60 files, written eight at a time,
// on a disk with room for half of them: which file meets the full disk
// is a matter of timing, so the refusal names none of them, run after
// run; and nothing of the backup is left.
func TestBackupOnAFullDiskSaysSoInTheSameWords(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	said := map[string]int{}
	for run := range 6 {
		cfg := filepath.Join(t.TempDir(), "cfg")
		require.NoError(t, os.Mkdir(cfg, 0o700))
		testmount.Tmpfs(t, cfg, "4m")
		proj := filepath.Join(cfg, "projects", "-p")
		var items []item
		var need int64
		for i := range 60 {
			rel := fmt.Sprintf("%s/tool-results/t%03d.txt", id, i)
			p := filepath.Join(proj, filepath.FromSlash(rel))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			b := bytes.Repeat([]byte{'x'}, 4096*(1+i%5))
			require.NoError(t, os.WriteFile(p, b, 0o600))
			need += int64(len(b))
			items = append(items, item{FileWrite: FileWrite{Path: p}, target: p, rel: rel})
		}
		var sf syscall.Statfs_t
		require.NoError(t, syscall.Statfs(cfg, &sf))
		used := int64(sf.Blocks-sf.Bfree) * sf.Bsize
		require.NoError(t, syscall.Mount("tmpfs", cfg, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d", used+need/2)))
		_, err := makeBackup(cfg, id, id, "test", proj, time.Now(), items, backupCopy, nil)
		require.Error(t, err, "run %d: the backup fit", run)
		require.ErrorIs(t, err, ErrNoSpace)
		said[strings.ReplaceAll(err.Error(), cfg, "CFG")]++
		left, _ := filepath.Glob(filepath.Join(sessionBackupRoot(cfg, id), "*"))
		assert.Empty(t, left, "run %d: the failed backup was left", run)
	}
	assert.Len(t, said, 1, "the refusal's words changed from run to run: %v", said)
}
