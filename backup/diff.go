package backup

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// DiffOptions configures Diff and DiffSummary.
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
}

// Empty reports whether the inputs were identical.
func (s DiffStats) Empty() bool { return s == DiffStats{} }

// String renders e.g. "2 changed, 1 removed, 0 added".
func (s DiffStats) String() string {
	return fmt.Sprintf("%d changed, %d removed, %d added", s.Changed, s.Removed, s.Added)
}

const (
	defaultContext = 3
	defaultMaxLine = 200
	shortenRadius  = 80 // bytes shown either side of the first difference
)

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// lineOp is one line of a line diff: kind is ' ', '-' or '+'; text keeps
// its trailing newline if it had one.
type lineOp struct {
	kind byte
	text string
}

// Diff returns a unified diff of a and b ("--- a", "+++ b", "@@ -l,n +l,n @@"
// hunks), or "" if they are equal. It diffs whole lines (go-diff line mode)
// and shortens lines longer than MaxLine to a window around the first byte
// that differs from the paired line of the same change block.
func Diff(a, b []byte, opts DiffOptions) string {
	ops := diffLines(a, b, opts)
	if !hasChanges(ops) {
		return ""
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

	// posA[i], posB[i]: lines of a and b before ops[i].
	posA, posB := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		posA[i+1], posB[i+1] = posA[i], posB[i]
		if op.kind != '+' {
			posA[i+1]++
		}
		if op.kind != '-' {
			posB[i+1]++
		}
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	n := len(ops)
	for i := 0; i < n; {
		for i < n && ops[i].kind == ' ' {
			i++
		}
		if i == n {
			break
		}
		start := max(0, i-ctx)
		end := i
		for {
			for end < n && ops[end].kind != ' ' {
				end++
			}
			j := end
			for j < n && ops[j].kind == ' ' {
				j++
			}
			if j < n && j-end <= 2*ctx {
				end = j
				continue
			}
			break
		}
		stop := min(n, end+ctx)
		writeHunk(&sb, ops[start:stop], posA[start], posB[start], posA[stop]-posA[start], posB[stop]-posB[start], maxLine)
		i = stop
	}
	return sb.String()
}

// DiffSummary counts the lines removed, added and changed between a and b.
func DiffSummary(a, b []byte, opts DiffOptions) DiffStats {
	var s DiffStats
	ops := diffLines(a, b, opts)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		del, ins := 0, 0
		for ; i < len(ops) && ops[i].kind != ' '; i++ {
			if ops[i].kind == '-' {
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

// diffLines computes a line-level diff with go-diff's line mode.
func diffLines(a, b []byte, opts DiffOptions) []lineOp {
	ta, tb := string(a), string(b)
	if opts.IgnoreUUIDs {
		ta, tb = maskIDs(ta, opts.SessionA), maskIDs(tb, opts.SessionB)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ra, rb, lines := dmp.DiffLinesToRunes(ta, tb)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for text := d.Text; text != ""; {
			k := strings.IndexByte(text, '\n') + 1
			if k == 0 {
				k = len(text)
			}
			ops = append(ops, lineOp{kind, text[:k]})
			text = text[k:]
		}
	}
	return ops
}

func hasChanges(ops []lineOp) bool {
	for _, op := range ops {
		if op.kind != ' ' {
			return true
		}
	}
	return false
}

// maskIDs replaces session (if set) by "<session>" and every UUID by
// "<uuid-N>" numbered by first appearance.
func maskIDs(s, session string) string {
	if session != "" {
		s = strings.ReplaceAll(s, session, "<session>")
	}
	seen := map[string]int{}
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		k := strings.ToLower(u)
		n, ok := seen[k]
		if !ok {
			n = len(seen) + 1
			seen[k] = n
		}
		return fmt.Sprintf("<uuid-%d>", n)
	})
}

func writeHunk(sb *strings.Builder, ops []lineOp, startA, startB, countA, countB, maxLine int) {
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(startA, countA), hunkRange(startB, countB))
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			writeLine(sb, ops[i], "", false, maxLine)
			i++
			continue
		}
		// A change block: pair the k-th removed line with the k-th added one.
		j := i
		for j < len(ops) && ops[j].kind == '-' {
			j++
		}
		k := j
		for k < len(ops) && ops[k].kind == '+' {
			k++
		}
		dels, ins := ops[i:j], ops[j:k]
		for x, op := range dels {
			if x < len(ins) {
				writeLine(sb, op, ins[x].text, true, maxLine)
			} else {
				writeLine(sb, op, "", false, maxLine)
			}
		}
		for x, op := range ins {
			if x < len(dels) {
				writeLine(sb, op, dels[x].text, true, maxLine)
			} else {
				writeLine(sb, op, "", false, maxLine)
			}
		}
		i = k
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

func writeLine(sb *strings.Builder, op lineOp, other string, paired bool, maxLine int) {
	text, nl := strings.CutSuffix(op.text, "\n")
	if maxLine > 0 && len(text) > maxLine {
		d := 0
		if paired {
			other = strings.TrimSuffix(other, "\n")
			for d < len(text) && d < len(other) && text[d] == other[d] {
				d++
			}
		}
		text = window(text, d-shortenRadius, d+shortenRadius)
	}
	sb.WriteByte(op.kind)
	sb.WriteString(text)
	sb.WriteByte('\n')
	if !nl {
		sb.WriteString("\\ No newline at end of file\n")
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
