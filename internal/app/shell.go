package app

import (
	"fmt"
	"strings"
	"unicode"
)

// A command ccsurgeon prints to be run (a hint, a session's resume
// command) is written for the shell a user of this platform types it
// into: a POSIX shell (bash, zsh, sh) on Linux and macOS, PowerShell on
// Windows (the shell Windows Terminal opens; the same words run in
// Windows PowerShell 5.1 and PowerShell 7). hostShell is the platform's
// (shell_windows.go, shell_other.go); ShellQuote and CdAnd are the one
// place a path or id is put into such a command.
type shell int

const (
	posixShell shell = iota
	powerShell
)

// ShellQuote is s as one word of the platform's shell.
func ShellQuote(s string) string { return hostShell.quote(s) }

// CdAnd is the command that runs cmd in the folder dir, in the
// platform's shell.
func CdAnd(dir, cmd string) string { return hostShell.cdAnd(dir, cmd) }

func (sh shell) cdAnd(dir, cmd string) string {
	if sh == powerShell {
		// '&&' is PowerShell 7's only; -LiteralPath: no wildcards ([ ])
		// in a folder's name
		return "Set-Location -LiteralPath " + sh.quote(dir) + "; " + cmd
	}
	return "cd " + sh.quote(dir) + " && " + cmd
}

func (sh shell) quote(s string) string {
	if sh == powerShell {
		return psQuote(s)
	}
	return posixQuote(s)
}

// posixQuote is s as a POSIX shell word: as it is when it holds only
// characters no shell treats specially, else in single quotes; with a
// control character, bash's and zsh's $'...', which keeps the command on
// one line.
func posixQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
	}) < 0 {
		return s
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		var b strings.Builder
		b.WriteString("$'")
		for _, r := range s {
			switch {
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case unicode.IsControl(r) && r < 0x80:
				fmt.Fprintf(&b, `\x%02x`, r)
			case unicode.IsControl(r):
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
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
// single quotes too: each is doubled as well); with a control character,
// in double quotes, where the backtick escapes ` " $ (and the
// typographic double quotes U+201C-U+201E) and a control character is
// written as $([char]N), which keeps the command on one line in 5.1 and
// 7 alike.
func psQuote(s string) string {
	if s != "" && s[0] != '-' && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`_./:\-`, r))
	}) < 0 {
		return s
	}
	var b strings.Builder
	if strings.ContainsFunc(s, unicode.IsControl) {
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case strings.ContainsRune("`\"$\u201c\u201d\u201e", r):
				b.WriteByte('`')
				b.WriteRune(r)
			case unicode.IsControl(r):
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
