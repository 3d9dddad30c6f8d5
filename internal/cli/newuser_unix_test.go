//go:build !windows

package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputWindowsPathOffWindows: "-o C:\Users\ana\share\" (a folder as
// Windows writes one, typed on Linux or macOS) wrote a file named
// "C:\Users\ana\share\" in the current folder and said "wrote
// C:\Users\ana\share\": there '\' is part of a file name, and the user
// meant a folder. Every command that takes -o refuses a path that ends in
// '\' or starts with a drive ("C:\"), writing nothing, and the hint is
// the name written with '/'.
func TestOutputWindowsPathOffWindows(t *testing.T) {
	src, err := filepath.Abs(example)
	require.NoError(t, err)
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, c := range []struct{ out, hint string }{
		{`C:\Users\ana\share\`, "share/"},
		{`share\`, "share/"},
		{`C:\Users\ana\share.jsonl`, "share.jsonl"},
		{`D:/share.jsonl`, "share.jsonl"},
	} {
		for _, cmd := range [][]string{
			{"redact", src}, {"compress", src}, {"clone", src}, {"fork", src, "1"}, {"strip-thinking", src},
			{"drop-tool-calls", src, "--tool", "Bash"}, {"repair", src}, {"rewrite", src, "--strip-thinking"},
		} {
			args := append(append([]string{}, cmd...), "-o", c.out)
			out, errs, code := cliRun(t, args...)
			assert.Equal(t, 2, code, "%v: %s", args, errs)
			assert.Empty(t, out, "%v", args)
			assert.Equal(t, "ccsurgeon: -o "+c.out+" is a Windows path: here '\\' is part of a file name and a folder ends in '/'\n"+
				"ccsurgeon: hint: write it with '/', such as -o "+c.hint+"\n", errs, "%v", args)
			ents, err := os.ReadDir(cwd)
			require.NoError(t, err)
			assert.Empty(t, ents, "%v wrote in the current folder", args)
		}
	}
}

// TestMoveToWindowsPathOffWindows: "move S --to 'C:\Users\ana\proj'"
// on Linux moved the session to the project "./C:\Users\ana\proj" of the
// current folder, one no client will run in ("does not exist (yet)"):
// the session gone from every picker. A --to written as Windows writes a
// path is refused, nothing moved. (--project takes one: a session made
// on Windows records such a working directory.)
func TestMoveToWindowsPathOffWindows(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	backdate(t, cfg)
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	wd, err := os.Getwd()
	require.NoError(t, err)
	for _, to := range []string{`C:\Users\ana\proj`, `proj\`, `D:/proj`} {
		for _, dry := range [][]string{nil, {"--dry-run"}} {
			args := append([]string{"--config-dir", cfg, "move", idOf(p), "--to", to}, dry...)
			out, errs, code := cliRun(t, args...)
			assert.Equal(t, 2, code, "%v: %s", args, errs)
			assert.Empty(t, out, "%v", args)
			assert.Equal(t, "ccsurgeon: --to "+to+" is a Windows path: here '\\' is part of a file name and a path starts at '/'\n"+
				"ccsurgeon: hint: give the project's folder as this system writes it, such as "+wd+"\n", errs, "%v", args)
		}
	}
	now, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, before, now)
	assert.NoDirExists(t, filepath.Join(cfg, "ccsurgeon", "backups", idOf(p)))
}
