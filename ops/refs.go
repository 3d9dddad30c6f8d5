package ops

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// isContentKey reports whether a top-level field holds conversation
// content or tool output rather than references: a UUID inside it is
// text, not a link, and stays byte-identical. (A switch: the lookup of
// every key of every line in a map was a sixth of a clone's renaming.)
func isContentKey(k string) bool {
	switch k {
	case "message", "toolUseResult", "content", "lastPrompt", "summary", "display",
		"attachment", "data", "customTitle", "text", "prompt":
		return true
	}
	return false
}

// uuidTokens calls fn with the offset (of the first hex digit) of every
// JSON string in line that is exactly a UUID and lies outside content
// fields. This is the general rule for references: a value that is exactly
// one of the session's identifiers, outside message content, refers to it.
func uuidTokens(line []byte, fn func(off int)) {
	str := unsafe.String(unsafe.SliceData(line), len(line))
	i := 0
	for i < len(str) && str[i] != '{' {
		i++
	}
	if i == len(str) {
		return
	}
	chain.Fields(str, i, func(k string, vs, ve int) bool {
		if !isContentKey(k) {
			scanUUIDStrings(line[vs:ve], func(off int) { fn(vs + off) })
		}
		return true
	})
}

// scanUUIDStrings finds "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" in b. It
// jumps from quote to quote (bytes.IndexByte), so long values without ids
// cost little.
func scanUUIDStrings(b []byte, fn func(off int)) {
	for i := 0; i+37 < len(b); {
		k := bytes.IndexByte(b[i:len(b)-37], '"')
		if k < 0 {
			return
		}
		i += k
		if b[i+37] == '"' && chain.IsUUID(b[i+1:i+37]) {
			fn(i + 1)
			i += 38
			continue
		}
		i++
	}
}

const nilUUID = "00000000-0000-0000-0000-000000000000"

// relink repairs references after removals: a kept entry whose parent was
// removed gets the nearest kept ancestor as parent (null when none is
// left); other references to removed entries (logicalParentUuid, leafUuid,
// compactMetadata, ...) move to the nearest kept ancestor too; file-history
// records of removed messages go with them.
func (t *Txn) relink(f *chain.File) error {
	ed := t.edits[f]
	if ed.Len() == 0 {
		return nil
	}
	g := f.Graph()
	// the uuids gone, by the entry each resolves to (Graph.Holder): one
	// bit per entry, where a map of their strings took some 100 bytes for
	// each of half a million lines removed
	gone := make([]uint64, (len(f.Entries)+63)/64)
	isGone := func(h int) bool { return h >= 0 && gone[h/64]&(1<<(h%64)) != 0 }
	some := false
	for i, e := range ed.All() {
		if e.Drop && f.Entries[i].IsChain() {
			if h := g.Holder(i); h >= 0 {
				gone[h/64] |= 1 << (h % 64)
				some = true
			}
		}
	}
	if !some {
		return nil
	}
	// a uuid that a kept entry still holds (the other copy of a duplicate)
	// is not gone: references to it stay
	for i := range f.Entries {
		if e := &f.Entries[i]; e.IsChain() && !ed.Dropped(i) {
			if h := g.Holder(i); isGone(h) {
				gone[h/64] &^= 1 << (h % 64)
			}
		}
	}
	if !slices.ContainsFunc(gone, func(w uint64) bool { return w != 0 }) {
		return nil
	}
	dropped := func(uuid string) bool {
		h, ok := g.Lookup(uuid)
		return ok && isGone(h)
	}
	// parentOf is entry j's parent as the edits leave it: its index (-1
	// for none in the file), its uuid, and whether it has one
	parentOf := func(j int) (int, string, bool) {
		e := &f.Entries[j]
		uuid, has := e.ParentUUID(), e.HasParent()
		switch x := ed.At(j); {
		case x == nil:
			return g.Parent[j], uuid, has
		case x.Raw != nil:
			uuid = gjson.GetBytes(x.Raw, "parentUuid").Str
		case x.Parent != nil:
			uuid = *x.Parent
		default:
			return g.Parent[j], uuid, has
		}
		if uuid == "" {
			return -1, "", false
		}
		k, ok := g.Lookup(uuid)
		if !ok {
			return -1, uuid, true
		}
		return k, uuid, true
	}
	// what the walks found, by entry: 0 not walked yet, 1 no kept
	// ancestor, k+2 entry k's uuid, -(d+1) the dangling parent dangling[d]
	// (a slice and a bitset made once, where a map of the results and one
	// of the entries seen per walk were a tenth of a rescue removing
	// 200,000 entries)
	var memo []int32
	var seen []uint64
	var dangling []string
	// keptAncestor returns the uuid of the nearest kept ancestor of entry i
	// (i itself excluded); false for none.
	keptAncestor := func(i int) (string, bool) {
		if memo == nil {
			memo = make([]int32, len(f.Entries))
			seen = make([]uint64, (len(f.Entries)+63)/64)
		}
		// iterative walk with memo to stay linear on long chains (an entry
		// seen by an earlier walk has its result: one seen again without
		// one is a loop of this walk)
		var walked []int32
		res := int32(1)
		j := i
		for {
			if r := memo[j]; r != 0 {
				res = r
				break
			}
			if seen[j/64]&(1<<(j%64)) != 0 {
				break
			}
			seen[j/64] |= 1 << (j % 64)
			walked = append(walked, int32(j))
			var p int
			var puuid string
			var has bool
			if x := ed.At(j); (x == nil || x.Raw == nil && x.Parent == nil) && g.Parent[j] >= 0 {
				p = g.Parent[j] // parentOf's answer, without making the uuid's string it would not need
			} else {
				p, puuid, has = parentOf(j)
			}
			if p < 0 {
				if has && !dropped(puuid) { // a dangling parent that was there before: keep it
					dangling = append(dangling, puuid)
					res = -int32(len(dangling))
				}
				break
			}
			if !ed.Dropped(p) || !isGone(g.Holder(p)) {
				res = int32(p) + 2
				break
			}
			j = p
		}
		for _, w := range walked {
			memo[w] = res
		}
		switch {
		case res == 1:
			return "", false
		case res < 0:
			return dangling[-res-1], true
		}
		return f.Entries[res-2].UUID(), true
	}
	replacement := func(uuid string) (string, bool) {
		i, ok := g.Lookup(uuid)
		if !ok || !ed.Dropped(i) || !dropped(uuid) {
			return "", false
		}
		r, _ := keptAncestor(i)
		return r, true
	}
	sent := &keepSent{f: f, g: g, ed: ed}
	for i := range f.Entries {
		if ed.Dropped(i) {
			continue
		}
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		if (e.Type() == "file-history-snapshot" || e.Type() == "file-history-delta") && e.MessageID() != "" && dropped(e.MessageID()) {
			t.Drop(f, i)
			continue
		}
		// an operation that gave the entry another parent decides: that
		// parent is the one to keep or to replace. A chain entry whose
		// parent no operation changed has it in the graph (g.Parent: the
		// look-up of its parentUuid, -1 when there is none or it is not in
		// the file): its uuid is not made into a string to be looked up
		// again (on every entry a compression keeps, a serial 30 ms on
		// agentic 300 MB)
		var p int
		var parentGone bool
		if x := ed.At(i); e.IsChain() && (x == nil || x.Raw == nil && x.Parent == nil) {
			p = g.Parent[i]
			parentGone = p >= 0 && isGone(p)
		} else {
			_, parent, _ := parentOf(i)
			if parentGone = dropped(parent); parentGone {
				p, _ = g.Lookup(parent)
			}
		}
		touches := parentGone || dropped(e.LogicalParentUUID()) || dropped(e.LeafUUID()) || dropped(e.MessageID()) || e.Subtype() == "compact_boundary"
		if !touches {
			continue
		}
		raw, err := t.Raw(f, i)
		if err != nil {
			return err
		}
		out := append([]byte(nil), raw...)
		if parentGone {
			r, ok := keptAncestor(p)
			if ok {
				r = sent.parentFor(i, p, r, keptAncestor)
			}
			if ok {
				out, err = sjson.SetBytes(out, "parentUuid", r)
			} else {
				out, err = sjson.SetRawBytes(out, "parentUuid", []byte("null"))
			}
			if err != nil {
				return err
			}
		}
		// other references: same-length UUID swaps, or removal to null
		var nulls []string
		uuidTokens(out, func(off int) {
			id := string(out[off : off+36])
			if r, ok := replacement(id); ok {
				if r != "" {
					copy(out[off:off+36], r)
				} else {
					nulls = append(nulls, id)
				}
			}
		})
		if len(nulls) > 0 {
			// a reference with no kept target left: clear the fields that hold it
			for _, k := range []string{"logicalParentUuid", "leafUuid"} {
				if v := gjson.GetBytes(out, k); v.Type == gjson.String && contains(nulls, v.Str) {
					out, _ = sjson.SetRawBytes(out, k, []byte("null"))
				}
			}
		}
		if !bytes.Equal(out, raw) {
			t.Set(f, i, out)
		}
	}
	return nil
}

// keepSent chooses, for an entry whose parent is removed, a new parent
// under which the client sends what it sent before, no more and no less,
// where the nearest kept ancestor would not (on damaged files):
//   - a tool_result that the client does not send (a second result of a
//     call, on a side branch below an entry whose calls it does not
//     answer) does not go below the call it answers, where the client
//     would send it with the call: a second result, which the API rejects.
//     It goes above the entries that make that call.
//   - an entry below a removed part of an assistant message whose other
//     parts hang on a side branch (the client sends them with the message
//     by its id, found from the part on the path) goes below the last kept
//     part of that message: below the removed part's kept ancestor, no part
//     of the message would be on the path, and the side parts (a call, say,
//     whose result the entry is) would no longer be sent.
type keepSent struct {
	f  *chain.File
	g  *chain.Graph
	ed *chain.Edits
	// sentResult: the entry that holds the sent result of each call, on
	// the path the client resumes (made on first use)
	sentResult map[string]int
	// lastPart: the last kept entry of each assistant message id, in file
	// order (made on first use)
	lastPart map[string]int
}

// parentFor returns the uuid of the parent for entry i, whose parent p is
// removed; r is the uuid of p's nearest kept ancestor (keptAncestor).
func (k *keepSent) parentFor(i, p int, r string, keptAncestor func(int) (string, bool)) string {
	e, pe := &k.f.Entries[i], &k.f.Entries[p]
	if e.IsToolResult() && !k.g.AnswersCallOf(i, p) && k.unsentSecond(i) {
		for ri, ok := k.g.Lookup(r); ok && k.g.AnswersCallOf(i, ri); ri, ok = k.g.Lookup(r) {
			if r, ok = keptAncestor(ri); !ok {
				return ""
			}
		}
		return r
	}
	if m := pe.MsgID(); m != "" && pe.Type() == "assistant" && !(e.Type() == "assistant" && e.MsgID() == m) {
		if q, ok := k.lastKeptPart(m); ok && q != i && !k.below(q, i) {
			if ri, ok := k.g.Lookup(r); !ok || k.f.Entries[ri].MsgID() != m {
				return k.f.Entries[q].UUID()
			}
		}
	}
	return r
}

// unsentSecond reports whether the tool result i is not on the path the
// client resumes while another entry there holds the result of its call.
func (k *keepSent) unsentSecond(i int) bool {
	if k.sentResult == nil {
		k.sentResult = map[string]int{}
		for _, j := range k.g.ActivePath().Entries {
			for _, id := range k.f.Entries[j].ToolResultIDs() {
				k.sentResult[id] = j
			}
		}
	}
	for _, id := range k.f.Entries[i].ToolResultIDs() {
		if j, ok := k.sentResult[id]; !ok || j == i {
			return false
		}
	}
	return true
}

// lastKeptPart returns the last kept entry, in file order, of the
// assistant message m.
func (k *keepSent) lastKeptPart(m string) (int, bool) {
	if k.lastPart == nil {
		k.lastPart = map[string]int{}
		for j := range k.f.Entries {
			if e := &k.f.Entries[j]; e.Type() == "assistant" && e.MsgID() != "" && e.IsChain() && !k.ed.Dropped(j) {
				k.lastPart[e.MsgID()] = j
			}
		}
	}
	q, ok := k.lastPart[m]
	return q, ok
}

// below reports whether entry q descends from entry i (in the file as
// read): i cannot take q as its parent.
func (k *keepSent) below(q, i int) bool {
	anc, _ := k.g.Ancestors(q)
	return slices.Contains(anc, i)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// joinAssistants keeps user and assistant messages alternating after
// removals: when a removed user message (a tool result) stood between two
// assistant API messages, the later one takes the message.id of the earlier
// one, so the client sends them as one assistant message instead of two in
// a row (which the API rejects).
func (t *Txn) joinAssistants(f *chain.File) error {
	ed := t.edits[f]
	if ed.Len() == 0 {
		return nil
	}
	g := f.Graph()
	callsTool := t.keptToolUse(f)
	newID := map[string]string{} // message.id -> the id it joins
	effective := func(id string) string {
		for n := 0; n < 64; n++ {
			next, ok := newID[id]
			if !ok {
				return id
			}
			id = next
		}
		return id
	}
	// the walk that last passed each entry: a walk that comes round a loop
	// of parents stops there (a damaged file has thousands of self-parents;
	// walking each loop for as many steps as the file has entries was
	// quadratic)
	walked := make([]int32, len(f.Entries))
	walk := int32(0)
	for i := range f.Entries {
		e := &f.Entries[i]
		if ed.Dropped(i) || e.Type() != "assistant" || !e.IsMessage() || e.MsgID() == "" {
			continue
		}
		if _, done := newID[e.MsgID()]; done {
			continue
		}
		removedUser := false
		p := g.Parent[i]
		walk++
		looped := false
		for ; p >= 0; p = g.Parent[p] {
			if walked[p] == walk {
				looped = true
				break
			}
			walked[p] = walk
			pe := &f.Entries[p]
			if !ed.Dropped(p) && pe.IsMessage() {
				break
			}
			if ed.Dropped(p) && pe.IsMessage() && pe.Type() == "user" {
				removedUser = true
			}
		}
		if p < 0 || looped || !removedUser {
			continue
		}
		pe := &f.Entries[p]
		if pe.Type() != "assistant" || pe.MsgID() == "" {
			continue
		}
		// a response that still calls a tool must be followed by its
		// results, not by another answer: do not join onto it
		if target := effective(pe.MsgID()); target != e.MsgID() && !callsTool[target] {
			newID[e.MsgID()] = target
			callsTool[target] = callsTool[target] || callsTool[e.MsgID()]
		}
	}
	if len(newID) == 0 {
		return nil
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if ed.Dropped(i) || e.Type() != "assistant" {
			continue
		}
		if _, ok := newID[e.MsgID()]; !ok {
			continue
		}
		raw, err := t.Raw(f, i)
		if err != nil {
			return err
		}
		out, err := sjson.SetBytes(raw, "message.id", effective(e.MsgID()))
		if err != nil {
			return err
		}
		t.Set(f, i, out)
	}
	t.Count(CountAssistantsJoined, len(newID))
	return nil
}

// keptToolUse maps each API response of f to whether it still holds a
// tool_use block after the edits.
func (t *Txn) keptToolUse(f *chain.File) map[string]bool {
	out := map[string]bool{}
	for i := range f.Entries {
		e := &f.Entries[i]
		// HasBlock, not ToolUseIDs: the same answer without a list of
		// ids made for every assistant entry (a serial 20 ms of
		// compress on agentic 300 MB)
		if e.Type() != "assistant" || e.MsgID() == "" || t.Dropped(f, i) || !e.HasBlock(chain.BlockToolUse) {
			continue
		}
		if !t.Changed(f, i) || t.onlyParent(f, i) { // (a relink: its content is the line's)
			out[e.MsgID()] = true
			continue
		}
		if raw, err := t.Raw(f, i); err != nil || bytes.Contains(raw, []byte(`"type":"tool_use"`)) {
			out[e.MsgID()] = true
		}
	}
	return out
}

// SetParent gives entry i of f the parent uuid ("" for null). The line is
// made again as it is written (SetLate: on a damaged session thousands are
// relinked, and their bytes were held), and re-linking after removals
// knows the new parent (Edit.Parent).
func (t *Txn) SetParent(f *chain.File, i int, uuid string) error {
	val := []byte("null")
	if uuid != "" {
		val = EncodeString(uuid)
	}
	// the line's content is its own but for the parent: no other edit
	// changed it, or only an earlier parent
	was := t.edits[f].At(i)
	only := was == nil || was.Raw == nil && (!was.Late || was.OnlyParent)
	if err := t.SetLate(f, i, func(_ int, raw []byte) ([]byte, error) {
		return setTopLevel(raw, "parentUuid", val)
	}); err != nil {
		return err
	}
	ed := t.Edits(f).Get(i)
	ed.Parent, ed.OnlyParent = &uuid, only && ed.Late
	return nil
}

// setTopLevel sets a top-level field of a JSON object line to the raw value
// val. A line that holds the key more than once (the client's JSON.parse
// keeps the last) loses every copy and gets one at the end.
func setTopLevel(raw []byte, key string, val []byte) ([]byte, error) {
	// the line holds the key once (a repair's relinks: thousands of lines
	// made again at each of its checks): its value is replaced where it
	// is, found by the loader's scanner, which skips the other values
	// without decoding them (gjson and sjson parsed the line twice)
	s := unsafeString(raw)
	n, vs, ve := 0, -1, -1
	if end := chain.FieldsTo(s, 0, func(k string, at int) int {
		e := chain.SkipValue(s, at)
		if k == key {
			n, vs, ve = n+1, at, e
		}
		return e
	}); end > 0 && n == 1 && ve > vs && strings.TrimSpace(s[end:]) == "" {
		out := make([]byte, 0, len(raw)-(ve-vs)+len(val))
		out = append(append(append(out, raw[:vs]...), val...), raw[ve:]...)
		return out, nil
	}
	return setTopLevelSlow(raw, key, val)
}

// setTopLevelSlow is setTopLevel for any line gjson reads.
func setTopLevelSlow(raw []byte, key string, val []byte) ([]byte, error) {
	n := 0
	gjson.ParseBytes(raw).ForEach(func(k, _ gjson.Result) bool {
		if k.Str == key {
			n++
		}
		return true
	})
	if n <= 1 {
		return sjson.SetRawBytes(raw, key, val)
	}
	out := append([]byte(nil), raw...)
	for ; n > 0; n-- {
		var err error
		if out, err = sjson.DeleteBytes(out, key); err != nil {
			return nil, err
		}
	}
	return sjson.SetRawBytes(out, key, val)
}
