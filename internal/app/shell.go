package app

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A command ccsurgeon prints to be run (a hint, a session's resume
// command) is written for the shell a user of this platform types it
// into: a POSIX shell (bash, zsh, sh) on Linux and macOS, and on Windows
// PowerShell (the shell Windows Terminal opens; the same words run in
// Windows PowerShell 5.1 and PowerShell 7), or Git Bash's when ccsurgeon
// runs in it (MSYSTEM set). hostShell is the platform's
// (shell_windows.go, shell_other.go); ShellQuote, CdAnd, RemoveCmd,
// MkdirCmd and FolderForLinkCmd are the one place a path or id is put
// into such a command.
type shell int

const (
	posixShell shell = iota
	powerShell
)

// ShellQuote is s as one word of the platform's shell.
func ShellQuote(s string) string { return hostShell().quote(s) }

// CdAnd is the command that runs cmd in the folder dir, and not at all
// when that folder cannot be entered.
func CdAnd(dir, cmd string) string { return hostShell().cdAnd(dir, cmd) }

// ResumeCmd is the command that resumes the session id in the folder dir
// ("": where the user is): the id quoted as any word (a file's name gave
// it, and a file may be named "x;rm -rf ~.jsonl").
func ResumeCmd(dir, id string) string {
	cmd := "claude --resume " + ShellQuote(id)
	if dir == "" {
		return cmd
	}
	return CdAnd(dir, cmd)
}

// RemoveCmd is the command that removes the file (or the link) at path.
func RemoveCmd(path string) string { return hostShell().removeCmd(path) }

// MkdirCmd is the command that makes the folder dir and its parents.
func MkdirCmd(dir string) string { return hostShell().mkdirCmd(dir) }

// FolderForLinkCmd is the command that puts the folder target in the
// place of link, a link to it: the link removed (never what it names),
// then the folder moved there.
func FolderForLinkCmd(link, target string) string { return hostShell().folderForLinkCmd(link, target) }

func (sh shell) cdAnd(dir, cmd string) string {
	if sh == powerShell {
		// ';' runs what follows whatever came before ('&&' is PowerShell
		// 7's only): $? holds it back when the folder cannot be entered;
		// -LiteralPath: no wildcards ([ ]) in a folder's name
		return "Set-Location -LiteralPath " + sh.quote(dir) + "; if ($?) { " + cmd + " }"
	}
	return "cd " + endOpts(dir) + sh.quote(dir) + " && " + cmd
}

// endOpts is "-- " before a POSIX command's operand that begins with '-'
// (which quoting does not stop it from taking for an option), else "".
func endOpts(s ...string) string {
	for _, w := range s {
		if strings.HasPrefix(w, "-") {
			return "-- "
		}
	}
	return ""
}

func (sh shell) removeCmd(path string) string {
	if sh == powerShell {
		// rm is Remove-Item, whose -Path takes [ ] for wildcards
		return "Remove-Item -LiteralPath " + sh.quote(path)
	}
	return "rm " + endOpts(path) + sh.quote(path)
}

func (sh shell) mkdirCmd(dir string) string {
	if sh == powerShell {
		// PowerShell's mkdir makes the parents too
		return "mkdir " + sh.quote(dir)
	}
	return "mkdir -p " + endOpts(dir) + sh.quote(dir)
}

func (sh shell) folderForLinkCmd(link, target string) string {
	if sh == powerShell {
		// Remove-Item on a link to a folder offers to remove what the
		// folder holds (Windows PowerShell 5.1); a DirectoryInfo's
		// Delete() removes the link alone
		return "(Get-Item -LiteralPath " + sh.quote(link) + ").Delete(); if ($?) { Move-Item -LiteralPath " +
			sh.quote(target) + " -Destination " + sh.quote(link) + " }"
	}
	return "rm " + endOpts(link) + sh.quote(link) + " && mv " + endOpts(target, link) + sh.quote(target) + " " + sh.quote(link)
}

// unsafeToShow: a character a command is not printed with raw, in either
// shell's quoting: a control character (a newline would end the line), a
// format character (U+202E turns the text after it around on screen, so
// that the command shown is not the one run), and the line and paragraph
// separators.
func unsafeToShow(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

func (sh shell) quote(s string) string {
	if sh == powerShell {
		return psQuote(s)
	}
	return posixQuote(s)
}

// posixQuote is s as a POSIX shell word: as it is when it holds only
// characters no shell treats specially, else in single quotes; with a
// character unsafeToShow, bash's and zsh's $'...' (the character as an
// escape), which keeps the command on one line and shown as it runs.
func posixQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
	}) < 0 {
		return s
	}
	if strings.ContainsFunc(s, unsafeToShow) || !utf8.ValidString(s) {
		// each such character as its UTF-8 bytes (\xNN: bash 3.2, macOS's,
		// has no \u), and a byte that is no UTF-8 as itself: the word
		// names the file's very bytes
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n <= 1, unsafeToShow(r):
				for _, c := range []byte(s[i : i+max(n, 1)]) {
					switch c {
					case '\n':
						b.WriteString(`\n`)
					case '\t':
						b.WriteString(`\t`)
					case '\r':
						b.WriteString(`\r`)
					default:
						fmt.Fprintf(&b, `\x%02x`, c)
					}
				}
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteRune(r)
			default:
				b.WriteString(s[i : i+n])
			}
			i += max(n, 1)
		}
		b.WriteByte('\'')
		return b.String()
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// psQuote is s as one PowerShell argument: as it is when it holds only
// letters, digits and "_./:\-" and does not begin with '-' (a parameter's
// mark); else in single quotes, where only a single quote is special and
// is doubled (PowerShell takes the typographic ones, U+2018-U+201B, for
// single quotes too: each is doubled as well); with a character
// unsafeToShow, in double quotes, where the backtick escapes ` " $ (and
// the typographic double quotes U+201C-U+201E) and that character is
// written as $([char]N), which keeps the command on one line, and shown
// as it runs, in 5.1 and 7 alike.
func psQuote(s string) string {
	if s != "" && s[0] != '-' && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`_./:\-`, r))
	}) < 0 {
		return s
	}
	var b strings.Builder
	if strings.ContainsFunc(s, unsafeToShow) {
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case strings.ContainsRune("`\"$\u201c\u201d\u201e", r):
				b.WriteByte('`')
				b.WriteRune(r)
			case unsafeToShow(r) && r > 0xffff:
				// two UTF-16 units: [char] holds one
				fmt.Fprintf(&b, "$([char]::ConvertFromUtf32(%d))", r)
			case unsafeToShow(r):
				fmt.Fprintf(&b, "$([char]%d)", r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	b.WriteByte('\'')
	for _, r := range s {
		if strings.ContainsRune("'\u2018\u2019\u201a\u201b", r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
