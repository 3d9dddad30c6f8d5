package app

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
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
