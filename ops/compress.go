package ops

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// DefaultMaxResult is the size above which compress-old-turns cuts a tool
// result or a tool input string in old turns.
const DefaultMaxResult = 2000

// DefaultKeepTurns is how many recent turns compress-old-turns leaves as
// they are when no --keep-turns is given.
const DefaultKeepTurns = 3

// Bookkeeping lists the entry types the client does not need to resume a
// conversation (found by resuming sessions with them removed: the request
// does not change). compress-old-turns removes them from old turns.
// attachment entries are NOT here: 2.1.x sends them as system messages;
// nor last-prompt (it names the branch to resume) or file-history entries
// (/rewind with code restore needs them).
var Bookkeeping = map[string]bool{
	"progress": true, "queue-operation": true, "api-request": true, "api-request-shape": true,
	"api-request-blob": true, "atis-latch": true, "cost-state": true, "mode": true, "tools-used": true,
	"system/turn_duration": true,
}

// DefaultKeepExchanges is how many of the last tool exchanges (an
// assistant message calling tools, with its results) compress-old-turns
// leaves as they are when no --keep-exchanges is given.
const DefaultKeepExchanges = 10

// CompressOldTurns shrinks what is old: long tool results and tool inputs
// are cut to head and tail around a marker, the toolUseResult copies of
// file contents go, images become a short text placeholder. "Old" is
// measured in human turns and in tool exchanges: everything from the start
// of the last KeepTurns turns, or of the last KeepExchanges tool exchanges
// when those turns hold more (an agentic session: a few prompts, hundreds
// of tool calls), stays byte-identical, final answer included. Bookkeeping
// entries the client does not send go from every turn.
type CompressOldTurns struct {
	KeepTurns     int
	KeepExchanges int // 0 = DefaultKeepExchanges
	MaxResult     int // 0 = DefaultMaxResult
}

// Name of the operation.
func (CompressOldTurns) Name() string { return "compress-old-turns" }

// toolUseResultCopies are the toolUseResult fields that hold copies of file
// contents or output already in the tool_result ("file.content": the
// content field of the file object).
var toolUseResultCopies = map[string]bool{"file.content": true, "originalFile": true, "structuredPatch": true, "stdout": true,
	"stderr": true, "content": true, "oldString": true, "newString": true, "originalFileContents": true}

// withoutFields rebuilds the JSON object obj without the fields named in
// drop (a dotted name reaches one object deeper); it reports whether any
// went. Values are copied as raw text, never decoded.
func withoutFields(obj string, drop map[string]bool) (string, bool) {
	return withoutFieldsAt(obj, drop, "")
}

func withoutFieldsAt(obj string, drop map[string]bool, prefix string) (string, bool) {
	// one walk: nothing is built until a field goes (then the fields
	// before it are written, walked again); built and thrown away, the
	// copy was most of what a cut of a line already cut cost (the rescue
	// cuts each old tool output three times), and a walk to look for a
	// field to drop before the walk that builds skipped every kept value
	// twice
	var out []byte
	building := false
	n, m := 0, 0 // fields written; fields walked before the first change
	put := func(k, v string) {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(out, '"')
		out = appendEscaped(out, k)
		out = append(out, '"', ':')
		out = append(out, v...)
	}
	chain.Fields(obj, 0, func(k string, vs, ve int) bool {
		name := k
		if prefix != "" {
			name = prefix + k
		}
		v := obj[vs:ve]
		dropped := drop[name]
		changed := dropped
		if !dropped && v[0] == '{' && nests(drop, name) {
			if inner, ok := withoutFieldsAt(v, drop, name+"."); ok {
				v, changed = inner, true
			}
		}
		if !building {
			if !changed {
				m++
				return true
			}
			building = true
			size := len(obj) // (what goes is not made room for: the copy of a tool's output is most of the object)
			if dropped {
				size -= ve - vs
			}
			out = make([]byte, 0, size)
			out = append(out, '{')
			j := 0
			chain.Fields(obj, 0, func(k string, vs, ve int) bool {
				if j == m {
					return false
				}
				j++
				put(k, obj[vs:ve])
				return true
			})
		}
		if !dropped {
			put(k, v)
		}
		return true
	})
	if !building {
		return obj, false
	}
	out = append(out, '}')
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// nests reports whether drop names a field inside the object name
// ("file.content" inside "file"): only then is the object walked.
func nests(drop map[string]bool, name string) bool {
	for k := range drop {
		if len(k) > len(name) && k[len(name)] == '.' && strings.HasPrefix(k, name) {
			return true
		}
	}
	return false
}

// CompressCut returns the position in the active branch's history
// (chain.Turns.History) where the recent context starts: what is there and
// after it is kept as it is. It is the later of the start of the last
// keepTurns turns and the start of the last keepExchanges tool exchanges.
func CompressCut(f *chain.File, ts chain.Turns, keepTurns, keepExchanges int) int {
	h := ts.History
	cut := len(h)
	if keepTurns > 0 {
		if keepTurns >= len(ts.List) { // no older turn (none at all, say): nothing is old
			cut = 0
		} else {
			cut = messageStart(f, h, ts.List[len(ts.List)-keepTurns].First)
		}
	}
	if keepExchanges <= 0 {
		return cut
	}
	// the start of the keepExchanges-th last assistant message calling
	// tools (a message: consecutive entries of one message.id)
	n := 0
	for k := len(h) - 1; k > cut; k-- {
		e := &f.Entries[h[k]]
		if e.Type() != "assistant" {
			continue
		}
		tools := e.HasBlock(chain.BlockToolUse)
		for k > 0 {
			p := &f.Entries[h[k-1]]
			if p.Type() != "assistant" || e.MsgID() == "" || p.MsgID() != e.MsgID() {
				break
			}
			k--
			tools = tools || p.HasBlock(chain.BlockToolUse)
		}
		if tools {
			if n++; n == keepExchanges {
				return max(k, cut)
			}
		}
	}
	return cut
}

// messageStart returns the position in h of the first entry the client
// sends in one message with the prompt at position first: the user
// entries right before it (a turn cut short ends with its tool result and
// "[Request interrupted by user for tool use]", which the client sends in
// the next prompt's message), with what is not a message between them.
func messageStart(f *chain.File, h []int, first int) int {
	cut := first
	for k := first - 1; k >= 0; k-- {
		e := &f.Entries[h[k]]
		if e.Type() == "system" && e.Subtype() == "compact_boundary" {
			break
		}
		if !e.IsMessage() {
			continue
		}
		if e.Type() != "user" {
			break
		}
		cut = k
	}
	return cut
}

func (o CompressOldTurns) keepExchanges() int {
	if o.KeepExchanges == 0 {
		return DefaultKeepExchanges
	}
	return o.KeepExchanges
}

// Apply compresses the old turns.
func (o CompressOldTurns) Apply(t *Txn) error {
	if o.KeepTurns < 0 {
		return &OptionError{Option: "KeepTurns", Value: o.KeepTurns, Want: "0 or more"}
	}
	if o.KeepExchanges < 0 {
		return &OptionError{Option: "KeepExchanges", Value: o.KeepExchanges, Want: "0 or more"}
	}
	max := o.MaxResult
	if max <= 0 {
		max = DefaultMaxResult
	}
	f := t.S.Main
	ts := f.ActiveTurns()
	dropBookkeeping(t, f, ts.Leaf)
	cut := CompressCut(f, ts, o.KeepTurns, o.keepExchanges())
	if cut == 0 {
		t.Note("nothing to shorten: the recent context kept as it is (%s, or the last %s) is the whole conversation of %s", lastTurns(o.KeepTurns), chain.Plural(o.keepExchanges(), "tool exchange", "tool exchanges"), chain.Plural(len(ts.List), "turn", "turns"))
		t.reportResumeTokens()
		return nil
	}
	c := entryCut{Max: max, Text: true, Images: true}
	if err := compressLate(t, f, ts.History[:cut], c); err != nil {
		return err
	}
	t.reportResumeTokens()
	return nil
}

// ApplyEstimates applies o to t and returns the estimates of what a
// resume sends before and after it (ResumeEstimates), made once: Apply
// makes them for its report, and info, which shows them entry by entry,
// made the estimate after again (a serial tenth of info on a session of
// many tool outputs).
func (o CompressOldTurns) ApplyEstimates(t *Txn) (before, after chain.ResumeEstimate, err error) {
	t.after = nil
	if err = o.Apply(t); err == nil && t.after != nil && t.before != nil {
		return *t.before, *t.after, nil
	}
	before, after = ResumeEstimates(t)
	return before, after, err
}

// compressLate cuts the entries of lines that need it, on every core: each
// line is cut once to count what changes and estimate its tokens, and the
// result is made again as it is written (SetLate) from the plan of that
// cut (where each part lies and how it is cut, no byte of the result), so
// no cut line is held in memory and no line is walked twice.
func compressLate(t *Txn, f *chain.File, lines []int, c entryCut) error {
	var todo []int
	for _, i := range lines {
		if f.Entries[i].IsMessage() && !t.Dropped(f, i) && needsCut(&f.Entries[i], c) {
			todo = append(todo, i)
		}
	}
	// in file order: the estimate's workers find a line's place in todo
	// by search, and the lines of a branch are not always in file order
	// (a damaged or repaired chain: its parents after their children)
	sort.Ints(todo)
	type result struct {
		cuts   int
		parts  []cutAt
		n      int // the length of the line cut
		tokens chain.Tokens
		done   bool // the line was cut (or found with nothing to cut)
	}
	res := make([]result, len(todo))
	// cut is the work on line todo[k] read as raw (cutBuf: scratch)
	cut := func(k int, raw, cutBuf []byte) []byte {
		r := result{done: true}
		if b, cuts, parts, changed := planCuts(cutBuf[:0], raw, c, true); changed {
			r.cuts, r.parts, r.n, r.tokens = cuts, parts, len(raw), chain.EntryTokens(b)
			cutBuf = b
		}
		res[k] = r
		return cutBuf
	}
	// The estimate of what a resume sends from the session as read
	// (ResumeEstimates' before, which Apply's report needs once the cut
	// is made) reads every line sent, the lines to cut among them: the
	// cut is made on its workers as it reads them (the two passes read
	// most of the file's blocks each, the same lines for the cut's).
	// Only when the transaction changes something (a report is made):
	// made for nothing, it was 40% of a compression that had nothing to
	// cut.
	if t.before == nil && (len(todo) > 0 || t.ChangesAnything()) {
		isTodo := make([]uint64, (len(f.Entries)+63)/64)
		for _, i := range todo {
			isTodo[i/64] |= 1 << (i % 64)
		}
		b := f.ResumeTokensVisit(f.Graph().ActivePath(), func(i int, raw []byte) {
			// a line an earlier operation edited is cut as edited, below
			if isTodo[i/64]&(1<<(i%64)) == 0 || t.edited(f, i) {
				return
			}
			buf := cutBufs.Get().(*[]byte)
			*buf = cut(sort.SearchInts(todo, i), raw, *buf)
			cutBufs.Put(buf)
		})
		t.before = &b
	}
	// the lines the estimate did not cut (not on its path, edited, or no
	// estimate made), on every core; the workers read the edits: they
	// change once the pass is done
	var rest []int
	for k := range todo {
		if !res[k].done {
			rest = append(rest, k)
		}
	}
	work := func(lo, hi int) (struct{}, error) {
		var cutBuf []byte
		lines := make([]int, hi-lo)
		for j, k := range rest[lo:hi] {
			lines[j] = todo[k]
		}
		in := t.batch(f, lines)
		defer in.close()
		for j, k := range rest[lo:hi] {
			raw, _, err := in.raw(lines[j])
			if err != nil {
				return struct{}{}, err
			}
			cutBuf = cut(k, raw, cutBuf)
		}
		return struct{}{}, nil
	}
	if err := chain.InOrder(f, len(rest), func(k int) int { return todo[rest[k]] }, work, func(struct{}) error { return nil }); err != nil {
		return err
	}
	for k, r := range res {
		if r.parts == nil {
			continue
		}
		if r.cuts > 0 {
			t.Count(CountShortened, r.cuts)
		}
		if err := t.SetLate(f, todo[k], cutLate(r.parts, r.n, c)); err != nil {
			return err
		}
		t.knownTokens(f, todo[k], r.tokens)
	}
	return nil
}

// cutBufs are the scratch buffers of the cuts made on the estimate's
// workers (a cut line is counted, then dropped).
var cutBufs = sync.Pool{New: func() any { return new([]byte) }}

// cutLate is the late edit (SetLate) that makes the cut c of a line of n
// bytes from parts, the plan planCuts made of it: only the plan is held
// until the line is written.
func cutLate(parts []cutAt, n int, c entryCut) LateFunc {
	return func(_ int, raw []byte) ([]byte, error) {
		// the line the plan was made of (Txn gives the late edit the
		// bytes the pass read); anything else is cut anew
		if len(raw) == n {
			if out, ok := replayCuts(lineBuf(cutSize(n, parts)), raw, parts, c); ok {
				return out, nil
			}
		}
		out, _, _ := compressLineInto(lineBuf(len(raw)/2), raw, c)
		return out, nil
	}
}

// cutSize is about the length of the line of n bytes cut by parts (its
// buffer, made once).
func cutSize(n int, parts []cutAt) int {
	for _, p := range parts {
		if p.kind == cutStr {
			n -= int(p.str.tail-p.str.head) - 96 // the marker, and escapes the head and tail may gain
		}
	}
	return max(n, 64)
}

// entryCut says what compressLine shortens.
type entryCut struct {
	Max    int  // cut strings longer than this
	Text   bool // tool results and tool inputs (and the toolUseResult copies)
	Images bool // images and documents become a text placeholder
}

// dropBookkeeping removes, from every turn, the entries the client does
// not send and does not need to resume (Bookkeeping), but the leaf the
// client resumes: removing it would make another entry the leaf.
func dropBookkeeping(t *Txn, f *chain.File, leaf int) {
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry || i == leaf || t.Dropped(f, i) {
			continue
		}
		kind := e.Type()
		if e.Type() == "system" {
			kind = "system/" + e.Subtype()
		}
		if Bookkeeping[kind] {
			t.Drop(f, i)
			t.Count(CountBookkeeping, 1)
		}
	}
}

// needsCut reports, from the index alone, whether entry e has anything c
// may cut: a toolUseResult, a block longer than c.Max that is not one the
// cut leaves as it is (a text or thinking block: a prompt or an answer),
// an image or a document. Only those lines are read and walked: on a
// session of 8 KB prompts every prompt was read for nothing, once by
// compress-old-turns and by each cut of --target-tokens
// (TestCutReadsOnlyLinesItMayCut). The kind is the index's (the last
// "type" of a block, where the walk reads the first): the two differ only
// on a block that names two types, which no client writes.
func needsCut(e *chain.Entry, c entryCut) bool {
	if c.Text && e.ToolUseResult > 0 {
		return true
	}
	for _, b := range e.Blocks() {
		if c.Images && (b.Kind == chain.BlockImage || b.Images > 0 || b.Kind == chain.BlockDocument) {
			return true
		}
		if c.Text && int(b.Size) > c.Max && !neverCut(b.Kind) {
			return true
		}
	}
	return false
}

// neverCut: the content blocks whose text the cut of compress never
// shortens (it cuts tool results, tool inputs and media).
func neverCut(k chain.BlockKind) bool {
	return k == chain.BlockText || k == chain.BlockThinking || k == chain.BlockRedactedThinking
}

// compressLine returns the line raw with its large parts cut (c): long
// tool results and tool inputs to head and tail, images and documents to a
// placeholder, the toolUseResult copies of file contents removed. cuts is
// the number of content parts cut; changed says whether out differs from
// raw (out is raw itself when it does not). The line is walked as raw
// JSON: only the strings that are cut are decoded.
func compressLine(raw []byte, c entryCut) (out []byte, cuts int, changed bool) {
	return compressLineInto(nil, raw, c)
}

// compressLineInto is compressLine appending the cut line to dst.
func compressLineInto(dst, raw []byte, c entryCut) (out []byte, cuts int, changed bool) {
	out, cuts, _, changed = planCuts(dst, raw, c, false)
	return out, cuts, changed
}

// cutKind is how a part of a line is cut: what replayCuts makes again.
type cutKind uint8

const (
	cutStr    cutKind = iota // a long JSON string to its head and tail (cutRawString)
	cutMedia                 // an image or a document to a text placeholder
	cutCopies                // the toolUseResult object without its copies of file contents
)

// cutAt is one part of a line that compress cuts, by where it lies in the
// line and how: the plan of a line, kept between the pass that counts and
// the write, that holds no byte of what it makes (a cut string is ~2 KB;
// the plans of every cut line are ~24 B a part).
type cutAt struct {
	start, end int
	kind       cutKind
	str        rawCut // cutStr: where the string is cut (made again in O(kept bytes))
}

// planCuts walks the line raw and cuts it (c) into dst, as compressLine;
// with plan, it also returns the parts it cut, in order, for replayCuts.
func planCuts(dst, raw []byte, c entryCut, plan bool) (out []byte, cuts int, parts []cutAt, changed bool) {
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	max := c.Max
	type splice struct {
		start, end int
		with       []byte
		kind       cutKind
		str        rawCut // cutStr: with is made from it as the line is
	}
	var edits []splice
	replace := func(vs, ve int, with []byte, kind cutKind) {
		edits = append(edits, splice{start: vs, end: ve, with: with, kind: kind})
	}
	// cutString cuts the JSON string s[vs:ve] when it is longer than max
	cutString := func(vs, ve int) {
		if ve-vs <= max || s[vs] != '"' {
			return
		}
		if p, ok := planCutRaw(s[vs:ve], max); ok {
			edits = append(edits, splice{start: vs, end: ve, kind: cutStr, str: p})
		}
	}
	isMedia := func(typ string) bool { return typ == "image" || typ == "document" }
	// block cuts the content block at s[bs:be]: typ is its first "type",
	// cs, ce its first "content" and is, ie its first "input" (-1: none)
	block := func(bs, be int, typ string, cs, ce, is, ie int) {
		switch typ {
		case "tool_result":
			if cs < 0 {
				return
			}
			if !c.Text {
				if c.Images {
					eachValueAt(s, cs, ce, func(vs, ve int) {
						if isMedia(typeAt(s, vs)) {
							replace(vs, ve, placeholder(gjson.Parse(s[vs:ve])), cutMedia)
						}
					})
				}
				return
			}
			switch s[cs] {
			case '"':
				cutString(cs, ce)
			case '[':
				chain.Elems(s, cs, func(vs, ve int) bool {
					switch typ := typeAt(s, vs); {
					case typ == "text":
						if ts, te := fieldAt(s, vs, "text"); ts >= 0 {
							cutString(ts, te)
						}
					case isMedia(typ) && c.Images:
						replace(vs, ve, placeholder(gjson.Parse(s[vs:ve])), cutMedia)
					}
					return true
				})
			}
		case "tool_use":
			if c.Text && is >= 0 {
				eachValueAt(s, is, ie, func(vs, ve int) { cutString(vs, ve) })
			}
		case "image", "document":
			if c.Images {
				replace(bs, be, placeholder(gjson.Parse(s[bs:be])), cutMedia)
			}
		}
	}
	// the line is walked once: the message's content is walked where it
	// lies, each block once (the fields a cut needs noted as they pass),
	// where a walk of the line, one of the message to its content, one
	// of the content's blocks and one of each block to its content each
	// skipped over the same tool output (most of a cut's time)
	content := func(at int) int {
		return chain.ElemsTo(s, at, func(bs int) int {
			if s[bs] != '{' {
				return chain.SkipValue(s, bs)
			}
			typ, seenType := "", false
			cs, ce, is, ie := -1, -1, -1, -1
			be := chain.FieldsTo(s, bs, func(k string, vs int) int {
				ve := chain.SkipValue(s, vs)
				switch {
				case k == "type" && !seenType:
					typ, seenType = chain.StrValue(s[vs:ve]), true
				case k == "content" && cs < 0:
					cs, ce = vs, ve
				case k == "input" && is < 0:
					is, ie = vs, ve
				}
				return ve
			})
			if be >= 0 {
				block(bs, be, typ, cs, ce, is, ie)
			}
			return be
		})
	}
	turAt, turEnd := -1, -1
	seenMsg := false
	chain.FieldsTo(s, 0, func(k string, vs int) int {
		switch {
		case k == "message" && !seenMsg:
			seenMsg = true
			if s[vs] != '{' {
				break
			}
			seenContent := false
			return chain.FieldsTo(s, vs, func(k string, cs int) int {
				if k == "content" && !seenContent {
					seenContent = true
					if s[cs] == '[' {
						return content(cs)
					}
				}
				return chain.SkipValue(s, cs)
			})
		case k == "toolUseResult" && turAt < 0:
			turAt, turEnd = vs, chain.SkipValue(s, vs)
			return turEnd
		}
		return chain.SkipValue(s, vs)
	})
	cuts = len(edits)
	if c.Text && turAt >= 0 {
		te := turEnd
		switch s[turAt] {
		case '"':
			cutString(turAt, te)
		case '{':
			if obj, dropped := withoutFields(s[turAt:te], toolUseResultCopies); dropped {
				replace(turAt, te, []byte(obj), cutCopies)
			}
		}
	}
	if len(edits) == 0 {
		return raw, 0, nil, false
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	out = dst
	if out == nil {
		out = make([]byte, 0, len(raw))
	}
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			continue
		}
		out = append(out, raw[pos:e.start]...)
		if e.kind == cutStr {
			out = e.str.append(out, s[e.start:e.end])
		} else {
			out = append(out, e.with...)
		}
		pos = e.end
		if plan {
			parts = append(parts, cutAt{e.start, e.end, e.kind, e.str})
		}
	}
	out = append(out, raw[pos:]...)
	return out, cuts, parts, true
}

// replayCuts makes again, into dst, the cut planCuts made of the same line
// raw with the plan it returned, without walking the line: each part is
// cut again where it lies. ok is false when the plan does not fit raw (a
// part that no longer cuts): the caller then cuts the line anew.
func replayCuts(dst, raw []byte, parts []cutAt, c entryCut) (out []byte, ok bool) {
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	out = dst
	pos := 0
	for _, p := range parts {
		if p.start < pos || p.end > len(s) {
			return nil, false
		}
		out = append(out, raw[pos:p.start]...)
		switch p.kind {
		case cutStr:
			if p.str.head < 1 || int(p.str.tail) > p.end-p.start-1 || p.str.head > p.str.tail {
				return nil, false
			}
			out = p.str.append(out, s[p.start:p.end])
		case cutMedia:
			out = append(out, placeholder(gjson.Parse(s[p.start:p.end]))...)
		case cutCopies:
			obj, dropped := withoutFields(s[p.start:p.end], toolUseResultCopies)
			if !dropped {
				return nil, false
			}
			out = append(out, obj...)
		}
		pos = p.end
	}
	return append(out, raw[pos:]...), true
}

// fieldAt returns the bounds of the value of the first field named key of
// the object at s[at], or -1, -1.
func fieldAt(s string, at int, key string) (int, int) {
	vs, ve := -1, -1
	if at >= len(s) || s[at] != '{' {
		return vs, ve
	}
	chain.Fields(s, at, func(k string, a, b int) bool {
		if k == key {
			vs, ve = a, b
			return false
		}
		return true
	})
	return vs, ve
}

// typeAt is the "type" of the object at s[at] ("" for anything else).
func typeAt(s string, at int) string {
	vs, ve := fieldAt(s, at, "type")
	if vs < 0 {
		return ""
	}
	return chain.StrValue(s[vs:ve])
}

// eachValueAt calls fn with the bounds of every element of the array, or
// every value of the object, at s[vs:ve]; any other value is passed itself
// (as gjson's ForEach does).
func eachValueAt(s string, vs, ve int, fn func(vs, ve int)) {
	switch s[vs] {
	case '[':
		chain.Elems(s, vs, func(a, b int) bool { fn(a, b); return true })
	case '{':
		chain.Fields(s, vs, func(_ string, a, b int) bool { fn(a, b); return true })
	default:
		fn(vs, ve)
	}
}

func placeholder(b gjson.Result) []byte {
	what := b.Get("type").Str
	media := b.Get("source.media_type").Str
	size := len(b.Get("source.data").Str)
	text := "[" + what + " removed by ccsurgeon compress-old-turns"
	if media != "" {
		text += ": " + media + ", " + strconv.Itoa(size) + " bytes of base64"
	}
	text += "]"
	return []byte(`{"type":"text","text":` + string(EncodeString(text)) + `}`)
}
