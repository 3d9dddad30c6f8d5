//go:build unix

package backup

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBackupFoldersAreDurableBeforeTheManifest: a backup is whole once
// its manifest is there, and a session's original may be replaced once
// the backup is made; so each folder below the backup's own that holds a
// saved file or another folder (<id>/, <id>/subagents/, <id>/tool-results/,
// a folder nested deeper) is fsynced before the manifest is linked, and
// the backup's folder (which holds the manifest) before the backup is
// returned: else a crash could keep the manifest and lose the entry of a
// folder that holds the only copy of a file. A member per way of saving
// and layout of files; the failure names the folders not made durable.
func TestBackupFoldersAreDurableBeforeTheManifest(t *testing.T) {
	const id = "0b7e5c1a-1111-4222-8333-944455556660"
	layouts := []struct {
		name string
		rels []string
	}{
		{"transcript only", []string{id + ".jsonl"}},
		{"subagents", []string{id + ".jsonl", id + "/subagents/agent-a.jsonl", id + "/subagents/agent-a.meta.json"}},
		{"subagents and tool results", []string{id + ".jsonl", id + "/subagents/agent-a.jsonl", id + "/tool-results/toolu_1.txt"}},
		{"a folder nested deeper", []string{id + ".jsonl", id + "/subagents/nested/agent-b.jsonl"}},
		{"sidecars without the transcript", []string{id + "/subagents/agent-a.jsonl"}},
	}
	hows := []struct {
		name string
		how  backupHow
	}{{"copy", backupCopy}, {"link", backupLink}, {"link, data synced later", backupLinkLater}}
	for _, h := range hows {
		for _, l := range layouts {
			t.Run(h.name+"/"+l.name, func(t *testing.T) {
				cfg := t.TempDir()
				proj := filepath.Join(cfg, "projects", "-p")
				var items []item
				for _, rel := range l.rels {
					p := filepath.Join(proj, filepath.FromSlash(rel))
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
					require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o600))
					items = append(items, item{FileWrite: FileWrite{Path: p}, target: p, rel: rel})
				}
				var mu sync.Mutex
				synced := map[string]bool{}
				var atManifest map[string]bool // the folders fsynced when the manifest was linked
				TestHook = func(step string) {
					mu.Lock()
					defer mu.Unlock()
					switch {
					case strings.HasPrefix(step, "dir-synced:"):
						synced[filepath.Clean(strings.TrimPrefix(step, "dir-synced:"))] = true
					case step == "move-render-before-link" && atManifest == nil:
						atManifest = map[string]bool{}
						for d := range synced {
							atManifest[d] = true
						}
					}
				}
				defer func() { TestHook = nil }()
				dir, err := makeBackup(cfg, id, id, "test", proj, time.Now(), items, h.how, nil)
				require.NoError(t, err)
				require.FileExists(t, filepath.Join(dir, manifestName))
				require.NotNil(t, atManifest, "no manifest linked")
				var missing []string
				require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
					if err == nil && e.IsDir() && p != dir && !atManifest[filepath.Clean(p)] {
						rel, _ := filepath.Rel(dir, p)
						missing = append(missing, rel)
					}
					return err
				}))
				require.Empty(t, missing, "folders of the backup not fsynced before its manifest was linked")
				require.True(t, synced[filepath.Clean(dir)], "the backup's folder not fsynced before the backup was returned")
			})
		}
	}
}
