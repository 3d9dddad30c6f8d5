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

// TestDoctorCommand: a sound config dir exits 0 and prints nothing on
// stdout; a stranded session is one line, exit 1, and the command the line
// (and --json) gives works as printed, after which doctor is content; two
// ways of naming the sessions at once is a usage error (exit 2).
func TestDoctorCommand(t *testing.T) {
	cfg, proj, put := projectSession(t)
	put(chain.ProjectSlug(proj))
	out, errs, code := cliRun(t, "--config-dir", cfg, "doctor")
	require.Equal(t, 0, code, "%s%s", out, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "1 session examined, nothing needs attention")

	require.NoError(t, os.RemoveAll(filepath.Join(cfg, "projects")))
	stranded := put(strings.ReplaceAll(proj, string(filepath.Separator), "-"))
	id := strings.TrimSuffix(filepath.Base(stranded), ".jsonl")
	out, _, code = cliRun(t, "--config-dir", cfg, "doctor")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^`+id+`: stranded: .*; fix: ccsurgeon --config-dir \S+ move `+id+` --to `+proj+"\n$", out)
	js, _, code := cliRun(t, "--config-dir", cfg, "--json", "doctor")
	assert.Equal(t, 1, code)
	var r struct {
		Findings []struct {
			Kind    string `json:"kind"`
			Command string `json:"command"`
		} `json:"findings"`
		NeedsAttention int `json:"needs_attention"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &r), js)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, 1, r.NeedsAttention)
	args := strings.Fields(r.Findings[0].Command)
	require.Equal(t, "ccsurgeon", args[0])
	_, errs, code = cliRun(t, args[1:]...)
	require.Equal(t, 0, code, "%s: %s", r.Findings[0].Command, errs)
	assert.FileExists(t, filepath.Join(cfg, "projects", chain.ProjectSlug(proj), id+".jsonl"))
	_, errs, code = cliRun(t, "--config-dir", cfg, "doctor")
	assert.Equal(t, 0, code, errs)

	for _, a := range [][]string{{"doctor", id, "--project", proj}, {"doctor", "--all", "--project", proj}, {"doctor", "--nope"}} {
		_, errs, code = cliRun(t, append([]string{"--config-dir", cfg}, a...)...)
		assert.Equal(t, 2, code, "%v: %s", a, errs)
		assert.Regexp(t, `^ccsurgeon: `, errs)
	}
}

// projectSession is a config dir and a project "my.app_v2" that exists;
// put installs the example session, run in the project, under folder and
// an hour old, and returns its path.
func projectSession(t *testing.T) (cfg, proj string, put func(folder string) string) {
	root := t.TempDir()
	cfg = filepath.Join(root, "cfg")
	proj = filepath.Join(root, "src", "my.app_v2")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	b = bytes.ReplaceAll(b, []byte("/tmp/ccsurgeon-gen/2.1.328/tools/work/project"), []byte(proj))
	return cfg, proj, func(folder string) string {
		src := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(src, b, 0o600))
		p := installSession(t, cfg, folder, src)
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
}
