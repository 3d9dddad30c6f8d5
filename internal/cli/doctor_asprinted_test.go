package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doctorJSON runs doctor --json and returns its findings.
func doctorJSON(t *testing.T, cfg string) []map[string]any {
	t.Helper()
	js, errs, _ := cliRun(t, "--config-dir", cfg, "--json", "doctor")
	var r struct {
		Findings []map[string]any `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &r), "%s%s", js, errs)
	return r.Findings
}

// TestDoctorCommandsRunAsPrinted: whatever a session's file name, place or
// recorded working directory, the command doctor prints for it runs as
// printed (split as a shell does), on one line, and does what the line
// says: the subtest names the member of the family that broke.
func TestDoctorCommandsRunAsPrinted(t *testing.T) {
	t.Run("keep a copy of a session whose file name is no id", func(t *testing.T) {
		for _, name := range []string{"notes", "my notes"} {
			cfg, proj, put := projectSession(t)
			p := put(chain.ProjectSlug(proj))
			named := filepath.Join(filepath.Dir(p), name+".jsonl")
			require.NoError(t, os.Rename(p, named))
			old := time.Now().Add(-40 * 24 * time.Hour)
			require.NoError(t, os.Chtimes(named, old, old))
			fs := doctorJSON(t, cfg)
			require.Len(t, fs, 1, "%v", fs)
			require.Equal(t, "due_for_deletion", fs[0]["kind"])
			cmd := fs[0]["command"].(string)
			args, err := splitShell(cmd)
			require.NoError(t, err)
			_, errs, code := cliRun(t, args[1:]...)
			require.Equal(t, 0, code, "%s: %s", cmd, errs)
			o := args[len(args)-1]
			assert.FileExists(t, o)
			abs, _ := filepath.Abs(o)
			assert.False(t, strings.HasPrefix(abs, cfg+string(filepath.Separator)), "the copy %s is inside the config dir, which the cleanup empties", abs)
			assert.Equal(t, name+".jsonl", filepath.Base(o), cmd)
		}
	})
	t.Run("stranded session whose id is in two folders", func(t *testing.T) {
		cfg, proj, put := projectSession(t)
		other := filepath.Join(filepath.Dir(proj), "other")
		require.NoError(t, os.MkdirAll(other, 0o755))
		stranded := put(strings.ReplaceAll(proj, string(filepath.Separator), "-"))
		// the same file, run in another project, at home there
		b, err := os.ReadFile(stranded)
		require.NoError(t, err)
		twin := filepath.Join(cfg, "projects", chain.ProjectSlug(other), filepath.Base(stranded))
		require.NoError(t, os.MkdirAll(filepath.Dir(twin), 0o700))
		require.NoError(t, os.WriteFile(twin, bytes.ReplaceAll(b, []byte(proj), []byte(other)), 0o600))
		var cmd string
		for _, f := range doctorJSON(t, cfg) {
			if f["kind"] == "stranded" {
				cmd = f["command"].(string)
			}
		}
		require.NotEmpty(t, cmd)
		args, err := splitShell(cmd)
		require.NoError(t, err)
		_, errs, code := cliRun(t, args[1:]...)
		require.Equal(t, 0, code, "%s: %s", cmd, errs)
		assert.FileExists(t, filepath.Join(cfg, "projects", chain.ProjectSlug(proj), filepath.Base(stranded)))
		assert.FileExists(t, twin, "the other project's session is left alone")
	})
	t.Run("stranded session whose working directory holds a newline", func(t *testing.T) {
		cfg, proj, put := projectSession(t)
		nl := filepath.Join(filepath.Dir(proj), "two\nlines")
		require.NoError(t, os.MkdirAll(nl, 0o755))
		p := put("-elsewhere")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		esc, _ := json.Marshal(nl)
		qp, _ := json.Marshal(proj)
		require.NoError(t, os.WriteFile(p, bytes.ReplaceAll(b, qp, esc), 0o600))
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(p, old, old))
		out, _, code := cliRun(t, "--config-dir", cfg, "doctor")
		assert.Equal(t, 1, code)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, 1, "one line per finding:\n%s", out)
		_, cmd, ok := strings.Cut(lines[0], "; fix: ")
		require.True(t, ok, lines[0])
		args, err := splitShell(cmd)
		require.NoError(t, err)
		_, errs, code := cliRun(t, args[1:]...)
		require.Equal(t, 0, code, "%s: %s", cmd, errs)
		assert.FileExists(t, filepath.Join(cfg, "projects", chain.ProjectSlug(nl), filepath.Base(p)))
	})
}
