package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdoutRedirectedIntoTheConfigDirIsRefused: '-o -' whose standard
// output the shell opened on a file under the config dir's projects/ or
// ccsurgeon/ (ccsurgeon compress ID -o - >> ~/.claude/projects/…/ID.jsonl,
// the tired user's 'sed f > f') is refused before anything is written,
// as -o naming that file is: appended to the session itself it made
// every entry a duplicate (20 validation errors, no backup). Standard
// output on a file elsewhere works as before.
func TestStdoutRedirectedIntoTheConfigDirIsRefused(t *testing.T) {
	cfg, path, bk := sessionWithABackup(t)
	other := installSession(t, cfg, "-tmp-q", "testdata/sessions/2.1.328/multi-turn.jsonl")
	id := idOf(path)
	bks := []string{filepath.Join(bk, id+".jsonl")}
	loose := filepath.Join(t.TempDir(), "loose.jsonl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(loose, b, 0o600))
	for _, tc := range []struct {
		name, session, stdout string
		ok                    bool
	}{
		{"the session itself", id, path, false},
		{"another session", id, other, false},
		{"a backup's copy", id, bks[0], false},
		{"a loose session itself", loose, loose, false},
		{"a file elsewhere", id, filepath.Join(t.TempDir(), "share.jsonl"), true},
	} {
		for _, cmd := range [][]string{{"compress", tc.session, "--keep-turns", "0"}, {"clone", tc.session}, {"repair", tc.session}, {"redact", tc.session}} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				before, _ := os.ReadFile(tc.stdout)
				f, err := os.OpenFile(tc.stdout, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
				require.NoError(t, err)
				var errb bytes.Buffer
				code := run(context.Background(), append([]string{"ccsurgeon", "--config-dir", cfg}, append(cmd, "-o", "-")...), strings.NewReader(""), f, &errb)
				require.NoError(t, f.Close())
				after, _ := os.ReadFile(tc.stdout)
				if tc.ok {
					assert.Equal(t, 0, code, errb.String())
					return
				}
				assert.Equal(t, 2, code, errb.String())
				assert.Equal(t, before, after, "written through standard output: %s", errb.String())
				assert.Contains(t, errb.String(), "standard output")
				assert.Contains(t, errb.String(), "hint: ")
			})
		}
	}
}
