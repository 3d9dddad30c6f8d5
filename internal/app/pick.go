package app

// --pick: choose one of the current folder's project's sessions. On a
// terminal, a list to move through with the arrow keys, as the client's
// own picker; elsewhere (or when the terminal cannot be put in raw mode),
// a numbered list on stderr and the number read from stdin.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// PickSession lists the sessions of the current folder's project, newest
// first (id, age, size, tokens, title), and returns the path of the one
// the person chooses.
func (env *Env) PickSession() (string, error) {
	wd, err := chain.ClientCwd()
	if err != nil {
		return "", err
	}
	dir := chain.ProjectDirOf(env.ConfigDir, wd)
	slug := filepath.Base(dir)
	rows := summarize(chain.ClientSessions(env.ConfigDir, wd), false)
	if len(rows) == 0 {
		if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
			return "", err
		}
		return "", &Error{Msg: fmt.Sprintf("no session to pick: this folder's project (%s) has no sessions", slug), Hint: "name a SESSION; list them with 'ccsurgeon ls'", Code: 1}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Modified.After(rows[j].Modified) })
	origins := readOrigins(env.ConfigDir)
	for i := range rows {
		rows[i].Origin = origins[rows[i].ID]
	}
	header, lines := pickLines(rows, time.Now())
	if in, ok := env.In.(*os.File); ok && isTerminal(in) && isTerminal(env.Err) {
		if restore, err := rawTerminal(in); err == nil {
			height, width := terminalSize(in)
			i, err := pickWithKeys(in, env.Err, header, lines, height, width)
			restore()
			if err != nil {
				return "", err
			}
			return rows[i].Path, nil
		}
	}
	in, ok := env.In.(*os.File)
	echo := !ok || !isTerminal(in) // no terminal echoes what was typed
	i, err := pickByNumber(env.In, env.Err, header, lines, echo)
	if err != nil {
		return "", err
	}
	return rows[i].Path, nil
}

// pickLines formats the rows in aligned columns: the header and one line
// per session.
func pickLines(rows []SessionSummary, now time.Time) (string, []string) {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tAGE\tSIZE\tRECORDED\tTITLE OR FIRST PROMPT")
	for _, r := range rows {
		title := r.Title
		if title == "" {
			title = r.FirstPrompt
		}
		if r.Origin != nil { // a clone has its original's title: say which it is
			title = r.Origin.String() + " " + title
		}
		tokens := "-"
		if r.ContextTokens > 0 {
			tokens = chain.HumanTokens(int(r.ContextTokens))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", Printable(r.ID[:min(8, len(r.ID))]), ago(now.Sub(r.Modified)), HumanBytes(r.Size), tokens, oneLine(title, 60))
	}
	w.Flush()
	all := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i := range all {
		all[i] = strings.TrimRight(all[i], " ")
	}
	return all[0], all[1:]
}

// pickByNumber prints the lines numbered and reads the number of one;
// echo writes what was read after the prompt, so that what follows starts
// a line when no terminal echoed it.
func pickByNumber(in io.Reader, w io.Writer, header string, lines []string, echo bool) (int, error) {
	fmt.Fprintf(w, "     %s\n", header)
	for k, l := range lines {
		fmt.Fprintf(w, "%3d  %s\n", k+1, l)
	}
	fmt.Fprintf(w, "session (1-%d): ", len(lines))
	line, _ := bufio.NewReader(in).ReadString('\n')
	if echo {
		fmt.Fprintln(w, strings.TrimSpace(line))
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 1 || n > len(lines) {
		return 0, UsageErrorf("answer with the number of a session of the list, or name the session by its ID instead of --pick",
			"no session picked: want a number from 1 to %d, got %q", len(lines), strings.TrimSpace(line))
	}
	return n - 1, nil
}

// A key the picker understands.
type pickKey int

const (
	keyUp pickKey = iota + 1
	keyDown
	keyPageUp
	keyPageDown
	keyHome
	keyEnd
	keyEnter
	keyCancel
)

// parseKeys reads the keys in what one read of a raw terminal returned:
// arrows (ESC [ A, or ESC O A in application mode), page up/down,
// home/end, j/k, Enter, and q, Esc, Ctrl-C or Ctrl-D to cancel. Other
// bytes are ignored.
func parseKeys(b []byte) []pickKey {
	var out []pickKey
	for len(b) > 0 {
		c := b[0]
		b = b[1:]
		switch {
		case c == 0x1b && len(b) >= 2 && (b[0] == '[' || b[0] == 'O'):
			j := 1
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			if j == len(b) { // cut short: drop it
				return out
			}
			switch string(b[1 : j+1]) {
			case "A":
				out = append(out, keyUp)
			case "B":
				out = append(out, keyDown)
			case "5~":
				out = append(out, keyPageUp)
			case "6~":
				out = append(out, keyPageDown)
			case "H", "1~", "7~":
				out = append(out, keyHome)
			case "F", "4~", "8~":
				out = append(out, keyEnd)
			}
			b = b[j+1:]
		case c == 0x1b, c == 'q', c == 3, c == 4:
			out = append(out, keyCancel)
		case c == '\r', c == '\n':
			out = append(out, keyEnter)
		case c == 'k':
			out = append(out, keyUp)
		case c == 'j':
			out = append(out, keyDown)
		case c == 'g':
			out = append(out, keyHome)
		case c == 'G':
			out = append(out, keyEnd)
		}
	}
	return out
}

// pickWithKeys draws the list on w with the chosen line highlighted and
// moves through it with the keys read from in (a terminal in raw mode),
// showing at most height-2 lines at a time, each cut to width columns.
// It erases what it drew before it returns the index chosen.
func pickWithKeys(in io.Reader, w io.Writer, header string, lines []string, height, width int) (int, error) {
	const title = "pick a session: ↑/↓ to move, Enter to choose, q to cancel"
	view := max(1, min(len(lines), height-3))
	cur, top, drawn := 0, 0, 0
	draw := func() {
		var b strings.Builder
		if drawn > 0 {
			fmt.Fprintf(&b, "\r\x1b[%dA", drawn)
		}
		b.WriteString("\x1b[?25l") // no cursor while the list is up
		put := func(s string, on bool) {
			s = fitWidth(s, width)
			if on {
				fmt.Fprintf(&b, "\r\x1b[7m%s\x1b[0m\x1b[K\n", s)
			} else {
				fmt.Fprintf(&b, "\r%s\x1b[K\n", s)
			}
		}
		put(title, false)
		put("  "+header, false)
		for i := top; i < top+view; i++ {
			mark := "  "
			if i == cur {
				mark = "> "
			}
			put(mark+lines[i], i == cur)
		}
		drawn = 2 + view
		io.WriteString(w, b.String())
	}
	erase := func() {
		fmt.Fprintf(w, "\r\x1b[%dA\x1b[J\x1b[?25h", drawn)
	}
	draw()
	buf := make([]byte, 64)
	for {
		n, err := in.Read(buf)
		for _, k := range parseKeys(buf[:n]) {
			switch k {
			case keyUp:
				cur = max(0, cur-1)
			case keyDown:
				cur = min(len(lines)-1, cur+1)
			case keyPageUp:
				cur = max(0, cur-view)
			case keyPageDown:
				cur = min(len(lines)-1, cur+view)
			case keyHome:
				cur = 0
			case keyEnd:
				cur = len(lines) - 1
			case keyEnter:
				erase()
				return cur, nil
			case keyCancel:
				erase()
				return 0, &Error{Msg: "no session picked", Code: 1}
			}
		}
		if err != nil {
			erase()
			return 0, &Error{Msg: "no session picked: the terminal closed", Code: 1}
		}
		top = min(max(top, cur-view+1), cur)
		draw()
	}
}

// fitWidth cuts s to at most width-1 columns (as a terminal shows them:
// East Asian wide characters and emoji take two, combining marks none), so
// that no line wraps and the cursor arithmetic holds.
func fitWidth(s string, width int) string {
	if width <= 1 {
		return s
	}
	cols := 0
	for i, r := range s {
		c := columns.RuneWidth(r)
		if cols+c > width-1 {
			return s[:i]
		}
		cols += c
	}
	return s
}

// columns counts a character's columns the same in every locale (an
// ambiguous-width character takes one, as outside East Asian locales).
var columns = &runewidth.Condition{EastAsianWidth: false}

// rawTerminal puts the terminal f in raw mode (keys arrive one by one,
// unechoed, Ctrl-C as a byte) and returns what restores it.
func rawTerminal(f *os.File) (restore func(), err error) {
	saved, err := term.MakeRaw(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	return func() { _ = term.Restore(int(f.Fd()), saved) }, nil
}

// terminalSize is the terminal's rows and columns (24×80 when unknown).
func terminalSize(f *os.File) (rows, cols int) {
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || rows <= 0 {
		rows = 24
	}
	if err != nil || cols <= 0 {
		cols = 80
	}
	return rows, cols
}
