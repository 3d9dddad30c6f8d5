package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputThatCannotBeWrittenSaysWhyWithAHint: `redact S -o
// /proc/x.jsonl` said "create temp file for /proc/x.jsonl: open
// /proc/.x.jsonl.ccsurgeon-tmp-…: no such file or directory", naming our
// temp file and no way out. Every -o whose folder cannot take the file (a
// folder that does not exist, a file where a folder should be, a file
// system that takes no new files such as /proc; a read-only folder too,
// when the test does not run as root), of every command that takes -o, as
// a file and as a share folder DIR/: one "ccsurgeon: cannot write …" line
// naming the -o and why, a hint, exit 1, no temp name, nothing written,
// the session unchanged; a hint that is a command (mkdir) makes a -o that
// then works.
func TestOutputThatCannotBeWrittenSaysWhyWithAHint(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/tools.jsonl")
	id := idOf(p)
	backdate(t, cfg)
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	base := t.TempDir()
	afile := filepath.Join(base, "afile")
	require.NoError(t, os.WriteFile(afile, []byte("mine\n"), 0o600))
	type member struct{ name, output, why string }
	members := []member{
		{"missing folder", filepath.Join(base, "missing", "x.jsonl"), "does not exist"},
		{"missing folder, DIR/", filepath.Join(base, "missing2", "deeper", "share") + "/", "does not exist"},
		{"a file as folder", filepath.Join(afile, "x.jsonl"), "is a file, not a folder"},
		{"a file below a file", filepath.Join(afile, "sub", "x.jsonl"), "is a file, not a folder"},
		{"a file as folder, DIR/", filepath.Join(afile, "share") + "/", "is a file, not a folder"},
		{"/proc", "/proc/x.jsonl", "takes no new files"},
		{"/proc, DIR/", "/proc/share/", "takes no new files"},
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(base, "ro")
		require.NoError(t, os.Mkdir(ro, 0o500))
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		members = append(members, member{"read-only folder", filepath.Join(ro, "x.jsonl"), "permission denied"},
			member{"read-only folder, DIR/", filepath.Join(ro, "share") + "/", "permission denied"})
	}
	cmds := [][]string{
		{"strip-thinking", id}, {"drop-tool-calls", id, "--tool", "Bash"}, {"compress", id, "--keep-turns", "1"},
		{"redact", id}, {"repair", id}, {"rewrite", id}, {"clone", id}, {"fork", id, "1"},
	}
	for _, m := range members {
		for _, c := range cmds {
			args := append([]string{"--config-dir", cfg}, append(c, "-o", m.output)...)
			_, stderr, code := cliRun(t, args...)
			what := m.name + ": " + strings.Join(c[:1], " ")
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			assert.Equal(t, 1, code, "%s: %s", what, stderr)
			if !assert.Len(t, lines, 2, "%s: an error line and a hint: %s", what, stderr) {
				continue
			}
			assert.True(t, strings.HasPrefix(lines[0], "ccsurgeon: cannot write "), "%s: %s", what, lines[0])
			assert.Contains(t, lines[0], m.why, what)
			assert.NotContains(t, stderr, "ccsurgeon-tmp", what)
			assert.True(t, strings.HasPrefix(lines[1], "ccsurgeon: hint: "), "%s: %s", what, lines[1])
			if strings.Contains(lines[1], "mkdir") {
				assert.Contains(t, m.why, "does not exist", "%s: a mkdir hint for a folder that cannot be made: %s", what, lines[1])
			}
		}
	}
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the session is unchanged")
	ents, err := os.ReadDir(base)
	require.NoError(t, err)
	for _, e := range ents {
		assert.Contains(t, []string{"afile", "ro"}, e.Name(), "nothing written")
	}
}
