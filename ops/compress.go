package ops

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
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
	var b strings.Builder
	b.WriteByte('{')
	any, n := false, 0
	chain.Fields(obj, 0, func(k string, vs, ve int) bool {
		name := prefix + k
		v := obj[vs:ve]
		if drop[name] {
			any = true
			return true
		}
		if v[0] == '{' {
			if inner, ok := withoutFieldsAt(v, drop, name+"."); ok {
				v, any = inner, true
			}
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(EncodeString(k))
		b.WriteByte(':')
		b.WriteString(v)
		return true
	})
	b.WriteByte('}')
	if !any {
		return obj, false
	}
	return b.String(), true
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
			cut = ts.List[len(ts.List)-keepTurns].First
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

func (o CompressOldTurns) keepExchanges() int {
	if o.KeepExchanges == 0 {
		return DefaultKeepExchanges
	}
	return o.KeepExchanges
}

// Apply compresses the old turns.
func (o CompressOldTurns) Apply(t *Txn) error {
	if o.KeepTurns < 0 {
		return &chain.Error{Msg: "--keep-turns must be 0 or more", Code: 2}
	}
	if o.KeepExchanges < 0 {
		return &chain.Error{Msg: "--keep-exchanges must be 1 or more", Code: 2}
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
		t.Report.Tokens = resumeTokens(t)
		return nil
	}
	for _, i := range ts.History[:cut] {
		if !f.Entries[i].IsMessage() || t.Dropped(f, i) {
			continue
		}
		if err := compressEntry(t, f, i, entryCut{Max: max, Text: true, Images: true}); err != nil {
			return err
		}
	}
	t.Report.Tokens = resumeTokens(t)
	return nil
}

// entryCut says what compressEntry shortens.
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

// compressEntry cuts the large parts of one message entry.
func compressEntry(t *Txn, f *chain.File, i int, c entryCut) error {
	cut := c
	e := &f.Entries[i]
	max := c.Max
	big := c.Text && e.ToolUseResult > 0
	for _, b := range e.Blocks {
		if (c.Text && int(b.Size) > max) || (c.Images && (b.Kind == chain.BlockImage || b.Images > 0 || b.Kind == chain.BlockDocument)) {
			big = true
		}
	}
	if !big {
		return nil
	}
	raw, err := t.Raw(f, i)
	if err != nil {
		return err
	}
	out := raw
	changed := false
	set := func(path string, v []byte) {
		if r, err := sjson.SetRawBytes(out, path, v); err == nil {
			out, changed = r, true
		}
	}
	// the content edits are collected as byte ranges of the line and
	// spliced in one pass (one sjson call per edit re-parses the line)
	type splice struct {
		start, end int
		with       []byte
	}
	var edits []splice
	replace := func(r gjson.Result, with []byte) {
		if r.Index > 0 {
			edits = append(edits, splice{r.Index, r.Index + len(r.Raw), with})
		}
	}
	content := gjson.GetBytes(out, "message.content")
	if content.IsArray() {
		content.ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "tool_result":
				c := b.Get("content")
				if !cut.Text {
					c.ForEach(func(_, sub gjson.Result) bool {
						if typ := sub.Get("type").Str; cut.Images && (typ == "image" || typ == "document") {
							replace(sub, placeholder(sub))
						}
						return true
					})
					return true
				}
				if c.Type == gjson.String {
					if s, ok := CutMiddle(c.Str, max); ok {
						replace(c, EncodeString(s))
					}
				} else if c.IsArray() {
					c.ForEach(func(_, sub gjson.Result) bool {
						switch sub.Get("type").Str {
						case "text":
							if tx := sub.Get("text"); len(tx.Raw) > max {
								if s, ok := CutMiddle(tx.Str, max); ok {
									replace(tx, EncodeString(s))
								}
							}
						case "image", "document":
							if cut.Images {
								replace(sub, placeholder(sub))
							}
						}
						return true
					})
				}
			case "tool_use":
				if !cut.Text {
					return true
				}
				b.Get("input").ForEach(func(_, v gjson.Result) bool {
					if v.Type == gjson.String && len(v.Raw) > max {
						if s, ok := CutMiddle(v.Str, max); ok {
							replace(v, EncodeString(s))
						}
					}
					return true
				})
			case "image", "document":
				if cut.Images {
					replace(b, placeholder(b))
				}
			}
			return true
		})
	}
	if len(edits) > 0 {
		sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
		spliced := make([]byte, 0, len(out))
		pos := 0
		for _, e := range edits {
			if e.start < pos {
				continue
			}
			spliced = append(spliced, out[pos:e.start]...)
			spliced = append(spliced, e.with...)
			pos = e.end
		}
		out = append(spliced, out[pos:]...)
		changed = true
		t.Count(CountShortened, len(edits))
	}
	if tur := gjson.GetBytes(out, "toolUseResult"); c.Text && tur.Exists() {
		if tur.Type == gjson.String {
			if s, ok := CutMiddle(tur.Str, max); ok {
				set("toolUseResult", EncodeString(s))
			}
		} else if tur.IsObject() && tur.Index > 0 {
			if obj, dropped := withoutFields(tur.Raw, toolUseResultCopies); dropped {
				out = append(append(append([]byte(nil), out[:tur.Index]...), obj...), out[tur.Index+len(tur.Raw):]...)
				changed = true
			}
		}
	}
	if changed {
		t.Set(f, i, out)
	}
	return nil
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
