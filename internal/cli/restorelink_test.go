package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoreADeletedSessionThroughALinkedConfigDir: a config dir that is
// a link (~/.claude kept with the dotfiles) is one config dir. A session
// changed (drop-tool-calls) while named by its path is backed up with its real folder (the
// path is resolved), and once the session was deleted, `restore ID`
// refused: "the backups … name a folder outside <link>/projects", the
// real folder being taken for another place; restore by the path through
// the link said the same. Every way of naming the session when it was
// changed and when it is restored gives it back; the member that broke is
// named.
func TestRestoreADeletedSessionThroughALinkedConfigDir(t *testing.T) {
	for _, changedAs := range []string{"id", "path through the link"} {
		for _, restoredAs := range []string{"id", "path through the link", "real path"} {
			t.Run(changedAs+" then "+restoredAs, func(t *testing.T) {
				_, real, link := linkedConfigDir(t)
				path, b := installSessionOf(t, real, "-work-proj", "/work/proj")
				old := time.Now().Add(-time.Hour)
				require.NoError(t, os.Chtimes(path, old, old))
				id := idOf(path)
				name := func(as string) string {
					return map[string]string{"id": id,
						"path through the link": filepath.Join(link, "projects", "-work-proj", id+".jsonl"),
						"real path":             path}[as]
				}
				_, errs, code := cliRun(t, "--config-dir", link, "drop-tool-calls", "--tool", "Edit", name(changedAs))
				require.Equal(t, 0, code, errs)
				require.NoError(t, os.Remove(path))
				_, errs, code = cliRun(t, "--config-dir", link, "restore", name(restoredAs))
				require.Equal(t, 0, code, "changed as %s, deleted, restored as %s: %s", changedAs, restoredAs, errs)
				after, err := os.ReadFile(path)
				require.NoError(t, err, "changed as %s, deleted, restored as %s", changedAs, restoredAs)
				assert.True(t, bytes.Equal(b, after), "changed as %s, restored as %s: not the original", changedAs, restoredAs)
			})
		}
	}
}
