package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shellWords are names a printed command may have to carry: each of a
// shell's special characters, a typographic quote, control characters,
// and text in other scripts.
var shellWords = []string{
	"plain", "a b", "it's", "a\"b", "$HOME", "`date`", "a;b", "a&&b", "a|b", "a,b", "@x", "-x", "~",
	"*", "[x]", "a\\b", "tab\there", "line\nnext", "cr\rx", "bell\x07", "\x1b[31m", "caf\u00e9 \u6f22\u5b57",
	"a\u2019b", "\u201cq\u201d", "",
}

// TestPosixQuoteIsOneWordInEveryPosixShell: each word, quoted, is read
// back byte for byte by bash and zsh (the shells of Linux and macOS users;
// dash, /bin/sh on Debian, for words without a control character, which
// take bash's $'...'), and a folder so named is where CdAnd runs the
// command.
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
		"":                           "''",
	}
	for in, out := range want {
		assert.Equal(t, out, psQuote(in), "%q", in)
	}
	assert.Equal(t, `Set-Location -LiteralPath 'C:\Users\ann\my [proj]'; claude --resume 52fdfc07-2182-454f-963f-5f0f9a621d72`,
		powerShell.cdAnd(`C:\Users\ann\my [proj]`, "claude --resume 52fdfc07-2182-454f-963f-5f0f9a621d72"))
}

// TestTheHostShellIsThePlatforms: Windows prints PowerShell's commands,
// every other platform a POSIX shell's.
func TestTheHostShellIsThePlatforms(t *testing.T) {
	if runtime.GOOS == "windows" {
		assert.Equal(t, powerShell, hostShell)
	} else {
		assert.Equal(t, posixShell, hostShell)
	}
	assert.Equal(t, hostShell.quote("a b"), ShellQuote("a b"))
	assert.Equal(t, hostShell.cdAnd("a b", "x"), CdAnd("a b", "x"))
}
