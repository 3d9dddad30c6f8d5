package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunningAChangeTwiceChangesNothingTheSecondTime: the tired user runs
// the same command again. Its first run did what was asked; the second
// finds nothing to change (no second backup, no second rewrite). compress
// --max-result cut a tool output it had shortened already (head, marker
// and tail are longer than SIZE), and its marker then said 56 bytes were
// removed where 1258 had been: the record of the first cut was lost.
func TestRunningAChangeTwiceChangesNothingTheSecondTime(t *testing.T) {
	for _, args := range [][]string{
		{"compress", "--keep-turns", "0", "--max-result", "1KB"},
		{"compress", "--keep-turns", "0", "--max-result", "200B"},
		{"compress"},
		{"rewrite", "--compress-old-turns", "0", "--max-result", "1KB"},
		{"rewrite", "--compress-old-turns", "0", "--max-result", "300B", "--strip-thinking", "--redact-secrets"},
		{"strip-thinking"},
		{"drop-tool-calls", "--larger-than", "1KB"},
		{"redact"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cfg := t.TempDir()
			path, _ := installSessionOf(t, cfg, "-tmp-p", "/tmp/p")
			id := idOf(path)
			cmd := append([]string{"--config-dir", cfg, "--json", args[0], id}, args[1:]...)
			stdout, stderr, code := cliRun(t, cmd...)
			require.Equal(t, 0, code, stderr)
			first, err := os.ReadFile(path)
			require.NoError(t, err)
			old := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(path, old, old))
			stdout, stderr, code = cliRun(t, cmd...)
			require.Equal(t, 0, code, stderr)
			var out struct {
				NothingToChange bool `json:"nothing_to_change"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
			second, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, out.NothingToChange, "the second run changed the session again:\n%s", stdout)
			assert.Equal(t, string(first), string(second))
		})
	}
}
