package backup

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// DiffOptions configures Diff and DiffStream.
type DiffOptions struct {
	NameA, NameB string // labels for the "---" and "+++" lines (default "a" and "b")
	Context      int    // context lines around changes: 0 = 3, negative = none
	MaxLine      int    // lines longer than this are shortened: 0 = 200, negative = never
	// IgnoreUUIDs replaces, in each input separately, every UUID by
	// "<uuid-N>" numbered in order of first appearance (and SessionA/SessionB,
	// if set, by "<session>" first), so a clone with fresh UUIDs diffs empty
	// against its original.
	IgnoreUUIDs        bool
	SessionA, SessionB string
}

// DiffStats counts line changes: a removed line paired with an added line in
// the same change block counts as changed.
type DiffStats struct {
	Removed, Added, Changed int
	// Shortened counts the long lines the diff printed shortened.
	Shortened int
}

// Empty reports whether the inputs were identical.
func (s DiffStats) Empty() bool { return s.Removed == 0 && s.Added == 0 && s.Changed == 0 }

const (
	defaultContext = 3
	defaultMaxLine = 200
	shortenRadius  = 80 // bytes shown either side of the first difference
)

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// sessions are the ids that mask as "<session>" in input A (or B): its own
// first, then the other's (a clone keeps its original's id where content
// quotes it, in a tool-results path say: either id is "the session").
func (o DiffOptions) sessions(a bool) []string {
	if a {
		return []string{o.SessionA, o.SessionB}
	}
	return []string{o.SessionB, o.SessionA}
}

// Opener opens one input of a diff; DiffStream reads each input twice.
type Opener func() (io.ReadCloser, error)

// BytesOpener serves b as an input.
func BytesOpener(b []byte) Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// FileOpener serves the regular file at path as an input (anything else
// is an error, at once).
func FileOpener(path string) Opener {
	return func() (io.ReadCloser, error) {
		// a regular file only, and no wait on a named pipe: the name was
		// checked when the session was located, and may lead elsewhere now
		fh, err := chain.OpenShared(path)
		if err != nil {
			return nil, err
		}
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			fh.Close()
			return nil, &chain.Error{Msg: path + " is a directory, not a session file"}
		}
		return fh, nil
	}
}

// Diff returns a unified diff of a and b ("--- a", "+++ b", "@@ -l,n +l,n @@"
// hunks), or "" if they are equal; see DiffStream.
func Diff(a, b []byte, opts DiffOptions) string {
	var sb strings.Builder
	if _, err := DiffStream(BytesOpener(a), BytesOpener(b), &sb, opts); err != nil {
		return ""
	}
	return sb.String()
}

// DiffStream writes a unified diff of two inputs to w (nil: only count),
// diffing whole lines, and shortens lines longer than MaxLine to a window
// around the first byte that differs from the paired line of the same
// change block (DiffStats.Shortened counts them). It streams: a first pass
// reads each input line by line and keeps one small number per line (the
// line's identity), the line diff runs on those numbers, and a second pass
// reads the inputs again to print the hunks. Memory is about 4 bytes per
// line plus one entry per distinct line and the lines of the largest
// change block, never the inputs themselves.
func DiffStream(openA, openB Opener, w io.Writer, opts DiffOptions) (DiffStats, error) {
	ids := map[[2]uint64]rune{}
	ra, err := lineIDs(openA, opts.IgnoreUUIDs, opts.sessions(true), ids)
	if err != nil {
		return DiffStats{}, err
	}
	rb, err := lineIDs(openB, opts.IgnoreUUIDs, opts.sessions(false), ids)
	if err != nil {
		return DiffStats{}, err
	}
	kinds := diffKinds(ra, rb)
	ra, rb, ids = nil, nil, nil
	st := statsOf(kinds)
	if w == nil || st.Empty() {
		return st, nil
	}
	ctx := opts.Context
	switch {
	case ctx == 0:
		ctx = defaultContext
	case ctx < 0:
		ctx = 0
	}
	maxLine := opts.MaxLine
	if maxLine == 0 {
		maxLine = defaultMaxLine
	}
	nameA, nameB := opts.NameA, opts.NameB
	if nameA == "" {
		nameA = "a"
	}
	if nameB == "" {
		nameB = "b"
	}
	la, err := newLineReader(openA, opts.IgnoreUUIDs, opts.sessions(true))
	if err != nil {
		return st, err
	}
	defer la.Close()
	lb, err := newLineReader(openB, opts.IgnoreUUIDs, opts.sessions(false))
	if err != nil {
		return st, err
	}
	defer lb.Close()
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "--- %s\n+++ %s\n", nameA, nameB)
	hw := &hunkWriter{w: bw, a: la, b: lb, maxLine: maxLine}
	n := len(kinds)
	posA, posB := 0, 0 // lines of a and b before kinds[i]
	advance := func(from, to int) {
		for _, k := range kinds[from:to] {
			if k != '+' {
				posA++
			}
			if k != '-' {
				posB++
			}
		}
	}
	done := 0
	for i := 0; i < n; {
		for i < n && kinds[i] == ' ' {
			i++
		}
		if i == n {
			break
		}
		start := max(0, i-ctx)
		end := i
		for {
			for end < n && kinds[end] != ' ' {
				end++
			}
			j := end
			for j < n && kinds[j] == ' ' {
				j++
			}
			if j < n && j-end <= 2*ctx {
				end = j
				continue
			}
			break
		}
		stop := min(n, end+ctx)
		advance(done, start)
		if err := hw.skip(posA-hw.a.n, posB-hw.b.n); err != nil {
			return st, err
		}
		countA, countB := 0, 0
		for _, k := range kinds[start:stop] {
			if k != '+' {
				countA++
			}
			if k != '-' {
				countB++
			}
		}
		fmt.Fprintf(bw, "@@ -%s +%s @@\n", hunkRange(posA, countA), hunkRange(posB, countB))
		if err := hw.hunk(kinds[start:stop]); err != nil {
			return st, err
		}
		advance(start, stop)
		done = stop
		i = stop
	}
	st.Shortened = hw.shortened
	return st, bw.Flush()
}

// lineIDs reads an input line by line and numbers each distinct line (as
// compared: masked with IgnoreUUIDs) by two 64-bit hashes, the numbers
// shared between both inputs through ids.
func lineIDs(open Opener, ignore bool, sessions []string, ids map[[2]uint64]rune) ([]rune, error) {
	lr, err := newLineReader(open, ignore, sessions)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	var out []rune
	for {
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		k := [2]uint64{maphash.String(seed1, line), maphash.String(seed2, line)}
		id, seen := ids[k]
		if !seen {
			id = runeOf(len(ids))
			if id < 0 {
				return nil, fmt.Errorf("more than %d distinct lines", maxDistinct)
			}
			ids[k] = id
		}
		out = append(out, id)
	}
}

var seed1, seed2 = maphash.MakeSeed(), maphash.MakeSeed()

// maxDistinct is how many distinct lines the diff can number: every rune
// but the surrogates (go-diff works on runes).
const maxDistinct = utf8.MaxRune + 1 - 0x800

// runeOf is the n-th valid rune, or -1.
func runeOf(n int) rune {
	if n >= 0xD800 {
		n += 0x800
	}
	if n > utf8.MaxRune {
		return -1
	}
	return rune(n)
}

// diffKinds is the line diff of two numbered inputs: one kind per line of
// the diff, ' ', '-' or '+'.
func diffKinds(ra, rb []rune) []byte {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	var kinds []byte
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for range utf8.RuneCountInString(d.Text) {
			kinds = append(kinds, kind)
		}
	}
	return kinds
}

func statsOf(kinds []byte) DiffStats {
	var s DiffStats
	for i := 0; i < len(kinds); {
		if kinds[i] == ' ' {
			i++
			continue
		}
		del, ins := 0, 0
		for ; i < len(kinds) && kinds[i] != ' '; i++ {
			if kinds[i] == '-' {
				del++
			} else {
				ins++
			}
		}
		c := min(del, ins)
		s.Changed += c
		s.Removed += del - c
		s.Added += ins - c
	}
	return s
}

// lineReader reads the lines of an input in order, masked as compared.
type lineReader struct {
	rc       io.ReadCloser
	br       *bufio.Reader
	n        int // lines read
	ignore   bool
	sessions []string
	seen     map[string]int
}

func newLineReader(open Opener, ignore bool, sessions []string) (*lineReader, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	return &lineReader{rc: rc, br: bufio.NewReaderSize(rc, 1<<20), ignore: ignore, sessions: sessions, seen: map[string]int{}}, nil
}

func (l *lineReader) Close() error { return l.rc.Close() }

// next returns the next line with its newline, if it has one.
func (l *lineReader) next() (string, bool, error) {
	line, err := l.br.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", false, err
	}
	if line == "" {
		return "", false, nil
	}
	l.n++
	if l.ignore {
		line = l.mask(line)
	}
	return line, true, nil
}

// mask replaces the session ids by "<session>" and every UUID by
// "<uuid-N>", numbered by first appearance in the input.
func (l *lineReader) mask(s string) string {
	for _, id := range l.sessions {
		if id != "" {
			s = strings.ReplaceAll(s, id, "<session>")
		}
	}
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		k := strings.ToLower(u)
		n, ok := l.seen[k]
		if !ok {
			n = len(l.seen) + 1
			l.seen[k] = n
		}
		return fmt.Sprintf("<uuid-%d>", n)
	})
}

// hunkWriter prints hunks from the two line readers.
type hunkWriter struct {
	w         *bufio.Writer
	a, b      *lineReader
	maxLine   int
	shortened int
}

// skip reads past na lines of a and nb lines of b.
func (h *hunkWriter) skip(na, nb int) error {
	for range na {
		if _, _, err := h.a.next(); err != nil {
			return err
		}
	}
	for range nb {
		if _, _, err := h.b.next(); err != nil {
			return err
		}
	}
	return nil
}

func (h *hunkWriter) hunk(kinds []byte) error {
	for i := 0; i < len(kinds); {
		if kinds[i] == ' ' {
			text, _, err := h.a.next()
			if err != nil {
				return err
			}
			if _, _, err := h.b.next(); err != nil {
				return err
			}
			h.line(' ', text, "", false)
			i++
			continue
		}
		// A change block: pair the k-th removed line with the k-th added one.
		var dels, ins []string
		for ; i < len(kinds) && kinds[i] == '-'; i++ {
			t, _, err := h.a.next()
			if err != nil {
				return err
			}
			dels = append(dels, t)
		}
		for ; i < len(kinds) && kinds[i] == '+'; i++ {
			t, _, err := h.b.next()
			if err != nil {
				return err
			}
			ins = append(ins, t)
		}
		for x, t := range dels {
			if x < len(ins) {
				h.line('-', t, ins[x], true)
			} else {
				h.line('-', t, "", false)
			}
		}
		for x, t := range ins {
			if x < len(dels) {
				h.line('+', t, dels[x], true)
			} else {
				h.line('+', t, "", false)
			}
		}
	}
	return nil
}

func (h *hunkWriter) line(kind byte, text, other string, paired bool) {
	text, nl := strings.CutSuffix(text, "\n")
	if h.maxLine > 0 && len(text) > h.maxLine {
		d := 0
		if paired {
			other = strings.TrimSuffix(other, "\n")
			for d < len(text) && d < len(other) && text[d] == other[d] {
				d++
			}
		}
		text = window(text, d-shortenRadius, d+shortenRadius)
		h.shortened++
	}
	h.w.WriteByte(kind)
	h.w.WriteString(text)
	h.w.WriteByte('\n')
	if !nl {
		h.w.WriteString("\\ No newline at end of file\n")
	}
}

// hunkRange formats "l,n" the way GNU diff does ("l" when n == 1; the line
// before the hunk when n == 0).
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	default:
		return fmt.Sprintf("%d,%d", start+1, count)
	}
}

// window returns s[lo:hi] (clamped, widened to a window of 2*shortenRadius
// at the edges, on rune boundaries) with "…" marking cut ends.
func window(s string, lo, hi int) string {
	if lo < 0 {
		hi -= lo
		lo = 0
	}
	if hi > len(s) {
		lo = max(0, lo-(hi-len(s)))
		hi = len(s)
	}
	for lo > 0 && !utf8.RuneStart(s[lo]) {
		lo--
	}
	for hi < len(s) && !utf8.RuneStart(s[hi]) {
		hi++
	}
	out := s[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}
