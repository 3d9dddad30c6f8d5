package ops

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RemoveBlocks removes the content blocks of entry i of f for which drop
// returns true. An entry left without content is removed whole (its
// children re-linked by Finish). It returns how many blocks went.
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
	out := append([]byte(nil), raw...)
	for k := len(gone) - 1; k >= 0; k-- {
		out, err = sjson.DeleteBytes(out, "message.content."+strconv.Itoa(gone[k]))
		if err != nil {
			return 0, err
		}
	}
	t.Set(f, i, out)
	return len(gone), nil
}

// EncodeString returns s as a JSON string the way the client writes it:
// only quotes, backslashes and control characters are escaped; <, >, & and
// U+2028 stay as they are.
func EncodeString(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			const hx = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hx[c>>4], hx[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// CutMiddle shortens s to about max bytes: its head and tail around a
// marker that says how much was removed. Cuts fall on UTF-8 boundaries.
// It returns s unchanged when it is not longer than max, or when the marker
// would be longer than what it replaces.
func CutMiddle(s string, max int) (string, bool) {
	if len(s) <= max || max <= 0 {
		return s, false
	}
	headN := max * 2 / 3
	tailN := max - headN
	for headN > 0 && !utf8.RuneStart(s[headN]) {
		headN--
	}
	tailStart := len(s) - tailN
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	removed := s[headN:tailStart]
	lines := 0
	for i := 0; i < len(removed); i++ {
		if removed[i] == '\n' {
			lines++
		}
	}
	marker := fmt.Sprintf("\n[… ccsurgeon removed %d bytes (%d lines) here …]\n", len(removed), lines)
	if len(marker) >= len(removed) {
		return s, false // the marker would make it longer: a cut must only shorten
	}
	return s[:headN] + marker + s[tailStart:], true
}
