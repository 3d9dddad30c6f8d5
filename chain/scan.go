package chain

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A small reader of already-validated JSON that walks an object's fields
// and an array's elements as raw text, without decoding the values it
// skips. Envelope parsing only needs a few short fields of each entry;
// skipping a 200 KB tool output is an IndexByte loop, not a decode.

// Fields calls fn with every key of the JSON object that starts at s[at]
// and the bounds of its value in s, until fn returns false. The JSON must
// be valid (as every entry the loader accepted is); values are skipped
// over, never decoded.
func Fields(s string, at int, fn func(key string, vs, ve int) bool) {
	fieldsTo(s, at, func(key string, vs int) int {
		ve := skipValue(s, vs)
		if !fn(key, vs, ve) {
			return -1
		}
		return ve
	})
}

// fieldsTo calls fn with every key of the JSON object at s[at] and the
// start of its value; fn returns the value's end (skipValue's, or its own
// when it walked the value: a value is then read once, not skipped over
// and walked again), or -1 to stop. It returns the object's end, or -1.
func fieldsTo(s string, at int, fn func(key string, vs int) int) int {
	i := skipSpace(s, at)
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return -1
		}
		if s[i] == '}' {
			return i + 1
		}
		if s[i] == ',' {
			i++
			continue
		}
		kEnd := skipString(s, i)
		key := strValue(s[i:kEnd])
		i = skipSpace(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			return -1
		}
		i = skipSpace(s, i+1)
		if i = fn(key, i); i < 0 {
			return -1
		}
	}
}

// Elems calls fn with the bounds of every element of the JSON array that
// starts at s[at].
func Elems(s string, at int, fn func(vs, ve int) bool) {
	ElemsTo(s, at, func(vs int) int {
		ve := skipValue(s, vs)
		if !fn(vs, ve) {
			return -1
		}
		return ve
	})
}

// FieldsTo calls fn with every key of the JSON object at s[at] and the
// start of its value; fn returns the value's end (SkipValue's, or its own
// when it walked the value: a value is then read once, not skipped over
// and walked again), or -1 to stop. It returns the object's end, or -1.
func FieldsTo(s string, at int, fn func(key string, vs int) int) int { return fieldsTo(s, at, fn) }

// ElemsTo calls fn with the start of every element of the JSON array at
// s[at]; fn returns the element's end (as FieldsTo's does), or -1 to
// stop. It returns the array's end, or -1.
func ElemsTo(s string, at int, fn func(vs int) int) int {
	i := skipSpace(s, at)
	if i >= len(s) || s[i] != '[' {
		return -1
	}
	i++
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return -1
		}
		if s[i] == ']' {
			return i + 1
		}
		if s[i] == ',' {
			i++
			continue
		}
		if i = fn(i); i < 0 {
			return -1
		}
	}
}

// SkipValue returns the index after the JSON value that starts at s[i].
func SkipValue(s string, i int) int { return skipValue(s, i) }

// StrValue decodes a raw JSON string token; other tokens give "".
func StrValue(raw string) string { return strValue(raw) }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string token starting at s[i].
func skipString(s string, i int) int {
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		j += k
		// an escaped quote has an odd number of backslashes before it
		b := 0
		for p := j - 1; p > i && s[p] == '\\'; p-- {
			b++
		}
		if b%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the value starting at s[i].
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		return skipNested(s, i, 0)
	default:
		j := i
		for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		return j
	}
}

// skipNested returns the index after the object or array that s[i:] ends
// at depth levels in (0 when s[i] opens it, 1 inside it).
func skipNested(s string, i, depth int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			j = skipString(s, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// strValue decodes a raw JSON string token; other tokens give "".
func strValue(raw string) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	k := strings.IndexByte(inner, '\\')
	if k < 0 {
		return inner
	}
	return unescape(inner, k)
}

// unescape decodes the inside of a JSON string whose first backslash is at
// k, copying the runs between escapes whole.
func unescape(s string, k int) string {
	b := make([]byte, 0, len(s))
	eachDecoded(s, k, func(chunk string) { b = append(b, chunk...) })
	return string(b)
}

// EscapeLen is the length of the escape sequence that s, the raw bytes
// of a JSON string from a backslash, starts with: the bytes EachDecoded
// reads for one decoded chunk there.
func EscapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	if s[1] != 'u' {
		return 2
	}
	_, n := decodeU(s[2:])
	return 2 + n
}

// EachDecoded calls fn with the decoded text of the inside of a JSON string
// (its bytes between the quotes), chunk after chunk: the runs between
// escapes as they lie in s, each escape decoded. A pass over a long string
// (to measure it, or to take its head and tail) allocates nothing. A chunk
// is valid only during the call.
func EachDecoded(s string, fn func(chunk string)) {
	eachDecoded(s, strings.IndexByte(s, '\\'), fn)
}

func eachDecoded(s string, k int, fn func(chunk string)) {
	var esc [4]byte
	if k < 0 {
		if s != "" {
			fn(s)
		}
		return
	}
	for {
		if k > 0 {
			fn(s[:k])
		}
		s = s[k:]
		if len(s) < 2 {
			if s != "" {
				fn(s)
			}
			return
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'n':
			fn("\n")
		case 't':
			fn("\t")
		case 'r':
			fn("\r")
		case 'b':
			fn("\b")
		case 'f':
			fn("\f")
		case 'u':
			r, n := decodeU(s)
			s = s[n:]
			m := utf8.EncodeRune(esc[:], r)
			fn(unsafe.String(&esc[0], m))
		default: // " \ / and anything else: the character itself
			esc[0] = c
			fn(unsafe.String(&esc[0], 1))
		}
		k = strings.IndexByte(s, '\\')
		if k < 0 {
			if s != "" {
				fn(s)
			}
			return
		}
	}
}

// decodeU reads the hex digits after \u (and a low surrogate's \uXXXX
// after a high one); it returns the rune and the bytes used.
func decodeU(s string) (rune, int) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		var r rune
		for i := 0; i < 4; i++ {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	r, ok := hex4(s)
	if !ok {
		return utf8.RuneError, 0
	}
	if utf16.IsSurrogate(r) && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if r2, ok := hex4(s[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 10
			}
		}
	}
	if utf16.IsSurrogate(r) {
		return utf8.RuneError, 4
	}
	return r, 4
}

// strHead decodes about the first n bytes of a raw JSON string token,
// without decoding the rest.
func strHead(raw string, n int) string {
	if len(raw) <= n+2 {
		return strValue(raw)
	}
	cut := raw[:n+1]
	// do not end inside an escape sequence: cut before the last unescaped
	// backslash of the final six bytes
	for k := len(cut) - 1; k >= 1 && k >= len(cut)-6; k-- {
		if cut[k] != '\\' {
			continue
		}
		run := 0
		for p := k; p >= 1 && cut[p] == '\\'; p-- {
			run++
		}
		if run%2 == 1 {
			cut = cut[:k]
		} else {
			cut = cut[:k+1]
		}
		break
	}
	s := strValue(cut + `"`)
	if len(s) > n {
		s = s[:n]
	}
	return s
}

func isTrue(raw string) bool { return raw == "true" }
