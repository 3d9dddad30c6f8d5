package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASessionNamedTwiceIsDoneOnce: the SESSIONs of a batch that name one
// session twice (its id and a prefix, its path as another string, a hard
// link) were each done as a session of their own, at the same time: a
// change failed on the session's lock as "being changed by another
// ccsurgeon" (itself) and the batch exited 1, and a reader printed it and
// counted it twice. A session is done once, under the first name given;
// the others are named on stderr. The member that broke is named.
func TestASessionNamedTwiceIsDoneOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		second func(path, id string) string
	}{
		{"an id prefix", func(_, id string) string { return id[:8] }},
		{"the path", func(path, _ string) string { return path }},
		{"the path through ..", func(path, _ string) string {
			return filepath.Join(filepath.Dir(path), "..", filepath.Base(filepath.Dir(path)), filepath.Base(path))
		}},
		{"a hard link", func(path, _ string) string {
			l := filepath.Join(filepath.Dir(filepath.Dir(path)), "link.jsonl")
			require.NoError(t, os.Link(path, l))
			return l
		}},
	} {
		for _, cmd := range [][]string{{"strip-thinking"}, {"validate"}, {"info"}} {
			t.Run(c.name+" "+cmd[0], func(t *testing.T) {
				cfg := t.TempDir()
				path, _ := installSessionOf(t, cfg, "-tmp-p", "/tmp/p")
				old := time.Now().Add(-time.Hour)
				require.NoError(t, os.Chtimes(path, old, old))
				id := idOf(path)
				second := c.second(path, id)
				args := append([]string{"--config-dir", cfg}, cmd...)
				_, stderr, code := cliRun(t, append(args, id, second)...)
				require.Equal(t, 0, code, "%s named by its id and %s (%s): %s", cmd[0], c.name, second, stderr)
				assert.NotContains(t, stderr, "2 sessions", "%s counted one session twice: %s", cmd[0], stderr)
				assert.Contains(t, stderr, "names the same session as", "%s: the second name is not said to be left out: %s", cmd[0], stderr)
				assert.False(t, strings.Contains(stderr, "another ccsurgeon"), stderr)
			})
		}
	}
}
