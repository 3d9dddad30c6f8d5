//go:build !windows

package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// (Linux and macOS, where the POSIX forms are printed: Windows prints
// PowerShell's, which TestPsQuoteFollowsPowerShellsQuotingRules holds.)

// TestPosixQuoteIsOneWordInEveryPosixShell: each word, quoted, is read
// back byte for byte by bash and zsh (the shells of Linux and macOS users;
// dash, /bin/sh on Debian, for words without a control character, which
// take bash's $'...'), and a folder so named is where CdAnd runs the
// command (not run when the folder is missing); RemoveCmd, MkdirCmd and
// FolderForLinkCmd do what they say on such names.
func TestPosixQuoteIsOneWordInEveryPosixShell(t *testing.T) {
	ran := 0
	for _, sh := range []string{"bash", "zsh", "dash"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		ran++
		for _, w := range shellWords {
			q := posixQuote(w)
			if sh == "dash" && q != "" && q[0] == '$' {
				continue
			}
			out, err := exec.Command(sh, "-c", "printf %s "+q).Output()
			require.NoError(t, err, "%s: %q quoted %s", sh, w, q)
			assert.Equal(t, w, string(out), "%s read back %s", sh, q)
		}
		dir := filepath.Join(t.TempDir(), "it's a \"project\" $x")
		require.NoError(t, os.Mkdir(dir, 0o755))
		out, err := exec.Command(sh, "-c", posixShell.cdAnd(dir, "pwd -P")).Output()
		require.NoError(t, err)
		real, _ := filepath.EvalSymlinks(dir)
		assert.Equal(t, real+"\n", string(out), "%s: %s", sh, posixShell.cdAnd(dir, "pwd -P"))
		// the command after cd is not run when the folder is not there
		gone := filepath.Join(dir, "gone")
		mark := filepath.Join(dir, "ran")
		_ = exec.Command(sh, "-c", posixShell.cdAnd(gone, "touch "+posixShell.quote(mark))).Run()
		assert.NoFileExists(t, mark, "%s: the command ran after a failed cd", sh)
		// the hints' other commands, on names a shell would split or expand
		named := filepath.Join(dir, "s[1] it's.jsonl")
		require.NoError(t, os.WriteFile(named, nil, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "s1 it's.jsonl"), nil, 0o600))
		require.NoError(t, exec.Command(sh, "-c", posixShell.removeCmd(named)).Run())
		assert.NoFileExists(t, named)
		assert.FileExists(t, filepath.Join(dir, "s1 it's.jsonl"), "%s: rm removed a name the pattern matches", sh)
		deep := filepath.Join(dir, "new dir", "a b", "c")
		require.NoError(t, exec.Command(sh, "-c", posixShell.mkdirCmd(deep)).Run())
		assert.DirExists(t, deep)
		// a word that begins with '-' is an operand, not an option
		for _, name := range []string{"-n.jsonl", "-nodir"} {
			run := func(cmd string) error {
				c := exec.Command(sh, "-c", cmd)
				c.Dir = dir
				return c.Run()
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o600))
			require.NoError(t, run(posixShell.removeCmd(name)), "%s: %s", sh, posixShell.removeCmd(name))
			assert.NoFileExists(t, filepath.Join(dir, name))
			require.NoError(t, run(posixShell.mkdirCmd(name)), "%s: %s", sh, posixShell.mkdirCmd(name))
			assert.DirExists(t, filepath.Join(dir, name))
			out, err := exec.Command(sh, "-c", "cd "+posixShell.quote(dir)+" && "+posixShell.cdAnd(name, "pwd -P")).Output()
			require.NoError(t, err, "%s: %s", sh, posixShell.cdAnd(name, "pwd -P"))
			assert.Equal(t, filepath.Join(real, name)+"\n", string(out))
		}
		// the id of a resume command is one word: a file's name gave it
		for _, id := range []string{"52fdfc07-2182-454f-963f-5f0f9a621d72", "x;echo PWNED", "$(echo PWNED)"} {
			out, err := exec.Command(sh, "-c", "claude() { printf '%s|' \"$@\"; }; "+posixShell.cdAnd(dir, "claude --resume "+posixShell.quote(id))).Output()
			require.NoError(t, err)
			assert.Equal(t, "--resume|"+id+"|", string(out), "%s: the id %q", sh, id)
		}
		t.Run(sh+": the folder in its link's place", func(t *testing.T) {
			testlink.Need(t) // its subject is a link
			target := filepath.Join(dir, "dot files", "projects")
			require.NoError(t, os.MkdirAll(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "kept"), []byte("x"), 0o600))
			link := filepath.Join(dir, "cfg 'x'", "projects")
			require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
			require.NoError(t, os.Symlink(target, link))
			require.NoError(t, exec.Command(sh, "-c", posixShell.folderForLinkCmd(link, target)).Run())
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.True(t, fi.IsDir(), "%s: the folder is in the link's place", sh)
			assert.FileExists(t, filepath.Join(link, "kept"))
		})
	}
	require.NotZero(t, ran, "no bash, zsh or dash on this machine: the POSIX forms were run by none")
}
