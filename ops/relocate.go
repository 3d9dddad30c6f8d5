package ops

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Relocate moves a session from the folder From to the folder To (both
// absolute, clean): every path under From in a field the client keeps about
// the session (cwd, relocatedCwd, realParentDir, … — any string value
// outside message content that is From or starts with From/) is rewritten
// to the same place under To. Message content is left as it is, unless
// RewritePaths: then From is also rewritten where it appears in tool inputs
// and tool results (tool_use input, tool_result content, toolUseResult), so
// that the model sees the new paths. Thinking and text blocks are never
// touched. Changes lists what RewritePaths changed.
type Relocate struct {
	From, To     string
	RewritePaths bool
	Changes      []PathChange
}

// PathChange is one field whose text --rewrite-paths changed.
type PathChange struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Where string `json:"where"` // e.g. "tool_use input (Bash)", "tool_result content", "toolUseResult"
	Count int    `json:"count"` // occurrences of the old path replaced
}

// Name is the operation's name.
func (*Relocate) Name() string { return "move" }

// Apply rewrites every entry of every file of the session. The paths
// outside content are rewritten as the result is written (Txn.MapLines:
// every line of a session holds its cwd, and holding each line's new
// bytes until then held a copy of the file, twice its size on a session
// of a million small entries); here they are only counted, on every core
// (chain.InOrder: the count walks every line, and on one core it was a
// serial second of a move of a million entries). The changes
// --rewrite-paths makes in content (a few lines, each listed) are set
// once the pass is done (its workers read the edits): the two touch
// disjoint fields, so their order does not matter.
func (o *Relocate) Apply(t *Txn) error {
	from, to := jsonText(o.From), jsonText(o.To)
	type set struct {
		i       int
		raw     []byte
		changes []PathChange
	}
	type batch struct {
		changed  []int
		n        int
		notKeeps bool // a path is in a field the index reads
		sets     []set
		spans    pathSpans // of lines lo..hi-1
	}
	for _, f := range t.S.Files() {
		var changed []int
		var sets []set
		keepsIndex := true // no path is in a field the index reads
		spans := pathSpans{first: make([]uint32, 1, len(f.Entries)+1)}
		work := func(lo, hi int) (batch, error) {
			var b batch
			b.spans.first = make([]uint32, 0, hi-lo)
			lines := t.batchRange(f, lo, hi)
			defer lines.close()
			for i := lo; i < hi; i++ {
				b.spans.first = append(b.spans.first, uint32(len(b.spans.at)))
				e := &f.Entries[i]
				if e.Kind != chain.KindEntry {
					continue
				}
				raw, inBuf, err := lines.raw(i)
				if err != nil {
					return b, err
				}
				if n := structuralPathSpans(raw, from, func(k string, at, _ int) {
					b.notKeeps = b.notKeeps || chain.IndexedField(k)
					b.spans.at = append(b.spans.at, uint32(at))
				}); n > 0 {
					b.n += n
					b.changed = append(b.changed, i)
				}
				if o.RewritePaths {
					if !inBuf {
						raw = append([]byte(nil), raw...)
					}
					out, changes, err := contentPaths(f, e, raw, from, to)
					if err != nil {
						return b, err
					}
					if len(changes) > 0 {
						b.sets = append(b.sets, set{i, bytes.Clone(out), changes})
					}
				}
			}
			return b, nil
		}
		err := chain.InOrder(f, len(f.Entries), func(k int) int { return k }, work, func(b batch) error {
			if b.n > 0 {
				t.Count(CountPathsRewritten, b.n)
			}
			changed = append(changed, b.changed...)
			keepsIndex = keepsIndex && !b.notKeeps
			sets = append(sets, b.sets...)
			spans.add(b.spans)
			return nil
		})
		if err != nil {
			return err
		}
		for _, s := range sets {
			t.Set(f, s.i, s.raw)
			o.Changes = append(o.Changes, s.changes...)
		}
		t.MapLines(f, func(i int, raw []byte) []byte {
			if i >= 0 && !t.edited(f, i) {
				// the line is the file's, as the count read it: its
				// paths are where the count found them (the walk of
				// every field again was a quarter of a move's CPU on
				// a chain of small entries)
				if out, ok := spans.rewrite(i, raw, from, to); ok {
					return out
				}
			}
			out, _ := structuralPaths(raw, from, to) // bytes an edit made
			return out
		}, changed, keepsIndex)
	}
	return nil
}

// pathSpans are where the paths structuralPaths replaces lie in each line
// of a file: line i's at the offsets at[first[i]:first[i+1]] of the line.
type pathSpans struct {
	first []uint32
	at    []uint32
}

// add appends the spans of the next lines (b.first: each line's start in
// b.at).
func (p *pathSpans) add(b pathSpans) {
	base := uint32(len(p.at))
	for _, k := range b.first[1:] {
		p.first = append(p.first, base+k)
	}
	p.at = append(p.at, b.at...)
	p.first = append(p.first, uint32(len(p.at)))
}

// rewrite is structuralPaths(raw, from, to) of line i, whose bytes are
// those the spans were found in; false when raw does not hold from at
// each of them (not those bytes).
func (p *pathSpans) rewrite(i int, raw, from, to []byte) ([]byte, bool) {
	if i+1 >= len(p.first) {
		return nil, false
	}
	at := p.at[p.first[i]:p.first[i+1]]
	if len(at) == 0 {
		return raw, true
	}
	for _, a := range at {
		if int(a)+len(from) > len(raw) || !bytes.Equal(raw[a:int(a)+len(from)], from) {
			return nil, false
		}
	}
	if len(to) <= len(from) {
		// in raw, which is the transform's to change: the line does not
		// grow (a line made anew was a million allocations, and their
		// collections, of a move of a million entries)
		w, r := int(at[0]), int(at[0])
		for _, a := range at {
			w += copy(raw[w:], raw[r:a])
			w += copy(raw[w:], to)
			r = int(a) + len(from)
		}
		w += copy(raw[w:], raw[r:])
		return raw[:w], true
	}
	out := make([]byte, 0, len(raw)+len(at)*(len(to)-len(from)))
	last := 0
	for _, a := range at {
		out = append(out, raw[last:a]...)
		out = append(out, to...)
		last = int(a) + len(from)
	}
	return append(out, raw[last:]...), true
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) []byte { e := EncodeString(s); return e[1 : len(e)-1] }

// structuralPaths rewrites, outside content fields, every string value that
// is from or starts with from/ (the general rule for paths, as uuidTokens is
// for references). It returns a new slice when anything changed.
func structuralPaths(raw, from, to []byte) ([]byte, int) {
	var out []byte
	last := 0
	n := structuralPathSpans(raw, from, func(_ string, at, end int) {
		if out == nil {
			// made once, with room for a few paths grown: appended to
			// from nothing, the line was copied into a bigger slice two
			// or three times (a tenth of a move's CPU on a chain)
			out = make([]byte, 0, len(raw)+4*max(0, len(to)-len(from)))
		}
		out = append(out, raw[last:at]...)
		out = append(out, to...)
		last = end
	})
	if n == 0 {
		return raw, 0
	}
	return append(out, raw[last:]...), n
}

// structuralPathSpans calls fn with the top-level field and the span of
// every occurrence of from that structuralPaths replaces, in order, and
// returns how many there are.
//
// The fields are walked, but a value is searched only when the next
// occurrence of from in the line (one vector search, made again only once
// the walk is past it) lies inside it, and the walk stops at the field
// after the last one: a move rewrites the cwd of every line, twice (once
// to count, once to write), and a search in each of the twenty short
// values of every line was most of its CPU.
func structuralPathSpans(raw, from []byte, fn func(key string, at, end int)) int {
	str := unsafe.String(unsafe.SliceData(raw), len(raw))
	i := 0
	for i < len(str) && str[i] != '{' {
		i++
	}
	if i == len(str) || len(from) == 0 {
		return 0
	}
	next := bytes.Index(raw[i:], from) // the next occurrence at or after pos (-1: none)
	if next < 0 {
		return 0
	}
	next += i
	pos := i
	n := 0
	chain.Fields(str, i, func(key string, vs, ve int) bool {
		if next >= 0 && next < vs {
			// behind the walk (in a key, or a content value passed over)
			pos = vs
			if next = bytes.Index(raw[pos:], from); next >= 0 {
				next += pos
			}
		}
		if next < 0 {
			return false // none in this value or any after it
		}
		if next+len(from) > ve || isContentKey(key) {
			return true
		}
		v := raw[vs:ve]
		for k := next - vs; ; {
			m := bytes.Index(v[k:], from)
			if m < 0 {
				break
			}
			at := k + m
			end := at + len(from)
			// a string that starts with from, and from is all of it or a
			// folder of it
			if at > 0 && v[at-1] == '"' && (at < 2 || v[at-2] != '\\') && end < len(v) && (v[end] == '"' || v[end] == '/') {
				fn(key, vs+at, vs+end)
				n++
			}
			k = end
		}
		next = -1 // searched again from the next value
		if rest := bytes.Index(raw[ve:], from); rest >= 0 {
			next = ve + rest
		}
		return next >= 0
	})
	return n
}

// replacePath replaces from in s (JSON text) wherever it is a whole path or
// the start of one: not preceded by a path character or '/', not followed
// by a character that would make it another name.
func replacePath(s, from, to []byte) ([]byte, int) {
	var out []byte
	n, last := 0, 0
	for k := 0; ; {
		m := bytes.Index(s[k:], from)
		if m < 0 {
			break
		}
		at, end := k+m, k+m+len(from)
		escaped := at >= 2 && s[at-2] == '\\' && strings.IndexByte("ntr", s[at-1]) >= 0 // after \n, \t, \r
		if (at == 0 || escaped || !isPathByte(s[at-1]) && s[at-1] != '/') && (end == len(s) || !isPathByte(s[end])) {
			out = append(out, s[last:at]...)
			out = append(out, to...)
			last = end
			n++
		}
		k = end
	}
	if n == 0 {
		return s, 0
	}
	return append(out, s[last:]...), n
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// contentPaths rewrites from in the tool inputs and results of one entry,
// and lists what it changed.
func contentPaths(f *chain.File, e *chain.Entry, raw, from, to []byte) ([]byte, []PathChange, error) {
	if !bytes.Contains(raw, from) {
		return raw, nil, nil
	}
	type field struct{ path, where string }
	var fields []field
	gjson.GetBytes(raw, "message.content").ForEach(func(k, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "tool_use":
			fields = append(fields, field{"message.content." + k.String() + ".input", "tool_use input (" + b.Get("name").Str + ")"})
		case "tool_result":
			fields = append(fields, field{"message.content." + k.String() + ".content", "tool_result content"})
		}
		return true
	})
	if gjson.GetBytes(raw, "toolUseResult").Exists() {
		fields = append(fields, field{"toolUseResult", "toolUseResult"})
	}
	var changes []PathChange
	for _, fl := range fields {
		v := gjson.GetBytes(raw, fl.path)
		if !v.Exists() || !bytes.Contains([]byte(v.Raw), from) {
			continue
		}
		nv, n := replacePath([]byte(v.Raw), from, to)
		if n == 0 {
			continue
		}
		var err error
		if raw, err = sjson.SetRawBytes(raw, fl.path, nv); err != nil {
			return nil, nil, err
		}
		changes = append(changes, PathChange{File: f.Path, Line: int(e.Line), Where: fl.where, Count: n})
	}
	return raw, changes, nil
}

// String describes a change for people.
func (c PathChange) String() string {
	return c.File + ":" + strconv.Itoa(c.Line) + ": " + c.Where + ": " + chain.Plural(c.Count, "path", "paths")
}
