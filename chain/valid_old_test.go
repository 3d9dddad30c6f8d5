package chain

// The validator as it was at 26f7d35 (a pass for control bytes over the
// whole line, then the strings), kept as the oracle the new one must agree
// with byte for byte on every input: FuzzValidJSONIsTheOldOne.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

func oldValidJSON(b []byte) bool {
	ctl := oldHasControl(b)
	i := oldSkipWS(b, 0)
	i, ok := oldValidValue(b, i, 0, ctl)
	if !ok {
		return false
	}
	return oldSkipWS(b, i) == len(b)
}

const oldMaxDepth = 10000

func oldSkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func oldValidValue(b []byte, i, depth int, ctl bool) (int, bool) {
	if i >= len(b) || (depth >= oldMaxDepth && (b[i] == '{' || b[i] == '[')) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return oldValidString(b, i, ctl)
	case c == '{':
		i = oldSkipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = oldValidString(b, i, ctl); !ok {
				return i, false
			}
			i = oldSkipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = oldValidValue(b, oldSkipWS(b, i+1), depth+1, ctl); !ok {
				return i, false
			}
			i = oldSkipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = oldSkipWS(b, i+1)
		}
	case c == '[':
		i = oldSkipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = oldValidValue(b, i, depth+1, ctl); !ok {
				return i, false
			}
			i = oldSkipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = oldSkipWS(b, i+1)
		}
	case c == 't':
		return oldLiteral(b, i, "true")
	case c == 'f':
		return oldLiteral(b, i, "false")
	case c == 'n':
		return oldLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return oldValidNumber(b, i)
	}
	return i, false
}

func oldLiteral(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}

func oldValidNumber(b []byte, i int) (int, bool) {
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
	oldLo7 = 0x0101010101010101
	oldHi  = 0x8080808080808080
)

func oldValidString(b []byte, i int, ctl bool) (int, bool) {
	i++       // the opening quote
	end := -1 // the first quote at or after i, once found by IndexByte
	for {
		stop := -1
		if end < i {
			stop = oldQuoteOrBackslash(b, i)
		}
		if stop < 0 { // far away: the quote, then a backslash before it
			if end < i {
				q := bytes.IndexByte(b[i:], '"')
				if q < 0 {
					return len(b), false
				}
				end = i + q
			}
			stop = end
			if k := bytes.IndexByte(b[i:end], '\\'); k >= 0 {
				stop = i + k
			}
		}
		if ctl && !oldNoControl(b[i:stop]) {
			return i, false
		}
		if b[stop] == '"' {
			return stop + 1, true
		}
		i = stop // an escape
		if i+1 >= len(b) {
			return i, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) {
				return i, false
			}
			for _, h := range b[i+2 : i+6] {
				if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
					return i, false
				}
			}
			i += 6
		default:
			return i, false
		}
	}
}

const (
	oldQuotes      = 0x2222222222222222 // '"' in every byte
	oldBackslashes = 0x5c5c5c5c5c5c5c5c // '\\' in every byte
)

func oldQuoteOrBackslash(b []byte, i int) int {
	for n := 0; n < 4 && i+8 <= len(b); n++ {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^oldQuotes, x^oldBackslashes
		// a byte of q or s is zero where x holds the character
		if m := ((q-oldLo7)&^q | (s-oldLo7)&^s) & oldHi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return -1
}

func oldHasControl(b []byte) bool { return !oldNoControl(b) }

func oldNoControl(b []byte) bool {
	i := 0
	for ; i+16 <= len(b); i += 16 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := binary.LittleEndian.Uint64(b[i+8:])
		if ((x-0x20*oldLo7)&^x|(y-0x20*oldLo7)&^y)&oldHi != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return false
		}
	}
	return true
}

// The verdict contract, which the new validator keeps exactly: a line is
// valid when it is one JSON value (RFC 8259) between whitespace (space,
// tab, newline, carriage return), nested at most maxDepth deep; bytes
// above 0x7f are not checked as UTF-8 (as encoding/json's Valid and
// JSON.parse after the client's reader); a control byte below 0x20 is
// refused inside a string and anywhere but as whitespace.
