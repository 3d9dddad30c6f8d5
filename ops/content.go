package ops

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RemoveBlocks removes the content blocks of entry i of f for which drop
// returns true. An entry left without content is removed whole (its
// children re-linked by Finish). It returns how many blocks went. The
// line is rewritten as the result is written (SetLate).
func (t *Txn) RemoveBlocks(f *chain.File, i int, drop func(b gjson.Result) bool) (int, error) {
	if t.Dropped(f, i) {
		return 0, nil
	}
	raw, err := t.Raw(f, i)
	if err != nil {
		return 0, err
	}
	content := gjson.GetBytes(raw, "message.content")
	if !content.IsArray() {
		return 0, nil
	}
	var gone []int
	n := 0
	content.ForEach(func(_, b gjson.Result) bool {
		if drop(b) {
			gone = append(gone, n)
		}
		n++
		return true
	})
	if len(gone) == 0 {
		return 0, nil
	}
	if len(gone) == n {
		t.Drop(f, i)
		return n, nil
	}
	// the blocks go as the result is written (nothing held until then)
	err = t.SetLate(f, i, func(_ int, raw []byte) ([]byte, error) {
		out := append([]byte(nil), raw...)
		for k := len(gone) - 1; k >= 0; k-- {
			var err error
			if out, err = sjson.DeleteBytes(out, "message.content."+strconv.Itoa(gone[k])); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	return len(gone), err
}

// EncodeString returns s as a JSON string the way the client writes it:
// only quotes, backslashes and control characters are escaped; <, >, & and
// U+2028 stay as they are.
func EncodeString(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends s escaped as EncodeString escapes it, without the
// quotes; runs of bytes that need no escape are copied whole.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		start = i + 1
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			const hx = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hx[c>>4], hx[c&15])
		}
	}
	return append(b, s[start:]...)
}

// CutMiddle shortens s to about max bytes: its head and tail around a
// marker that says how much was removed. Cuts fall on UTF-8 boundaries.
// It returns s unchanged when it is not longer than max, or when the marker
// would be longer than what it replaces.
func CutMiddle(s string, max int) (string, bool) {
	headN, tailStart, marker, ok := cutMiddleAt(s, max)
	if !ok {
		return s, false
	}
	return s[:headN] + marker + s[tailStart:], true
}

// cutMiddleAt is where CutMiddle cuts s: it keeps s[:headN] and
// s[tailStart:] around marker.
func cutMiddleAt(s string, max int) (headN, tailStart int, marker string, ok bool) {
	if len(s) <= max || max <= 0 || len(s)-markerBytes(s, false) <= max {
		return 0, 0, "", false
	}
	headN = max * 2 / 3
	tailN := max - headN
	for headN > 0 && !utf8.RuneStart(s[headN]) {
		headN--
	}
	tailStart = len(s) - tailN
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	removed := s[headN:tailStart]
	marker = cutMarker(len(removed), strings.Count(removed, "\n"))
	if len(marker) >= len(removed) {
		return 0, 0, "", false // the marker would make it longer: a cut must only shorten
	}
	return headN, tailStart, marker, true
}

// markerRe and rawMarkerRe find cutMarker's markers in a text, and in the
// raw inside of a JSON string (its newlines escaped).
var (
	markerRe    = regexp.MustCompile(`\n\[… ccsurgeon removed \d+ bytes \(\d+ lines\) here …\]\n`)
	rawMarkerRe = regexp.MustCompile(`\\n\[… ccsurgeon removed \d+ bytes \(\d+ lines\) here …\]\\n`)
)

// markerBytes is how many decoded bytes of s (raw: the inside of a JSON
// string) are cut markers: a text shortened already is measured without
// them, so that the same cut run again finds it short enough and leaves
// it (the marker that says what the first cut removed) as it is.
func markerBytes(s string, raw bool) int {
	if !strings.Contains(s, "ccsurgeon removed ") {
		return 0
	}
	re, escapes := markerRe, 0
	if raw {
		re, escapes = rawMarkerRe, 2 // two \n, a byte each decoded
	}
	n := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		n += m[1] - m[0] - escapes
	}
	return n
}

// cutMarker is what CutMiddle puts in place of what it removes.
func cutMarker(bytes, lines int) string {
	return fmt.Sprintf("\n[… ccsurgeon removed %d bytes (%d lines) here …]\n", bytes, lines)
}

// cutRawString is EncodeString(CutMiddle(chain.StrValue(raw), max)) for the
// raw JSON string raw, with ok false when CutMiddle leaves it as it is;
// only the head and tail it keeps are decoded (a long tool output is
// measured in one pass over its raw text, not decoded whole).
func cutRawString(raw string, max int) ([]byte, bool) {
	out, ok := appendCutRaw(nil, raw, max)
	return out, ok
}

// appendCutRaw is cutRawString appending the cut string to dst (dst as it
// was when ok is false): the head, the marker and the tail are escaped
// into it as they are, with no string made of them.
func appendCutRaw(dst []byte, raw string, max int) ([]byte, bool) {
	p, ok := planCutRaw(raw, max)
	if !ok {
		return dst, false
	}
	return p.append(dst, raw), true
}

// rawCut is where CutMiddle cuts a raw JSON string, in its raw bytes: it
// keeps raw[1:head] and raw[tail:len(raw)-1] (decoded), around the marker
// of removed bytes and lines. Made once by the pass that measures the
// string, it makes the cut again in O(kept bytes): the long middle is
// neither decoded nor counted again.
type rawCut struct {
	head, tail     int32
	removed, lines int32
	// verbatim: the raw head and tail are spelt as EncodeString spells
	// their text (only the escapes it makes), so they are copied as they
	// are instead of decoded and escaped again
	verbatim bool
}

// planCutRaw is where appendCutRaw cuts raw (ok false: it does not).
func planCutRaw(raw string, max int) (rawCut, bool) {
	inner := raw[1 : len(raw)-1]
	if strings.IndexByte(inner, '\\') < 0 {
		headN, tailStart, _, ok := cutMiddleAt(inner, max)
		if !ok || len(raw) > math.MaxInt32 {
			return rawCut{}, false
		}
		removed := inner[headN:tailStart]
		return rawCut{head: int32(1 + headN), tail: int32(1 + tailStart), removed: int32(len(removed)), lines: int32(strings.Count(removed, "\n")),
			verbatim: asEncoded(inner[:headN]) && asEncoded(inner[tailStart:])}, true
	}
	if len(raw) > math.MaxInt32 {
		return rawCut{}, false
	}
	// one pass measures the string (n decoded bytes, lines newlines) and
	// keeps where the last chunks start (the tail lies in them)
	// (from escape to escape: the runs between them are their own length)
	var ring chunkRing
	n, lines := 0, 0
	for pos := 0; ; {
		k := strings.IndexByte(inner[pos:], '\\')
		if k < 0 {
			n += len(inner) - pos
			break
		}
		n += k
		pos += k
		ring.push(n, pos)
		switch {
		case pos+1 >= len(inner): // a backslash at the end: itself
			n++
			pos++
		case inner[pos+1] != 'u': // one byte
			if inner[pos+1] == 'n' {
				lines++
			}
			n++
			pos += 2
		default:
			m := chain.EscapeLen(inner[pos:])
			chain.EachDecoded(inner[pos:pos+m], func(c string) {
				n += len(c)
				lines += strings.Count(c, "\n")
			})
			pos += m
		}
	}
	if n <= max || max <= 0 || n-markerBytes(inner, true) <= max {
		return rawCut{}, false
	}
	// the decoded bytes [0, headN] and [n-tailN, n): what CutMiddle looks at
	headN := max * 2 / 3
	tailN := max - headN
	from := n - tailN
	// the head: headN+1 bytes from the start, moved back to a rune start
	head := make([]byte, 0, headN+1)
	eachDecodedAt(inner, func(c string, _ int, _ bool) bool {
		head = append(head, c[:min(len(c), headN+1-len(head))]...)
		return len(head) <= headN
	})
	for headN > 0 && !utf8.RuneStart(head[headN]) {
		headN--
	}
	// the tail: the decoded bytes [from, n), from the chunk where they
	// start (the pass kept it, unless more chunks than the ring holds
	// follow: then from the start)
	dec0, raw0 := 0, 0
	if k, ok := ring.at(from); ok {
		dec0, raw0 = k.dec, k.raw
	}
	tail := make([]byte, 0, tailN)
	pos := dec0
	eachDecodedAt(inner[raw0:], func(c string, _ int, _ bool) bool {
		if pos+len(c) > from {
			tail = append(tail, c[from-min(pos, from):]...)
		}
		pos += len(c)
		return true
	})
	skip := 0 // tail bytes that are not a rune start
	for skip < len(tail) && !utf8.RuneStart(tail[skip]) {
		skip++
	}
	removed := from + skip - headN
	hs, ts := unsafe.String(unsafe.SliceData(head), headN), unsafe.String(unsafe.SliceData(tail[skip:]), len(tail)-skip)
	kept := strings.Count(hs, "\n") + strings.Count(ts, "\n")
	if len(cutMarker(removed, lines-kept)) >= removed {
		return rawCut{}, false
	}
	h, t := rawAt(inner, 0, 0, headN), rawAt(inner, raw0, dec0, from+skip)
	return rawCut{head: int32(1 + h), tail: int32(1 + t), removed: int32(removed), lines: int32(lines - kept),
		verbatim: asEncoded(inner[:h]) && asEncoded(inner[t:])}, true
}

// asEncoded reports whether the raw inside of a JSON string s is what
// EncodeString makes of its text: no byte it escapes left as it is, and
// no escape but the ones it makes (\", \\, \n, \r, \t and \u00xx, in
// lower case, for the other control characters).
func asEncoded(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		if c != '\\' || i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case '"', '\\', 'n', 'r', 't':
			i++
		case 'u':
			const hx = "0123456789abcdef"
			if i+5 >= len(s) || s[i+2] != '0' || s[i+3] != '0' || (s[i+4] != '0' && s[i+4] != '1') || strings.IndexByte(hx, s[i+5]) < 0 {
				return false
			}
			if v := (s[i+4]-'0')<<4 | byte(strings.IndexByte(hx, s[i+5])); v == '\n' || v == '\r' || v == '\t' {
				return false
			}
			i += 5
		default:
			return false
		}
	}
	return true
}

// append appends the cut of raw (the string p was planned on) to dst.
func (p rawCut) append(dst []byte, raw string) []byte {
	head, tail := raw[1:p.head], raw[p.tail:len(raw)-1]
	marker := cutMarker(int(p.removed), int(p.lines))
	dst = slices.Grow(dst, len(head)+len(marker)+len(tail)+len(head)/8+8)
	dst = append(dst, '"')
	if p.verbatim {
		dst = append(dst, head...)
		dst = appendEscaped(dst, marker)
		dst = append(dst, tail...)
		return append(dst, '"')
	}
	chain.EachDecoded(head, func(c string) { dst = appendEscaped(dst, c) })
	dst = appendEscaped(dst, marker)
	chain.EachDecoded(tail, func(c string) { dst = appendEscaped(dst, c) })
	return append(dst, '"')
}

// rawAt is the offset in inner (the raw inside of a JSON string) of the
// decoded position pos, walking from inner[from:], which decodes from the
// decoded position dec; pos is a rune start (or the end), which never
// falls inside an escape.
func rawAt(inner string, from, dec, pos int) int {
	at := len(inner)
	eachDecodedAt(inner[from:], func(c string, off int, literal bool) bool {
		switch {
		case pos <= dec: // (pos < dec: inside an escape, which a rune start never is)
			at = from + off
			return false
		case pos < dec+len(c) && literal:
			at = from + off + pos - dec
			return false
		}
		dec += len(c)
		return true
	})
	return at
}

// chunkRing keeps where the last chunks of a decoded string start.
type chunkRing struct {
	dec, raw [64]int
	n        int
}

type chunkStart struct{ dec, raw int }

func (r *chunkRing) push(dec, raw int) {
	r.dec[r.n%len(r.dec)], r.raw[r.n%len(r.raw)] = dec, raw
	r.n++
}

// at is the last chunk kept that starts at or before the decoded position
// pos; ok is false when the ring no longer holds it.
func (r *chunkRing) at(pos int) (chunkStart, bool) {
	for k := r.n - 1; k >= 0 && k >= r.n-len(r.dec); k-- {
		if d := r.dec[k%len(r.dec)]; d <= pos {
			return chunkStart{d, r.raw[k%len(r.raw)]}, true
		}
	}
	if r.n <= len(r.dec) { // every escape is kept, and pos is before the first: all before it is as it lies
		return chunkStart{pos, pos}, true
	}
	return chunkStart{}, false
}

// escaped is what the escape of each byte but u decodes to (a byte
// escaped for no reason is itself).
var escaped = func() (t [256]string) {
	for c := range t {
		t[c] = string(rune(c))
		if c >= 0x80 {
			t[c] = string([]byte{byte(c)})
		}
	}
	t['n'], t['t'], t['r'], t['b'], t['f'] = "\n", "\t", "\r", "\b", "\f"
	return t
}()

// eachDecodedAt is chain.EachDecoded giving, with each chunk, where it
// starts in s and whether it is s's own bytes (literal) or an escape
// decoded; fn returns false to stop.
func eachDecodedAt(s string, fn func(chunk string, at int, literal bool) bool) {
	pos := 0
	for pos < len(s) {
		k := strings.IndexByte(s[pos:], '\\')
		if k < 0 {
			fn(s[pos:], pos, true)
			return
		}
		if k > 0 && !fn(s[pos:pos+k], pos, true) {
			return
		}
		pos += k
		if pos+1 < len(s) && s[pos+1] != 'u' { // one byte
			if !fn(escaped[s[pos+1]], pos, false) {
				return
			}
			pos += 2
			continue
		}
		n := chain.EscapeLen(s[pos:])
		goOn := true
		chain.EachDecoded(s[pos:pos+n], func(c string) { goOn = fn(c, pos, false) })
		if !goOn {
			return
		}
		pos += n
	}
}

// appendQuoted appends the JSON string of head+marker+tail (EncodeString's
// escaping, which is byte by byte, so the parts are escaped one by one).
func appendQuoted(dst []byte, head, marker, tail string) []byte {
	dst = slices.Grow(dst, len(head)+len(marker)+len(tail)+len(head)/8+8)
	dst = append(dst, '"')
	dst = appendEscaped(dst, head)
	dst = appendEscaped(dst, marker)
	dst = appendEscaped(dst, tail)
	return append(dst, '"')
}
