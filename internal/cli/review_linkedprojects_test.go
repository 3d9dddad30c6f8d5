package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestALinkedProjectsFolderIsRefusedWithAHintThatWorks: a user whose
// config dir's projects/ is a symbolic link to a folder kept elsewhere
// (dotfiles) is refused every change that writes there (a clone, a
// move): each refusal has its hint (move's had none), the hint speaks of
// the folder the link names (not "a copy of the file"), names no flag
// the command does not have (move has no -o), and, run as printed, it
// lets the same command succeed.
func TestALinkedProjectsFolderIsRefusedWithAHintThatWorks(t *testing.T) {
	testlink.Need(t)
	needShForTheHint(t)
	for _, tc := range []struct {
		name string
		args func(id string) []string
	}{
		{"clone", func(id string) []string { return []string{"clone", id} }},
		{"move", func(id string) []string { return []string{"move", id, "--to", "/home/u/elsewhere"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "cfg")
			kept := filepath.Join(root, "dotfiles", "claude-projects")
			require.NoError(t, os.MkdirAll(cfg, 0o700))
			path := installSession(t, filepath.Join(root, "dotfiles", "x"), "-home-u-p", example)
			require.NoError(t, os.Rename(filepath.Join(root, "dotfiles", "x", "projects"), kept))
			require.NoError(t, os.Symlink(kept, filepath.Join(cfg, "projects")))
			path = filepath.Join(kept, filepath.Base(filepath.Dir(path)), filepath.Base(path))
			old := time.Now().Add(-time.Hour)
			require.NoError(t, filepath.Walk(kept, func(p string, _ os.FileInfo, err error) error {
				if err != nil {
					return err
				}
				return os.Chtimes(p, old, old) // no live-session guard
			}))
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			args := append([]string{"--config-dir", cfg}, tc.args(id)...)

			_, stderr, code := cliRun(t, args...)
			require.Equal(t, 1, code, stderr)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "refused: nothing changed")
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			require.Len(t, lines, 2, "one error line and one hint line: %q", stderr)
			hint, ok := strings.CutPrefix(lines[1], "ccsurgeon: hint: ")
			require.True(t, ok, "the second line is the hint: %q", stderr)
			assert.NotContains(t, hint, "copy of the file", "the link names a folder")
			if tc.name == "move" {
				assert.NotContains(t, hint, "-o", "move has no -o")
			}
			// the hint, run as printed, then the same command
			require.True(t, strings.Contains(hint, "(") && strings.HasSuffix(strings.TrimSuffix(hint, ", and run the command again"), ")"), "a command to run in the hint: %q", hint)
			cmd := hint[strings.Index(hint, "(")+1 : strings.LastIndex(hint, ")")]
			out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
			require.NoError(t, err, "%s: %s", cmd, out)
			_, stderr, code = cliRun(t, args...)
			assert.Equal(t, 0, code, stderr)
		})
	}
}

// TestADanglingSidecarLinkIsRefusedWithAHintThatWorks: a legacy subagent
// transcript beside the sessions (agent-*.jsonl) that is a link to
// nothing any more (its file removed) blocks every in-place change of the
// sessions of its folder (whose it is cannot be known); the hint said to
// replace it with a copy of the file it names, which is not there. The
// hint, run as printed, must let the same change through.
func TestADanglingSidecarLinkIsRefusedWithAHintThatWorks(t *testing.T) {
	testlink.Need(t)
	needShForTheHint(t)
	cfg := filepath.Join(t.TempDir(), "cfg")
	path := installSession(t, cfg, "-home-u-p", example)
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "gone", "agent-1.jsonl"), filepath.Join(filepath.Dir(path), "agent-dead.jsonl")))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, filepath.Walk(filepath.Dir(path), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return err
		}
		return os.Chtimes(p, old, old) // no live-session guard
	}))
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	args := []string{"--config-dir", cfg, "strip-thinking", id}

	_, stderr, code := cliRun(t, args...)
	require.Equal(t, 1, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 2, "one error line and one hint line: %q", stderr)
	hint, ok := strings.CutPrefix(lines[1], "ccsurgeon: hint: ")
	require.True(t, ok, "the second line is the hint: %q", stderr)
	require.True(t, strings.Contains(hint, "(") && strings.HasSuffix(strings.TrimSuffix(hint, ", and run the command again"), ")"), "a command to run in the hint: %q", hint)
	cmd := hint[strings.Index(hint, "(")+1 : strings.LastIndex(hint, ")")]
	out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
	require.NoError(t, err, "%s: %s", cmd, out)
	_, stderr, code = cliRun(t, args...)
	assert.Equal(t, 0, code, stderr)
}

// needShForTheHint: the hint is a POSIX shell command, run as printed with
// sh; where sh is missing off Windows the test fails (CI has it), it does
// not skip.
func needShForTheHint(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("not run: the hint is a POSIX shell command (rm, mv), and Windows has no sh to run it as printed")
	}
	_, err := exec.LookPath("sh")
	require.NoError(t, err, "sh runs the hint as printed")
}
