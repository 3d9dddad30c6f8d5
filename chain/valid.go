package chain

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// validJSON reports whether b is one JSON value (RFC 8259), surrounded by
// whitespace at most. It accepts what JSON.parse accepts (bytes above 0x7f
// are not checked as UTF-8: the client's reader replaces bad sequences and
// parses on). Strings, where the bytes of a session are, are scanned eight
// bytes at a time.
func validJSON(b []byte) bool {
	var mb [maskStack]uint64
	m, pooled := lineMasks(b, &mb)
	if pooled != nil {
		defer maskPool.Put(pooled)
	}
	return validJSONM(b, m)
}

// validJSONM is validJSON with the stop masks m of b (nil: none).
func validJSONM(b []byte, m []uint64) bool {
	i := skipWS(b, 0)
	i, ok := validValue(b, m, i, 0)
	if !ok {
		return false
	}
	return skipWS(b, i) == len(b)
}

// maxDepth bounds nesting: at most this many objects and arrays inside
// each other, as encoding/json allows (JSON.parse gives up far earlier).
// A container at depth d is level d+1.
const maxDepth = 10000

// skipWS returns the index of the first byte at or after i that is not
// whitespace. Between the tokens of a session line there is none: one
// compare (nothing above the space is whitespace) settles that.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// validValue validates the value at b[i] and returns the index after it;
// m is the stop masks of b, or nil (lineMasks).
func validValue(b []byte, m []uint64, i, depth int) (int, bool) {
	if i >= len(b) || (depth >= maxDepth && (b[i] == '{' || b[i] == '[')) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		if end := plainEnd(b, m, i); end > 0 {
			return end, true
		}
		return validStr(b, m, i)
	case c == '{':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if end := plainEnd(b, m, i); end > 0 {
				i = end
			} else if i, ok = validStr(b, m, i); !ok {
				return i, false
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			// most values of an envelope are strings: no call through
			// the switch of validValue for them
			if i = skipWS(b, i+1); i < len(b) && b[i] == '"' {
				if end := plainEnd(b, m, i); end > 0 {
					i, ok = end, true
				} else {
					i, ok = validStr(b, m, i)
				}
			} else {
				i, ok = validValue(b, m, i, depth+1)
			}
			if !ok {
				return i, false
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipWS(b, i+1)
		}
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, m, i, depth+1); !ok {
				return i, false
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipWS(b, i+1)
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(b, i)
	}
	return i, false
}

func literal(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}

func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

const (
	lo7 = 0x0101010101010101
	hi  = 0x8080808080808080
)

// validString checks the string token at b[i] and returns the index after
// it (scanString).
func validString(b []byte, i int) (int, bool) { return validStr(b, nil, i) }

// validStr is validString with the stop masks m of b (nil: none).
func validStr(b []byte, m []uint64, i int) (int, bool) {
	end, _, ok := scanStringM(b, m, i)
	return end, ok
}

// scanString checks the string token at b[i] and returns the index after
// it, and whether the string is plain: no escape in it, so its bytes
// between the quotes are its value.
//
// The first quote, backslash or control byte (below 0x20, which JSON
// forbids raw in a string) is looked for eight bytes at a time, all three
// in one test of each word: over the first shortString bytes of a string
// (most strings of an envelope are short: keys, uuids, timestamps, and a
// vector search set up for each of them cost more than the scan), and
// over the first word after each escape (escapes come in runs: \"x\",
// \n\t). Past those, the quote is found with bytes.IndexByte (vector
// code) and the bytes up to it are checked for control bytes once, four
// words at a time (the bytes of an escape are none: the runs between the
// escapes before that quote need no check of their own, where the scan of
// 90d9261 checked each run, a call per line of a tool output); then each
// backslash before it is found with bytes.IndexByte. Each byte is looked
// at a bounded number of times, so a 50 MB string with a million escapes
// stays linear.
func scanString(b []byte, i int) (end int, plain, ok bool) {
	far := -1 // the first quote at or after i, once found by IndexByte
	plain = true
	i++ // the opening quote
	for {
		stop := -1
		// the first word here, without a call: most keys end in it
		if i+8 <= len(b) {
			if m := stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				stop = i + bits.TrailingZeros64(m)/8
			} else if far < i { // not after an escape before far
				stop = stringStop(b, i+8, shortString/8-1)
			}
		}
		if stop < 0 { // far away: the quote, then a backslash before it
			if far < i {
				q := bytes.IndexByte(b[i:], '"')
				if q < 0 {
					return len(b), false, false
				}
				far = i + q
				// no control byte up to the quote: the bytes of the
				// escapes before it are none, so the runs between them
				// need no check of their own
				if !noControl(b[i:far]) {
					return i, false, false
				}
			}
			stop = far
			if k := bytes.IndexByte(b[i:far], '\\'); k >= 0 {
				stop = i + k
			}
		}
		switch b[stop] {
		case '"':
			return stop + 1, plain, true
		case '\\':
		default: // a control byte
			return stop, false, false
		}
		plain = false // an escape
		if i = escapeEnd(b, stop); i < 0 {
			return stop, false, false
		}
	}
}

// escapeEnd returns the index after the escape whose backslash is at
// b[i], or -1 when it is not one JSON allows (RFC 8259: \" \\ \/ \b \f
// \n \r \t, or \u and four hex digits). Small enough to be inlined in
// both string scans.
func escapeEnd(b []byte, i int) int {
	if i+1 < len(b) {
		if c := b[i+1]; shortEscape[c] {
			return i + 2
		} else if c == 'u' && i+6 <= len(b) && hex4(b[i+2:i+6]) {
			return i + 6
		}
	}
	return -1
}

// shortEscape: the bytes that follow a backslash in a two-byte escape.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// hex4 reports whether the four bytes of h are hex digits.
func hex4(h []byte) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

const (
	quotes      = 0x2222222222222222 // '"' in every byte
	backslashes = 0x5c5c5c5c5c5c5c5c // '\\' in every byte
	controls    = 0x2020202020202020 // 0x20, the first byte that is not a control byte
)

// shortString is how many bytes of a string are scanned eight at a time
// (the first word in scanString, the rest by stringStop) before
// bytes.IndexByte: enough for a uuid with its closing quote (37 bytes),
// the most common value of an envelope.
const shortString = 48

// stringStop returns the index of the first '"', '\\' or byte below 0x20
// in b at or after i when it is within the next words 8-byte words, else
// -1 (the caller then searches with bytes.IndexByte; -1 also when b ends
// before).
func stringStop(b []byte, i, words int) int {
	for n := 0; n < words && i+8 <= len(b); n++ {
		if m := stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return -1
}

// stops flags the high bit of each byte of x that is '"', '\\' or below
// 0x20, and maybe of bytes after one: a borrow carries into the next byte
// only from a byte that matched, so the lowest flag is the first match.
func stops(x uint64) uint64 {
	// a byte of x^quotes or x^backslashes is zero where x holds the
	// character, and x-controls borrows where x is below 0x20: each
	// borrows in a subtraction, and a byte of x above 0x7f (whose high bit
	// is also that of x^quotes and x^backslashes: neither character has
	// it) neither matches nor borrows, so one &^x clears the three
	return ((x ^ quotes - lo7) | (x ^ backslashes - lo7) | (x - controls)) &^ x & hi
}

// noControl reports whether b holds no byte below 0x20: four words at a
// time, then one, then the last eight bytes (again) in one word.
func noControl(b []byte) bool {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32 : i+32]
		x0 := binary.LittleEndian.Uint64(w)
		x1 := binary.LittleEndian.Uint64(w[8:])
		x2 := binary.LittleEndian.Uint64(w[16:])
		x3 := binary.LittleEndian.Uint64(w[24:])
		if ((x0-controls)&^x0|(x1-controls)&^x1|(x2-controls)&^x2|(x3-controls)&^x3)&hi != 0 {
			return false
		}
	}
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-controls)&^x&hi != 0 {
			return false
		}
	}
	if i == len(b) {
		return true
	}
	if len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b[len(b)-8:])
		return (x-controls)&^x&hi == 0
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return false
		}
	}
	return true
}

// A validating walker: the loader reads the envelope of an entry as it
// validates the line, in one pass. Each function takes the line, its stop
// masks (lineMasks; nil: none), the index of a value's first byte and returns the index after the value, or -1 when
// the JSON is not valid; depth is the nesting depth of the value, as in
// validValue.

// vSkip validates the value at b[i] and skips it.
func vSkip(b []byte, m []uint64, i, depth int) int {
	if end, ok := validValue(b, m, i, depth); ok {
		return end
	}
	return -1
}

// vFields validates the object at b[i], calling fn with each key and the
// index of its value; fn validates the value (with vSkip, or by walking
// it) and returns its end, or -1.
func vFields(b []byte, m []uint64, i, depth int, fn func(key string, vs int) int) int {
	if depth >= maxDepth || i >= len(b) || b[i] != '{' {
		return -1
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		kEnd, plain, ok := plainEnd(b, m, i), true, true
		if kEnd < 0 {
			kEnd, plain, ok = scanStringM(b, m, i)
		}
		if !ok {
			return -1
		}
		var key string
		if plain { // the usual key: no escape to decode
			key = b2s(b[i+1 : kEnd-1])
		} else {
			key = strValue(b2s(b[i:kEnd]))
		}
		i = skipWS(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return -1
		}
		if i = fn(key, i); i < 0 {
			return -1
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return -1
		}
		if b[i] == '}' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipWS(b, i+1)
	}
}

// vElems validates the array at b[i], calling fn with the index of each
// element; fn validates the element and returns its end, or -1.
func vElems(b []byte, m []uint64, i, depth int, fn func(vs int) int) int {
	if depth >= maxDepth || i >= len(b) || b[i] != '[' {
		return -1
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i >= len(b) {
			return -1
		}
		if i = fn(i); i < 0 {
			return -1
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return -1
		}
		if b[i] == ']' {
			return i + 1
		}
		if b[i] != ',' {
			return -1
		}
		i = skipWS(b, i+1)
	}
}

// vValue walks the value at b[i] with vFields when it is an object and
// validates and skips it otherwise.
func vValue(b []byte, m []uint64, i, depth int, fn func(key string, vs int) int) int {
	if i < len(b) && b[i] == '{' {
		return vFields(b, m, i, depth, fn)
	}
	return vSkip(b, m, i, depth)
}
