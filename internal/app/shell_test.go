package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shellWords are names a printed command may have to carry: each of a
// shell's special characters, a typographic quote, control characters,
// and text in other scripts.
var shellWords = []string{
	"plain", "a b", "it's", "a\"b", "$HOME", "`date`", "a;b", "a&&b", "a|b", "a,b", "@x", "-x", "~",
	"*", "[x]", "a\\b", "tab\there", "line\nnext", "cr\rx", "bell\x07", "\x1b[31m", "caf\u00e9 \u6f22\u5b57",
	"a\u2019b", "\u201cq\u201d", "rtl\u202eexe.txt", "sep\u2028x", "tag\U000e0041", "bad\xffbyte", "a\xff\nb",
	"x;echo PWNED", "",
}

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
	if ran == 0 {
		t.Skip("no POSIX shell on this machine")
	}
}

// TestPsQuoteFollowsPowerShellsQuotingRules: no PowerShell runs here, so
// the Windows form is held to PowerShell's documented rules
// (about_Quoting_Rules, about_Special_Characters): a word as it is only
// when it holds nothing PowerShell reads (',' makes an array, '@' splats,
// '$' and '`' expand in double quotes, a leading '-' is a parameter's
// mark); in single quotes every single quote, typographic ones too, is
// doubled; a control character, which single quotes would keep raw and
// break the line with, goes in double quotes as $([char]N).
func TestPsQuoteFollowsPowerShellsQuotingRules(t *testing.T) {
	want := map[string]string{
		"plain":                      "plain",
		`C:\Users\ann\proj-1.2`:      `C:\Users\ann\proj-1.2`,
		"a b":                        "'a b'",
		"it's":                       "'it''s'",
		"a\"b":                       "'a\"b'",
		"$HOME":                      "'$HOME'",
		"`date`":                     "'`date`'",
		"a;b":                        "'a;b'",
		"a,b":                        "'a,b'",
		"@x":                         "'@x'",
		"-x":                         "'-x'",
		"a-x":                        "a-x",
		"[x]":                        "'[x]'",
		"a\u2019b":                   "'a\u2019\u2019b'",
		"\u2018q\u201a\u201b":        "'\u2018\u2018q\u201a\u201a\u201b\u201b'",
		"\u201cq\u201d":              "'\u201cq\u201d'",
		"line\nnext":                 "\"line$([char]10)next\"",
		"tab\t$x `y\" \u201cz\u201d": "\"tab$([char]9)`$x ``y`\" `\u201cz`\u201d\"",
		"rtl\u202eexe.txt":           "\"rtl$([char]8238)exe.txt\"",
		"sep\u2028x":                 "\"sep$([char]8232)x\"",
		"tag\U000e0041":              "\"tag$([char]::ConvertFromUtf32(917569))\"",
		"":                           "''",
	}
	for in, out := range want {
		assert.Equal(t, out, psQuote(in), "%q", in)
	}
	// the commands around the words: wildcards off (-LiteralPath), the
	// second step only when the first worked ($?: ';' runs it anyway), a
	// link to a folder removed alone (Remove-Item offers to empty the
	// folder in 5.1)
	assert.Equal(t, `Set-Location -LiteralPath 'C:\Users\ann\my [proj]'; if ($?) { claude --resume 52fdfc07-2182-454f-963f-5f0f9a621d72 }`,
		powerShell.cdAnd(`C:\Users\ann\my [proj]`, "claude --resume 52fdfc07-2182-454f-963f-5f0f9a621d72"))
	assert.Equal(t, `Remove-Item -LiteralPath 'C:\t\s[1].jsonl'`, powerShell.removeCmd(`C:\t\s[1].jsonl`))
	assert.Equal(t, `mkdir 'C:\Users\ann\new dir'`, powerShell.mkdirCmd(`C:\Users\ann\new dir`))
	assert.Equal(t, `(Get-Item -LiteralPath C:\Users\ann\.claude\projects).Delete(); if ($?) { Move-Item -LiteralPath 'D:\dot files\projects' -Destination C:\Users\ann\.claude\projects }`,
		powerShell.folderForLinkCmd(`C:\Users\ann\.claude\projects`, `D:\dot files\projects`))
}

// TestTheHostShellIsThePlatforms: Windows prints PowerShell's commands
// (Git Bash a POSIX shell's), every other platform a POSIX shell's.
func TestTheHostShellIsThePlatforms(t *testing.T) {
	want := posixShell
	if runtime.GOOS == "windows" && os.Getenv("MSYSTEM") == "" {
		want = powerShell
	}
	assert.Equal(t, want, hostShell())
	assert.Equal(t, want.quote("a b"), ShellQuote("a b"))
	assert.Equal(t, want.cdAnd("a b", "x"), CdAnd("a b", "x"))
	assert.Equal(t, want.cdAnd("a b", "claude --resume "+want.quote("x;y")), ResumeCmd("a b", "x;y"))
	assert.Equal(t, "claude --resume "+want.quote("x;y"), ResumeCmd("", "x;y"))
	assert.Equal(t, want.removeCmd("a b"), RemoveCmd("a b"))
	assert.Equal(t, want.mkdirCmd("a b"), MkdirCmd("a b"))
	assert.Equal(t, want.folderForLinkCmd("a", "b"), FolderForLinkCmd("a", "b"))
}
