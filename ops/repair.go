package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Fix is one thing Repair changed (or, with Fixed false, found and left
// alone because no safe fix exists), located by its 1-based line in the
// input.
type Fix struct {
	// File is set for a problem of a subagent transcript
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Fixed   bool   `json:"fixed"`
	// KeepOne: left because the session holds two answers of which the
	// user keeps one (a branch of the conversation); the command layer
	// says how
	KeepOne bool `json:"-"`
}

func (f Fix) String() string {
	where := fmt.Sprintf("line %d", f.Line)
	if f.File != "" {
		where = fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
	}
	if f.Fixed {
		return fmt.Sprintf("%s: %s", where, f.Message)
	}
	return fmt.Sprintf("%s: not fixed: %s", where, f.Message)
}

// Repair fixes what can be fixed safely in the main transcript:
//
//   - a torn final line (a write cut short) is dropped;
//   - copies of an entry (same uuid, identical bytes) are dropped but one;
//     copies with different bytes are reported and kept;
//   - an entry whose parentUuid resolves nowhere is re-linked to the chain
//     entry before it in the file, so that older clients (2.0.x) no
//     longer drop the history above it;
//   - a parent cycle is broken at its entry that comes first in the file
//     (whose parent comes later): it is re-linked to the chain entry
//     before it, or becomes a root;
//   - on the branch the client resumes, a tool_use without its tool_result
//     and a tool_result without its tool_use are removed (the whole entry
//     when nothing else is left in it).
//
// Fixes lists what was done, in file order. Repair is a pointer so that
// the caller can read Fixes after the pipeline ran.
type Repair struct {
	Fixes []Fix
	// before is what validate finds in the input
	before []validate.Problem
	// lost marks the entries whose dangling parent validate calls an
	// error (the client drops history above them)
	lost map[int]bool
	// parent is each entry's parent as the relinks left it (-1: none);
	// relinked maps an entry whose lost parent was relinked to its fix
	parent   []int
	relinked map[int]int
	// kept holds the uuids of the whole entries kept from lines that are
	// not JSON (their children are not lost)
	kept map[string]bool
	// lineFixes is what the first round's fixLines did (nil before it)
	lineFixes *savedLines
}

// Name of the operation.
func (*Repair) Name() string { return "repair" }

// Changes counts the fixes that change the file.
func (r *Repair) Changes() int {
	n := 0
	for _, f := range r.Fixes {
		if f.Fixed {
			n++
		}
	}
	return n
}

func (r *Repair) add(f *chain.File, i int, fixed bool, code, format string, args ...any) {
	r.Fixes = append(r.Fixes, Fix{Line: int(f.Entries[i].Line), Code: code, Message: fmt.Sprintf(format, args...), Fixed: fixed})
}

// lineIndex finds the entry of a line number. Every line of a loaded file
// is an entry, line i+1 entry i, so no map is made unless an entry says
// otherwise (a map of half a million lines took 19 MB).
type lineIndex struct {
	n int
	m map[int]int
}

func newLineIndex(f *chain.File) lineIndex {
	for i := range f.Entries {
		if int(f.Entries[i].Line) != i+1 {
			m := make(map[int]int, len(f.Entries))
			for k := range f.Entries {
				m[int(f.Entries[k].Line)] = k
			}
			return lineIndex{m: m}
		}
	}
	return lineIndex{n: len(f.Entries)}
}

// get returns the entry of line (1-based) and whether there is one.
func (l lineIndex) get(line int) (int, bool) {
	if l.m != nil {
		i, ok := l.m[line]
		return i, ok
	}
	if line >= 1 && line <= l.n {
		return line - 1, true
	}
	return 0, false
}

// Apply finds and fixes the problems. It may run on a scratch Txn to learn
// what it would do: it changes nothing outside t.
func (r *Repair) Apply(t *Txn) error {
	r.Fixes = nil
	f := t.S.Main
	before := validate.File(f, t.S.ID)
	r.before = before
	r.lost = map[int]bool{}
	r.lineFixes = nil
	byLine := newLineIndex(f)
	for _, p := range before {
		if p.Severity == validate.Error && p.Code == "dangling-parent" {
			i, _ := byLine.get(p.Line)
			r.lost[i] = true
		}
	}
	// A relinked lost parent that the new problems of the result lead to
	// is left alone and the fixes are made again (a few rounds), so that
	// one bad relink among thousands does not undo them all; then the
	// stages are backed off as a whole.
	start := savepoint{t.cloneEdits(), t.cloneLate(), 0}
	skip := map[int]string{}
	var res *result
	for round := 0; ; round++ {
		t.edits, t.late = start.edits, start.late
		start = savepoint{t.cloneEdits(), t.cloneLate(), 0}
		var culprits map[int]string
		var err error
		if res, culprits, err = r.fixAll(t, f, before, byLine, skip, round < 3); err != nil {
			return err
		}
		if len(culprits) == 0 {
			break
		}
		for c, why := range culprits {
			skip[c] = why
		}
	}
	if err := r.explain(t, f, res); err != nil {
		return err
	}
	sort.SliceStable(r.Fixes, func(a, b int) bool {
		if r.Fixes[a].File != r.Fixes[b].File {
			return r.Fixes[a].File < r.Fixes[b].File
		}
		return r.Fixes[a].Line < r.Fixes[b].Line
	})
	for _, fx := range r.Fixes {
		if fx.Fixed {
			t.CountOf(CountFixes, fx.Code, 1)
		}
	}
	return nil
}

// wholeEntryAfter returns where a whole entry starts on a line that is
// not JSON (a write cut short, then the client's next write on the same
// line), or 0 for none: the first '{' after the start from which the rest
// of the line is one JSON object with a uuid. The bytes tried from the
// candidates are bounded (a line of many braces is left as it is).
func wholeEntryAfter(raw []byte) int {
	budget := 64 << 20
	for k := 1; k < len(raw) && budget > 0; k++ {
		j := bytes.IndexByte(raw[k:], '{')
		if j < 0 {
			break
		}
		k += j
		rest := raw[k:]
		budget -= len(rest)
		if len(rest) > 1 && rest[1] == '"' && json.Valid(rest) && gjson.GetBytes(rest, "uuid").Type == gjson.String {
			return k
		}
	}
	return 0
}

// savepoint is the edits of a transaction and the number of fixes at a
// stage of repair, to back off the fixes made after it.
type savepoint struct {
	edits map[*chain.File]*chain.Edits
	late  map[*chain.File]map[int]LateFunc
	fixes int
}

// fixAll makes every fix, but the relinks of the lost parents of skip,
// and checks the result. When it brings in a problem: with blame set,
// the relinked entries the new problems lead to are returned (culprits,
// with the first problem each leads to), the edits as they are;
// otherwise, or when they lead to none, the stages are backed off, last
// first, until the result brings in nothing, and res is its problems.
func (r *Repair) fixAll(t *Txn, f *chain.File, before []validate.Problem, byLine lineIndex, skip map[int]string, blame bool) (res *result, culprits map[int]string, err error) {
	r.Fixes = nil
	r.parent, r.relinked, r.kept = nil, map[int]int{}, map[string]bool{}
	points := []savepoint{{t.cloneEdits(), t.cloneLate(), 0}}
	save := func() { points = append(points, savepoint{t.cloneEdits(), t.cloneLate(), len(r.Fixes)}) }
	if err := r.structural(t, f, save, skip); err != nil {
		return nil, nil, err
	}
	for len(points) < 3 { // a file without entries returns early
		save()
	}
	save() // after the dangling parents
	if err := r.toolPairs(t, f); err != nil {
		return nil, nil, err
	}
	save() // after the tool pairs
	if err := r.empties(t, f, before, byLine); err != nil {
		return nil, nil, err
	}
	last := points[len(points)-2]
	if !keepsMessage(t, f) {
		t.edits, t.late = last.edits, last.late
		r.undo(last.fixes, "it would leave no message in the file")
	}
	// The result must not be worse than the input in any respect validate
	// checks (re-linking can bring back history with problems of its own):
	// back off the tool fixes, then the re-linked dangling parents, then
	// the broken cycles, then everything.
	for k := len(points) - 1; k >= 0; k-- {
		after, inputLine, err := resultProblems(t, f, before)
		if err != nil {
			return nil, nil, err
		}
		intro := validate.Introduced(validate.Report{Problems: before}, validate.Report{Problems: after})
		if len(intro) == 0 {
			return &result{after, inputLine}, nil, nil
		}
		if blame && k == len(points)-1 {
			if c := r.culprits(f, before, after, inputLine, byLine); len(c) > 0 {
				return nil, c, nil
			}
		}
		t.edits, t.late = points[k].edits, points[k].late
		r.undo(points[k].fixes, "it would bring in a new problem: "+intro[0].Message)
	}
	return nil, nil, nil
}

// structural fixes the lines and the parentUuid graph.
func (r *Repair) structural(t *Txn, f *chain.File, save func(), skip map[int]string) error {
	n := len(f.Entries)
	if n == 0 {
		return nil
	}
	g := f.Graph()
	if l := r.lineFixes; l != nil {
		// the fixes of the lines are those of the first round (they do
		// not depend on skip): taken as they were, not made again
		t.edits, t.late = cloneEditsOf(l.edits), cloneLateOf(l.late)
		r.Fixes = append(r.Fixes[:0], l.fixes...)
		maps.Copy(r.kept, l.kept)
	} else if err := r.fixLines(t, f, g); err != nil {
		return err
	}
	save() // after the torn line and the copies
	return r.fixLinks(t, f, g, save, skip)
}

// fixLines drops the torn final line, the lines that are not JSON and the
// older copies of an entry, and keeps what it did (lineFixes) for the
// rounds after the first.
func (r *Repair) fixLines(t *Txn, f *chain.File, g *chain.Graph) error {
	n := len(f.Entries)
	// torn final line, and lines that are not JSON: the client skips them
	// (their children, left dangling, are re-linked below)
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindInvalid {
			continue
		}
		if i < n-1 || e.EOL != 0 {
			raw, err := f.Raw(i)
			if err != nil {
				return err
			}
			if k := wholeEntryAfter(raw); k > 0 {
				t.Set(f, i, raw[k:len(raw):len(raw)])
				r.kept[gjson.GetBytes(raw[k:], "uuid").Str] = true
				r.add(f, i, true, "invalid-json", "kept the whole entry written after %d bytes that are not one (a write cut short, then the next one on the same line: the client skips the line, that entry with it); dropped those bytes", k)
				continue
			}
		}
		t.Drop(f, i)
		if i == n-1 && e.EOL == 0 {
			r.add(f, i, true, "torn-final-line", "dropped the torn final line (%d bytes, cut short: %s)", e.Len, e.ParseErr())
		} else {
			r.add(f, i, true, "invalid-json", "dropped the line: %s (the client skips it)", e.ParseErr())
		}
	}
	// duplicates: the client keeps the last entry of a uuid (a Map), so the
	// last copy is the one kept; earlier identical copies go.
	for _, idx := range g.Copies() {
		id := f.Entries[idx[0]].UUID()
		keep := idx[len(idx)-1]
		kraw, err := f.Raw(keep)
		if err != nil {
			return err
		}
		for _, i := range idx[:len(idx)-1] {
			raw, err := f.Raw(i)
			if err != nil {
				return err
			}
			t.Drop(f, i)
			if bytes.Equal(raw, kraw) {
				r.add(f, i, true, "duplicate-uuid", "dropped a copy of the entry %s that line %d holds byte for byte", id, f.Entries[keep].Line)
			} else {
				// the client keeps the last entry of a uuid (a Map): this
				// one it never reads, and every reference names the other
				r.add(f, i, true, "duplicate-uuid", "dropped an older copy of the entry %s, with other content than line %d: the client reads only line %d", id, f.Entries[keep].Line, f.Entries[keep].Line)
			}
		}
	}
	r.lineFixes = &savedLines{t.cloneEdits(), t.cloneLate(), slices.Clone(r.Fixes), maps.Clone(r.kept)}
	return nil
}

// savedLines is what fixLines did: the edits, the fixes and the uuids of
// the entries kept from lines that are not JSON.
type savedLines struct {
	edits map[*chain.File]*chain.Edits
	late  map[*chain.File]map[int]LateFunc
	fixes []Fix
	kept  map[string]bool
}

// fixLinks breaks the parent cycles and relinks the lost parents (but
// those of skip).
func (r *Repair) fixLinks(t *Txn, f *chain.File, g *chain.Graph, save func(), skip map[int]string) error {
	// effective parents: overrides on top of the graph
	parent := append([]int(nil), g.Parent...)
	cg := newCycleGuard(parent)
	wouldCycle := cg.wouldCycle
	// before returns the chain entry to link i to: the nearest one before
	// it in the file that is kept, of the same sidechain-ness, a
	// conversation entry if there is one, and does not close a loop. The
	// candidates are chained by prevOf (made on first use; no line is
	// dropped after this point), so a long run of other entries is not
	// walked again for every entry relinked: 20,000 dangling progress
	// entries after one prompt took 11 s, scanning back to it each time.
	var prevOf [2][2][]int32 // [not a conversation entry][sidechain][j]: the candidate before j
	before := func(i int) int {
		if prevOf[0][0] == nil {
			prevOf = candidatesBefore(t, f, g)
		}
		sc := 0
		if f.Entries[i].IsSidechain() {
			sc = 1
		}
		for k := range 2 {
			for j := prevOf[k][sc][i]; j >= 0; j = prevOf[k][sc][j] {
				if !wouldCycle(i, int(j)) {
					return int(j)
				}
			}
		}
		return -1
	}
	// A relinked line is made again as it is written (SetLate): on a
	// damaged session thousands are relinked, and their bytes were held
	// (with the savepoints' and the check's copies of the edits).
	relink := func(i, p int) error {
		uuid := ""
		if p >= 0 {
			uuid = f.Entries[p].UUID()
		}
		if err := t.SetParent(f, i, uuid); err != nil {
			return err
		}
		cg.link(i, p)
		return nil
	}
	// parent cycles: break each at its entry that comes first in the file
	// (its parent comes later); a fix never closes a new loop, so one
	// round over the loops found is enough, a few more are a safeguard
	for round := 0; round < 8; round++ {
		cs := cyclesOf(parent)
		if len(cs) == 0 {
			break
		}
		for _, c := range cs {
			if t.Dropped(f, c) {
				cg.link(c, -1) // a dropped copy: its loop does not reach the file
				continue
			}
			e := &f.Entries[c]
			what, code := "parentUuid links formed a cycle", "parent-cycle"
			if e.ParentUUID() == e.UUID() {
				what, code = "the entry named itself as parent", "self-parent"
			}
			p := before(c)
			if err := relink(c, p); err != nil {
				return err
			}
			if p < 0 {
				r.add(f, c, true, code, "%s: made the entry a root", what)
			} else {
				r.add(f, c, true, code, "%s: re-linked the entry to line %d, the entry before it", what, f.Entries[p].Line)
			}
		}
	}
	save() // after the cycles
	r.parent = parent
	// dangling parents, in file order
	joins := map[string]string{} // message.id of an answer -> the one it joins
	var callsTool map[string]bool
	for _, i := range g.Dangling {
		if t.Dropped(f, i) || !r.lost[i] || r.kept[f.Entries[i].ParentUUID()] {
			continue // a continued session's first entry loses nothing
		}
		e := &f.Entries[i]
		p := before(i)
		why, skipped := skip[i]
		if !skipped {
			if err := relink(i, p); err != nil {
				return err
			}
			r.relinked[i] = len(r.Fixes)
		}
		if p < 0 {
			r.add(f, i, !skipped, "dangling-parent", "parentUuid %s resolved to no entry: made the entry a root (nothing comes before it)", e.ParentUUID())
		} else {
			r.add(f, i, !skipped, "dangling-parent", "parentUuid %s resolved to no entry: re-linked to line %d, the entry before it", e.ParentUUID(), f.Entries[p].Line)
		}
		if skipped {
			r.Fixes[len(r.Fixes)-1].Message += "; not done: it would bring in a new problem: " + why
			continue
		}
		// an answer whose prompt is lost, relinked below the answer
		// before it, would be a second assistant message in a row (the
		// API refuses it; the newest client relinks it there itself):
		// it becomes part of that answer, as one API message
		if callsTool == nil {
			callsTool = answersCallingTools(t, f)
		}
		if q, to := joinTarget(t, f, parent, i, p, callsTool, joins); to != "" {
			joins[e.MsgID()] = to
			r.Fixes[len(r.Fixes)-1].Message += fmt.Sprintf(", and made it part of the answer of line %d (message.id %s): the prompt it answered is lost, and the API refuses two assistant messages in a row", f.Entries[q].Line, to)
		}
	}
	if err := joinAnswers(t, f, joins); err != nil {
		return err
	}
	return r.progressParents(t, f, parent, relink)
}

// progressParents re-links each entry whose parent is a progress entry
// to the nearest entry above it that is none, the progress entries left
// where they are (validate's progress-parent): Claude Code 2.0.x reads no
// progress entry and resumes only what follows such an entry, while the
// newest client takes progress entries as links of the chain and sends
// the same conversation either way. An entry with nothing but progress
// above it is left alone: 2.0.x loses nothing there.
func (r *Repair) progressParents(t *Txn, f *chain.File, parent []int, relink func(i, p int) error) error {
	progress := func(j int) bool { return f.Entries[j].Type() == "progress" && !t.Dropped(f, j) }
	for i := range f.Entries {
		e := &f.Entries[i]
		p := parent[i]
		if t.Dropped(f, i) || !e.IsChain() || e.Type() == "progress" || p < 0 || !progress(p) {
			continue
		}
		first := p
		for n := 0; p >= 0 && progress(p) && n < len(f.Entries); n++ {
			p = parent[p]
		}
		if p < 0 || progress(p) {
			continue
		}
		if err := relink(i, p); err != nil {
			return err
		}
		r.add(f, i, true, validate.ProgressParent, "parentUuid named the progress entry of line %d, which Claude Code 2.0.x does not read (it resumed only from here on): re-linked to line %d, the entry above the progress entries; they stay in the file", f.Entries[first].Line, f.Entries[p].Line)
	}
	return nil
}

// answersCallingTools maps the message.id of each API response of f that
// holds a tool_use block to true.
func answersCallingTools(t *Txn, f *chain.File) map[string]bool {
	out := map[string]bool{}
	for i := range f.Entries {
		if e := &f.Entries[i]; e.Type() == "assistant" && e.MsgID() != "" && !t.Dropped(f, i) && len(e.ToolUseIDs()) > 0 {
			out[e.MsgID()] = true
		}
	}
	return out
}

// joinTarget returns, for the answer i just relinked below p, the answer
// it must become part of: the nearest message above it, when that is
// another assistant message that calls no tool (a call waits for its
// result, not for another answer), and its line; "" when there is none.
// joins holds the joins made so far (an answer may join one that joined
// another).
func joinTarget(t *Txn, f *chain.File, parent []int, i, p int, callsTool map[string]bool, joins map[string]string) (int, string) {
	e := &f.Entries[i]
	if e.Type() != "assistant" || !e.IsMessage() || e.MsgID() == "" {
		return -1, ""
	}
	for q, steps := p, 0; q >= 0 && steps < len(parent); q, steps = parent[q], steps+1 {
		qe := &f.Entries[q]
		if t.Dropped(f, q) || !qe.IsMessage() {
			continue
		}
		if qe.Type() != "assistant" || qe.MsgID() == "" {
			return -1, ""
		}
		to := qe.MsgID()
		for n := 0; n < 64; n++ {
			next, ok := joins[to]
			if !ok {
				break
			}
			to = next
		}
		if to == e.MsgID() || callsTool[to] {
			return -1, ""
		}
		return q, to
	}
	return -1, ""
}

// joinAnswers gives every entry of each joined answer the message.id it
// joins.
func joinAnswers(t *Txn, f *chain.File, joins map[string]string) error {
	if len(joins) == 0 {
		return nil
	}
	for j := range f.Entries {
		e := &f.Entries[j]
		to, ok := joins[e.MsgID()]
		if !ok || e.Type() != "assistant" || t.Dropped(f, j) {
			continue
		}
		for n := 0; n < 64; n++ {
			next, ok := joins[to]
			if !ok {
				break
			}
			to = next
		}
		raw, err := t.Raw(f, j)
		if err != nil {
			return err
		}
		out, err := sjson.SetBytes(raw, "message.id", to)
		if err != nil {
			return err
		}
		t.Set(f, j, out)
	}
	return nil
}

// candidatesBefore gives, for every entry j of f, the nearest entry before
// it that a relink may name as parent (a kept chain entry the graph
// holds), by [not a conversation entry][sidechain]: -1 when none.
func candidatesBefore(t *Txn, f *chain.File, g *chain.Graph) [2][2][]int32 {
	n := len(f.Entries)
	var prev [2][2][]int32
	last := [2][2]int32{{-1, -1}, {-1, -1}}
	for k := range 2 {
		for sc := range 2 {
			prev[k][sc] = make([]int32, n)
		}
	}
	for j := range n {
		for k := range 2 {
			for sc := range 2 {
				prev[k][sc][j] = last[k][sc]
			}
		}
		c := &f.Entries[j]
		if !c.IsChain() || t.Dropped(f, j) || !g.Holds(j) {
			continue
		}
		k, sc := 1, 0
		if isChainConversation(c) {
			k = 0
		}
		if c.IsSidechain() {
			sc = 1
		}
		last[k][sc] = int32(j)
	}
	return prev
}

// cycleGuard answers whether a new parent link closes a loop, over parent
// links that only ever change to point backward (to an entry before, or
// to none), as repair's relinks do.
type cycleGuard struct {
	parent []int
	// fwdMin is the first entry whose parent comes after it (a forward
	// link; len(parent) when there is none). Relinks point backward, so
	// forward links only ever go: below fwdMin, a walk up the parents
	// only goes back in the file.
	fwdMin int
	walked []int32 // the walk that last passed each entry
	walk   int32
	// up finds the root of an entry's tree (a union-find over parent,
	// its paths shortened as they are followed), for the question about
	// a root: a lost parent's entry, which repair relinks by the
	// thousand, one after another in the file, and whose walks up from
	// the entry before it went back over the same long chain each time
	// (a few forward links anywhere leave fwdMin no bound). nil until
	// asked, and again once a link inside a tree changed.
	up []int32
}

func newCycleGuard(parent []int) *cycleGuard {
	g := &cycleGuard{parent: parent, fwdMin: len(parent), walked: make([]int32, len(parent))}
	for j, q := range parent {
		if q > j {
			g.fwdMin = j
			break
		}
	}
	return g
}

// wouldCycle reports whether making p (before i in the file) the parent
// of i closes a loop: whether i is among p's ancestors. A walk up from p
// that reaches an entry before both i and fwdMin can only go further
// back, away from i: it stops there. (Without that bound, relinking each
// of n dangling entries to the one before walked the whole chain every
// time: a 100 MB session with 56,000 dangling parents took 185 s.)
func (g *cycleGuard) wouldCycle(i, p int) bool {
	if g.parent[i] < 0 {
		// i is a root: i is above p when p's tree is i's
		if r, ok := g.root(p); ok {
			return r == i
		}
	}
	g.walk++
	for j := p; j >= 0; j = g.parent[j] {
		if j == i {
			return true
		}
		if j < i && j < g.fwdMin {
			return false
		}
		if g.walked[j] == g.walk {
			return false // another loop, not through i
		}
		g.walked[j] = g.walk
	}
	return false
}

// link makes p the parent of i (-1: none).
func (g *cycleGuard) link(i, p int) {
	was := g.parent[i]
	g.parent[i] = p
	if g.up == nil {
		return
	}
	if was >= 0 {
		g.up = nil // a tree split: made again when next asked
		return
	}
	// a root joins p's tree (or stays a root)
	g.up[i] = int32(i)
	if p >= 0 {
		g.up[i] = int32(p)
	}
}

// root returns the root of j's tree, and false when j's parents loop
// (no root: the walk answers then).
func (g *cycleGuard) root(j int) (int, bool) {
	if g.up == nil {
		g.up = make([]int32, len(g.parent))
		for k, q := range g.parent {
			g.up[k] = int32(k)
			if q >= 0 {
				g.up[k] = int32(q)
			}
		}
	}
	r := int32(j)
	for n := 0; g.up[r] != r; n++ {
		if n > len(g.up) {
			return 0, false
		}
		r = g.up[r]
	}
	for k := int32(j); g.up[k] != r; { // every entry passed points at the root
		k, g.up[k] = g.up[k], r
	}
	return int(r), true
}

// cyclesOf returns, for every loop of parent links, the member that comes
// first in the file.
func cyclesOf(parent []int) []int {
	state := make([]uint8, len(parent)) // 0 new, 1 on the current walk, 2 done
	var out []int
	for i := range parent {
		if state[i] != 0 {
			continue
		}
		var walk []int
		j := i
		for j >= 0 && state[j] == 0 {
			state[j] = 1
			walk = append(walk, j)
			j = parent[j]
		}
		if j >= 0 && state[j] == 1 {
			first := j
			for q := parent[j]; q != j; q = parent[q] {
				first = min(first, q)
			}
			out = append(out, first)
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
	sort.Ints(out)
	return out
}

// toolPairs removes unpaired tool calls and results on the active branch
// of the file as the structural fixes leave it.
func (r *Repair) toolPairs(t *Txn, f *chain.File) error {
	// the file as fixed so far, loaded again; kept[k] is the input entry of
	// its entry k (the fixes so far drop lines and change lines, never add)
	// (made once: grown by doubling it took twice its size at the peak)
	nkept := 0
	for i := range f.Entries {
		if !t.Dropped(f, i) {
			nkept++
		}
	}
	kept := make([]int, 0, nkept)
	for i := range f.Entries {
		if !t.Dropped(f, i) {
			kept = append(kept, i)
		}
	}
	nf := f // nothing changed so far: the input is the file as fixed
	if !unchanged(t, f) {
		var err error
		if nf, err = chain.IndexOf(f.Path, len(kept), t.Render(f)); err != nil {
			return err
		}
	}
	if len(nf.Entries) != len(kept) {
		return fmt.Errorf("repair: %d lines after the structural fixes, want %d", len(nf.Entries), len(kept))
	}
	ng := nf.Graph()
	leaf := ng.ActiveLeaf()
	if leaf < 0 {
		return nil
	}
	path := ng.PathTo(leaf)
	msgs := nf.Messages(path)
	// API messages right before a user message that loses a result: left
	// with nothing but thinking, they are no answer (the client drops them)
	answered := map[string]bool{}
	dropUse := map[int]map[string]bool{}    // input entry -> tool_use ids to remove
	dropResult := map[int]map[string]bool{} // input entry -> tool_use_ids of results to remove
	mark := func(m map[int]map[string]bool, i int, id string) {
		if m[i] == nil {
			m[i] = map[string]bool{}
		}
		m[i][id] = true
	}
	for _, u := range nf.UnpairedTools(msgs) {
		switch {
		case u.Result:
			mark(dropResult, kept[u.Entry], u.ID)
			if k := u.Message; k > 0 && msgs.At(k-1).Role == "assistant" {
				for _, a := range msgs.At(k - 1).Entries {
					answered[nf.Entries[a].MsgID()] = true
				}
			}
		case u.Results == 0 && !u.Open: // the session ends inside a tool call: the client handles it
			mark(dropUse, kept[u.Entry], u.ID)
		}
	}
	groups := map[string]bool{} // API messages that lost a tool call
	for _, i := range sortedKeys(dropUse) {
		ids := dropUse[i]
		n, err := t.RemoveBlocks(f, i, func(b gjson.Result) bool {
			typ := b.Get("type").Str
			return (typ == "tool_use" || typ == "server_tool_use") && ids[b.Get("id").Str]
		})
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		if id := f.Entries[i].MsgID(); id != "" {
			groups[id] = true
		}
		r.add(f, i, true, "tool-use-without-result", "removed tool_use %s: it has no tool_result%s", joinIDs(ids), entryGone(t, f, i))
	}
	for _, i := range sortedKeys(dropResult) {
		ids := dropResult[i]
		n, err := t.RemoveBlocks(f, i, func(b gjson.Result) bool {
			return b.Get("type").Str == "tool_result" && ids[b.Get("tool_use_id").Str]
		})
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		r.add(f, i, true, "tool-result-without-use", "removed tool_result for %s: it has no tool_use before it%s", joinIDs(ids), entryGone(t, f, i))
	}
	for id := range answered {
		if id != "" {
			groups[id] = true
		}
	}
	apart, err := lineUpResults(t, f, nf, kept, leaf, path.Entries, msgs)
	if err != nil {
		return err
	}
	for _, a := range apart {
		r.add(f, a.first, true, validate.SideBranchCalls, "lined up the %s of the parallel calls of the answer of line %d one below the other, in the order the client sends them (they hung on side branches, below their own call, where Claude Code 2.0.x does not send them and drops their calls)", chain.Plural(a.results, "tool result", "tool results"), f.Entries[a.call].Line)
	}
	if err := r.resultsBelowCalls(t, f, nf, kept, leaf, msgs); err != nil {
		return err
	}
	// an API message left with nothing but thinking is no answer: it goes
	// (the entries of each such message are gathered in one pass: a
	// damaged file has thousands of them)
	byMsg := map[string][]int{}
	var order []string
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Type() != "assistant" || e.MsgID() == "" || !groups[e.MsgID()] {
			continue
		}
		if _, seen := byMsg[e.MsgID()]; !seen {
			order = append(order, e.MsgID())
		}
		byMsg[e.MsgID()] = append(byMsg[e.MsgID()], i)
	}
	for _, id := range order {
		if members, alone := t.thinkingAlone(f, byMsg[id]); alone && len(members) > 0 {
			for _, j := range members {
				t.Drop(f, j)
			}
			r.add(f, members[0], true, "tool-use-without-result", "removed the thinking left alone in the assistant message %s (%d entries): no answer, and the client does not send it", id, len(members))
		}
	}
	return nil
}

// linedUp is a user message whose tool results lineUpResults lined up
// because they hung apart: the entry of f of its first result, how many
// tool results it holds, and the first entry of f of the answer that
// made the calls.
type linedUp struct{ first, results, call int }

// lineUpResults re-links the tool results of a user message that lost an
// entry, or whose entries hang apart (validate's side-branch-calls): the
// results that stay, in the order the client sends them, one after
// another below the assistant message that made the calls, and the
// conversation after them below the last one. 2.1.x writes the results of
// parallel calls on sibling branches, each below its own call, and the
// rest of the conversation below one of them: 2.0.x, walking the parents
// up, finds only that one and drops the other calls; when that one goes,
// the conversation would hang off the tool calls, where 2.0.x finds none
// of the results. As a line, which is how 2.0.x writes them, every client
// sends them all. nf is f as fixed so far, kept[k] the entry of f that
// nf's entry k is, path the active path of nf (to leaf) and msgs its
// messages. It returns the messages lined up because they hung apart.
func lineUpResults(t *Txn, f, nf *chain.File, kept []int, leaf int, path []int, msgs chain.MessageList) ([]linedUp, error) {
	ng := nf.Graph()
	// a path whose every entry hangs below the one before it has nothing
	// apart (the path of a 2.0.x session, or of one lined up): pos is not
	// needed for it
	apartAny := false
	for q := 1; q < len(path) && !apartAny; q++ {
		apartAny = ng.Parent[path[q]] != path[q-1]
	}
	// onWalk marks the entries above the leaf, the ones 2.0.x meets
	// walking the parents up (made where something is apart)
	var onWalk []bool
	if apartAny {
		onWalk = make([]bool, len(nf.Entries))
		anc, _ := ng.Ancestors(leaf)
		for _, j := range anc {
			onWalk[j] = true
		}
	}
	var lined []linedUp
	// pos[j] is the position of nf's entry j in path, made the first time
	// a message lost an entry: on a path where none did it is not needed
	// (a map of the path was 23 MB of repair's peak on a million entries)
	var pos []int32
	gone := func(q int) bool { return t.Dropped(f, kept[path[q]]) }
	setParent := func(j, p int) error {
		if ng.Parent[j] == p {
			return nil
		}
		raw, err := t.Raw(f, kept[j])
		if err != nil {
			return err
		}
		out, err := setTopLevel(raw, "parentUuid", EncodeString(nf.Entries[p].UUID()))
		if err != nil {
			return err
		}
		t.Set(f, kept[j], out)
		return nil
	}
	for k, m := range msgs.All() {
		if m.Role != "user" || k == 0 || msgs.At(k-1).Role != "assistant" {
			continue
		}
		lost := false
		for _, j := range m.Entries {
			lost = lost || t.Dropped(f, kept[j])
		}
		if !lost && !apartAny {
			continue
		}
		if pos == nil {
			pos = make([]int32, len(nf.Entries))
			for k, j := range path {
				pos[j] = int32(k)
			}
		}
		lo, hi := len(path), -1
		for _, j := range m.Entries {
			lo, hi = min(lo, int(pos[j])), max(hi, int(pos[j]))
		}
		apart := false
		if !lost {
			// a result of the message is off the walk up from the
			// leaf: 2.0.x does not send it (one on the walk whose call
			// hangs beside it is resultsBelowCalls' part)
			for q := lo; q <= hi && !apart; q++ {
				apart = !onWalk[path[q]] && nf.Entries[path[q]].IsToolResult()
			}
			if !apart {
				continue
			}
		}
		var line []int
		for q := lo; q <= hi; q++ {
			if !gone(q) {
				line = append(line, path[q])
			}
		}
		if len(line) == 0 {
			continue // nothing stays: the answers around it are joined
		}
		prev := -1
		for q := lo - 1; q >= 0 && prev < 0; q-- {
			if !gone(q) {
				prev = path[q]
			}
		}
		for x, j := range line {
			p := prev
			if x > 0 {
				p = line[x-1]
			}
			if p < 0 {
				continue
			}
			if err := setParent(j, p); err != nil {
				return nil, err
			}
		}
		if apart {
			call := kept[path[lo-1]]
			if k > 0 && len(msgs.At(k-1).Entries) > 0 {
				call = kept[msgs.At(k - 1).Entries[0]]
			}
			n := 0
			for _, j := range line {
				if nf.Entries[j].IsToolResult() {
					n++
				}
			}
			lined = append(lined, linedUp{first: kept[line[0]], results: n, call: call})
		}
		for q := hi + 1; q < len(path); q++ {
			if !gone(q) {
				if err := setParent(path[q], line[len(line)-1]); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	return lined, nil
}

// resultsBelowCalls re-links each tool result of the branch whose call
// is not above it (validate's result-beside-call: the call is a part of
// its message on a side branch, which the newest client sends with the
// message and 2.0.x does not) below the last entry of the message that
// made the call: the newest client sends the same, and 2.0.x, walking the
// parents up from the leaf, now meets the call. nf is f as fixed so far,
// kept[k] the entry of f that nf's entry k is, leaf nf's active leaf and
// msgs the messages of its path.
func (r *Repair) resultsBelowCalls(t *Txn, f, nf *chain.File, kept []int, leaf int, msgs chain.MessageList) error {
	ng := nf.Graph()
	// msgOf[j] is the message of nf's entry j (-1: none), made for the
	// first result found beside its call: a sound session has none (a map
	// of every entry was 19 MB of repair's peak on 500,000 entries)
	var msgOf []int32
	moved := map[string]bool{} // calls above the results moved so far
	for _, b := range nf.ResultsBesideCalls(leaf) {
		j := b.Entry
		beside := slices.DeleteFunc(slices.Clone(b.IDs), func(id string) bool { return moved[id] })
		if msgOf == nil {
			msgOf = make([]int32, len(nf.Entries))
			for i := range msgOf {
				msgOf[i] = -1
			}
			for k, m := range msgs.All() {
				for _, j := range m.Entries {
					msgOf[j] = int32(k)
				}
			}
		}
		k, ok := int(msgOf[j]), msgOf[j] >= 0
		if len(beside) == 0 || t.Changed(f, kept[j]) || !ok || k == 0 || msgs.At(k-1).Role != "assistant" {
			continue
		}
		prev := msgs.At(k - 1).Entries
		made := map[string]bool{}
		for _, a := range prev {
			for _, id := range nf.Entries[a].ToolUseIDs() {
				made[id] = true
			}
		}
		if slices.ContainsFunc(beside, func(id string) bool { return !made[id] }) {
			continue // a result without its call: toolPairs' part
		}
		last := prev[len(prev)-1]
		if above, cycle := ng.Ancestors(last); cycle || slices.Contains(above, j) {
			continue
		}
		if err := t.SetParent(f, kept[j], nf.Entries[last].UUID()); err != nil {
			return err
		}
		for id := range made {
			moved[id] = true
		}
		sort.Strings(beside)
		r.add(f, kept[j], true, "result-beside-call", "moved the tool_result for %s below its call (it hung beside it, where Claude Code before 2.1 does not send the call)", strings.Join(beside, ", "))
	}
	return nil
}

func entryGone(t *Txn, f *chain.File, i int) string {
	if t.Dropped(f, i) {
		return " (the entry held nothing else and was removed)"
	}
	return ""
}

func sortedKeys(m map[int]map[string]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func joinIDs(ids map[string]bool) string {
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	sort.Strings(out)
	s := ""
	for k, id := range out {
		if k > 0 {
			s += ", "
		}
		s += id
	}
	return s
}

func isChainConversation(e *chain.Entry) bool {
	switch e.Type() {
	case "user", "assistant", "system", "attachment":
		return true
	}
	return false
}

// cloneEdits copies the pending edits (the Edit values; their byte slices
// are never changed in place).
// cloneLate copies the makers of the late lines (a clone's edits may set
// or drop a late line without touching t's).
func (t *Txn) cloneLate() map[*chain.File]map[int]LateFunc { return cloneLateOf(t.late) }

func cloneLateOf(late map[*chain.File]map[int]LateFunc) map[*chain.File]map[int]LateFunc {
	out := make(map[*chain.File]map[int]LateFunc, len(late))
	for f, fns := range late {
		c := make(map[int]LateFunc, len(fns))
		for i, fn := range fns {
			c[i] = fn
		}
		out[f] = c
	}
	return out
}

func (t *Txn) cloneEdits() map[*chain.File]*chain.Edits { return cloneEditsOf(t.edits) }

func cloneEditsOf(edits map[*chain.File]*chain.Edits) map[*chain.File]*chain.Edits {
	out := make(map[*chain.File]*chain.Edits, len(edits))
	for f, ed := range edits {
		c := chain.NewEdits()
		for i, e := range ed.All() {
			cp := *e
			c.Set(i, &cp)
		}
		out[f] = c
	}
	return out
}

// keepsMessage reports whether a user or assistant message of f survives
// the pending edits (or f never had one).
func keepsMessage(t *Txn, f *chain.File) bool {
	had := false
	for i := range f.Entries {
		if f.Entries[i].IsMessage() {
			had = true
			if !t.Dropped(f, i) {
				return true
			}
		}
	}
	return !had
}

// culprits returns the relinked lost parents that the errors of after
// the input has no copy of (by code and line) lead to, each with the first
// such error: the error's entry when it is relinked (the seam: two
// assistant messages in a row, a tool result after another call), else a
// relinked entry between it and the message above it (the seam, higher
// up: an entry that is no message relinked between two answers), else
// the relinked entry whose new parents reach it first (the history the
// relink brought back to the branch), or else the relinked entry nearest
// above it (which put its tree on the branch). It returns none when some
// new error leads to no relink.
func (r *Repair) culprits(f *chain.File, before, after []validate.Problem, inputLine []int, byLine lineIndex) map[int]string {
	if r.parent == nil || len(r.relinked) == 0 {
		return nil
	}
	type key struct {
		code string
		line int
	}
	had := map[key]bool{}
	for _, p := range before {
		if p.Severity == validate.Error {
			had[key{p.Code, p.Line}] = true
		}
	}
	// owner: the first relinked entry (in file order) whose new parents
	// reach an entry; each entry is walked once
	var owner map[int]int
	out := map[int]string{}
	for _, p := range after {
		if p.Severity != validate.Error || p.Line <= 0 || p.Line >= len(inputLine) {
			continue
		}
		line := inputLine[p.Line]
		if had[key{p.Code, line}] {
			continue
		}
		x, ok := byLine.get(line)
		if !ok {
			return nil
		}
		c := x
		if _, relinked := r.relinked[x]; !relinked {
			// a problem of an entry is about the message above it: a
			// relink between the two made the seam
			c = relinkedAbove(r.parent, r.relinked, x, f)
		}
		if c < 0 {
			// none above it: the relink whose new parents reach it
			// brought it onto the branch
			if owner == nil {
				owner = map[int]int{}
				for i := range r.parent {
					if _, relinked := r.relinked[i]; !relinked {
						continue
					}
					for y := r.parent[i]; y >= 0; y = r.parent[y] {
						if _, seen := owner[y]; seen {
							break
						}
						owner[y] = i
					}
				}
			}
			var seen bool
			if c, seen = owner[x]; !seen {
				// below a relink, and no history it brought back: the
				// relink nearest above it put its tree on the branch
				if c = relinkedAbove(r.parent, r.relinked, x, nil); c < 0 {
					return nil
				}
			}
		}
		if _, ok := out[c]; !ok {
			out[c] = p.Message
		}
	}
	return out
}

// relinkedAbove returns the relinked entry nearest above x (by parent),
// or -1 for none; with seam set, only one below the first message above
// x (of seam's entries): the relink that put x next to that message.
// (Higher up, history brought back below a relink is another relink's.)
func relinkedAbove(parent []int, relinked map[int]int, x int, seam *chain.File) int {
	for y, n := parent[x], 0; y >= 0 && n <= len(parent); y, n = parent[y], n+1 {
		if _, ok := relinked[y]; ok {
			return y
		}
		if seam != nil && seam.Entries[y].IsMessage() {
			return -1
		}
	}
	return -1
}

// undo marks the fixes from index from on as not made, saying why.
func (r *Repair) undo(from int, why string) {
	for k := from; k < len(r.Fixes); k++ {
		if r.Fixes[k].Fixed {
			r.Fixes[k].Fixed = false
			r.Fixes[k].Message += "; not done: " + why
		}
	}
}

// result is what resultProblems found of the result of the pending edits.
type result struct {
	after     []validate.Problem
	inputLine []int
}

// resultProblems validates f as the pending edits, re-linked and joined as
// Finish will, leave it; before is what validate finds in f. inputLine
// maps a line of the result to the line of the input it comes from
// (repair adds no line).
func resultProblems(t *Txn, f *chain.File, before []validate.Problem) (after []validate.Problem, inputLine []int, err error) {
	c := &Txn{S: t.S, edits: t.cloneEdits(), late: t.cloneLate(), RemovedFiles: map[*chain.File]bool{}}
	if err := c.relink(f); err != nil {
		return nil, nil, err
	}
	if err := c.joinAssistants(f); err != nil {
		return nil, nil, err
	}
	inputLine = []int{0}
	for i := range f.Entries {
		if !c.Dropped(f, i) {
			inputLine = append(inputLine, int(f.Entries[i].Line))
		}
	}
	// with nothing to change the result is the input byte for byte: its
	// problems are the input's, without a second index of the file (on a
	// session of many small entries, as big as the first)
	if unchanged(c, f) {
		return slices.Clone(before), inputLine, nil
	}
	// indexed as it streams by: the result's bytes are never held
	nf, err := chain.IndexOf(f.Path, len(inputLine)-1, c.Render(f))
	if err != nil {
		return nil, nil, err
	}
	return validate.File(nf, t.S.ID), inputLine, nil
}

// unchanged reports whether t writes f byte for byte as it is: then the
// input's index is the result's, and a second one (on a session of many
// small entries, as big as the first) need not be made.
func unchanged(t *Txn, f *chain.File) bool {
	return t.edits[f].Len() == 0 && len(t.late[f]) == 0 && t.remapper == nil && t.mapped[f] == nil
}

// empties removes the empty text blocks and the messages with empty
// content that validate finds on the branch the client resumes (the API
// rejects both; the client sends them as they are).
func (r *Repair) empties(t *Txn, f *chain.File, before []validate.Problem, byLine lineIndex) error {
	for _, p := range before {
		i, ok := byLine.get(p.Line)
		if p.Severity != validate.Error || !ok || t.Dropped(f, i) {
			continue
		}
		switch p.Code {
		case "empty-text-block":
			n, err := t.RemoveBlocks(f, i, func(b gjson.Result) bool {
				return b.Get("type").Str == "text" && b.Get("text").Str == ""
			})
			if err != nil {
				return err
			}
			if n > 0 {
				r.add(f, i, true, p.Code, "removed %s: the API rejects them%s", chain.Plural(n, "empty text block", "empty text blocks"), entryGone(t, f, i))
			}
		case "empty-content":
			t.Drop(f, i)
			r.add(f, i, true, p.Code, "removed the %s entry with empty content: the API rejects an empty message", f.Entries[i].Type())
		}
	}
	return nil
}

// whyNot says, for each kind of error repair leaves, why.
var whyNot = map[string]string{
	"empty-file":            "the file holds no entry to rebuild a conversation from",
	"consecutive-assistant": "repair does not merge two answers into one or choose between them",
	"duplicate-tool-result": "two results answer one call and repair does not choose between them; keep the one you want by hand",
}

// explain adds, for every error validate still finds in the result that
// no fix already explains, a fix not made that says why; and one for each
// error of a subagent transcript, which repair does not change.
// res is the result's problems when the edits were checked as they stand
// (nil: they are checked here; each check indexes the whole result).
func (r *Repair) explain(t *Txn, f *chain.File, res *result) error {
	if res == nil {
		after, inputLine, err := resultProblems(t, f, r.before)
		if err != nil {
			return err
		}
		res = &result{after, inputLine}
	}
	after, inputLine := res.after, res.inputLine
	budget := map[string]int{}
	for _, fx := range r.Fixes {
		if !fx.Fixed {
			budget[fx.Code]++
		}
	}
	for _, p := range after {
		if p.Severity != validate.Error {
			continue
		}
		if budget[p.Code] > 0 {
			budget[p.Code]--
			continue
		}
		why := whyNot[p.Code]
		if why == "" {
			why = "repair knows no fix for it that keeps the conversation as the client sends it"
		}
		line := 0
		if p.Line > 0 && p.Line < len(inputLine) {
			line = inputLine[p.Line]
		}
		r.Fixes = append(r.Fixes, Fix{Line: line, Code: p.Code, Message: p.Message + "; " + why, KeepOne: p.Code == "consecutive-assistant"})
	}
	for _, a := range t.S.Subagents {
		for _, p := range validate.File(a.File, "") {
			if p.Severity == validate.Error {
				r.Fixes = append(r.Fixes, Fix{File: a.File.Path, Line: p.Line, Code: p.Code,
					Message: p.Message + "; repair changes the main transcript only (a subagent transcript is not resumed with the session)"})
			}
		}
	}
	return nil
}
