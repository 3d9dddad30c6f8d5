package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNeverUnderProjects: -o FILE anywhere under <config-dir>/projects/
// wrote a second file with the session's id (also when nothing changed:
// -o always writes), and two files with one sessionId there confuse the
// client. Every writing command refuses it (exit 2, nothing written), by
// whichever path the folder is reached (a link to projects/, a link to the
// config dir), with a hint to use --new or a path outside projects/; the
// same rule as a share folder (redact -o DIR/).
func TestOutputNeverUnderProjects(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	proj := filepath.Dir(path)
	projects := filepath.Join(cfg, "projects")
	links := t.TempDir()
	require.NoError(t, os.Symlink(projects, filepath.Join(links, "p")))
	require.NoError(t, os.Symlink(cfg, filepath.Join(links, "c")))
	backdate(t, cfg)
	h0 := hashTree(t, cfg)
	for _, op := range [][]string{
		{"redact"}, // nothing to redact: -o writes an identical copy
		{"strip-thinking"},
		{"drop-tool-calls", "--tool", "Bash"}, // changes something
		{"compress"},
		{"repair"},
		{"clone"},
		{"fork", "1"},
	} {
		for _, out := range []string{
			filepath.Join(proj, "copy.jsonl"),
			filepath.Join(projects, "copy.jsonl"),
			filepath.Join(projects, "-elsewhere") + "/",
			filepath.Join(links, "p", "-work-p", "copy.jsonl"),
			filepath.Join(links, "c", "projects", "-work-p", "copy.jsonl"),
		} {
			args := append([]string{"--config-dir", cfg, op[0], path}, op[1:]...)
			_, errs, code := cliRun(t, append(args, "-o", out)...)
			assert.Equal(t, 2, code, "%s -o %s: %s", op, out, errs)
			assert.Contains(t, errs, "is under the config dir's projects folder", "%s -o %s", op, out)
			assert.Regexp(t, `(?m)^ccsurgeon: hint: .*outside `, errs, "%s -o %s", op, out)
		}
	}
	assert.Empty(t, changes(h0, hashTree(t, cfg)), "a refused -o wrote under projects/")
	assert.NoDirExists(t, filepath.Join(projects, "-elsewhere"))
}
