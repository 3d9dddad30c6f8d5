package app

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s with its control characters (C0 but for none, DEL, C1)
// written as Go escapes (\n, \x1b, \u009b): a string a session file or a
// file name holds (a prompt, a recorded cwd, a path with a newline) then
// neither breaks the one line it is printed on nor reaches the terminal
// as a command (a clear-screen, a title, an OSC 52 clipboard write).
func Printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		case r == utf8.RuneError:
			// a byte that is not UTF-8 (a file name in another encoding)
			// stays as it is: a path in a hint must still name the file
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TextOut is the text output of a command (not --json) on its way to a
// terminal: every control character but the newline and the tab that
// lay the text out is written as an escape (\x1b, \x7f, \u009b), so that
// whatever a session file holds and a command prints (an entry type, a
// tool's name, a backup's operation from its manifest) is shown, never
// acted on. A C1 character cut in two by two writes passes through (the
// commands write their lines whole).
type TextOut struct{ W io.Writer }

// RawOut is the writer under w when w is a TextOut: where a command
// writes a session's own bytes (-o -), they go out as they are.
func RawOut(w io.Writer) io.Writer {
	if t, ok := w.(TextOut); ok {
		return t.W
	}
	return w
}

func needsEscape(p []byte, i int) bool {
	c := p[i]
	switch {
	case c < 0x20:
		return c != '\n' && c != '\t'
	case c == 0x7f:
		return true
	case c == 0xc2: // the UTF-8 lead byte of U+0080-U+00BF: C1 is U+0080-U+009F
		return i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f
	}
	return false
}

func (t TextOut) Write(p []byte) (int, error) {
	first := -1
	for i := range p {
		if needsEscape(p, i) {
			first = i
			break
		}
	}
	if first < 0 {
		return t.W.Write(p)
	}
	b := make([]byte, 0, len(p)+16)
	b = append(b, p[:first]...)
	for i := first; i < len(p); i++ {
		switch {
		case !needsEscape(p, i):
			b = append(b, p[i])
		case p[i] == 0xc2:
			b = fmt.Appendf(b, `\u%04x`, p[i+1])
			i++
		default:
			b = fmt.Appendf(b, `\x%02x`, p[i])
		}
	}
	if _, err := t.W.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Sayf prints a line of ccsurgeon's own on stderr, "ccsurgeon: " and the
// words, whose paths and names (a file of tool-results/, a recorded path)
// are shown with their control characters as escapes (Printable).
func (env *Env) Sayf(format string, args ...any) {
	fmt.Fprintf(env.Err, "ccsurgeon: %s\n", Printable(fmt.Sprintf(format, args...)))
}

// Warnf is Sayf for a warning.
func (env *Env) Warnf(format string, args ...any) {
	env.Sayf("warning: "+format, args...)
}
