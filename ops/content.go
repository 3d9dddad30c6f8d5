package ops

import (
	"fmt"
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
	if len(s) <= max || max <= 0 {
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
	inner := raw[1 : len(raw)-1]
	if strings.IndexByte(inner, '\\') < 0 {
		headN, tailStart, marker, ok := cutMiddleAt(inner, max)
		if !ok {
			return dst, false
		}
		return appendQuoted(dst, inner[:headN], marker, inner[tailStart:]), true
	}
	n, lines := 0, 0
	chain.EachDecoded(inner, func(c string) {
		n += len(c)
		lines += strings.Count(c, "\n")
	})
	if n <= max || max <= 0 {
		return dst, false
	}
	// the decoded bytes [0, headN] and [n-tailN, n): what CutMiddle looks at
	headN := max * 2 / 3
	tailN := max - headN
	from := n - tailN
	buf := make([]byte, 0, headN+1+tailN)
	pos := 0
	chain.EachDecoded(inner, func(c string) {
		if pos <= headN {
			buf = append(buf, c[:min(len(c), headN+1-pos)]...)
		}
		if end := pos + len(c); end > from {
			buf = append(buf, c[from-min(pos, from):]...)
		}
		pos += len(c)
	})
	// buf is the head's headN+1 bytes then the tail's tailN (max > n-max
	// is ruled out above: n > max, so from >= headN+1 and they do not overlap)
	head, tail := buf[:headN+1], buf[headN+1:]
	for headN > 0 && !utf8.RuneStart(head[headN]) {
		headN--
	}
	skip := 0 // tail bytes that are not a rune start
	for skip < len(tail) && !utf8.RuneStart(tail[skip]) {
		skip++
	}
	removed := from + skip - headN
	hs, ts := unsafe.String(unsafe.SliceData(head), headN), unsafe.String(unsafe.SliceData(tail[skip:]), len(tail)-skip)
	kept := strings.Count(hs, "\n") + strings.Count(ts, "\n")
	marker := cutMarker(removed, lines-kept)
	if len(marker) >= removed {
		return dst, false
	}
	return appendQuoted(dst, hs, marker, ts), true
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
