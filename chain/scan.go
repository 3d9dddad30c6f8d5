package chain

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A small reader of already-validated JSON that walks an object's fields
// and an array's elements as raw text, without decoding the values it
// skips. Envelope parsing only needs a few short fields of each entry;
// skipping a 200 KB tool output is an IndexByte loop, not a decode.

// eachField calls fn with every key and raw value of the JSON object obj
// (which must be valid JSON), until fn returns false.
func eachField(obj string, fn func(key, raw string) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return
		}
		if obj[i] == ',' {
			i++
			continue
		}
		kEnd := skipString(obj, i)
		key := strValue(obj[i:kEnd])
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValue(obj, i)
		if !fn(key, obj[i:vEnd]) {
			return
		}
		i = vEnd
	}
}

// eachElem calls fn with every raw element of the JSON array arr.
func eachElem(arr string, fn func(raw string) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		if arr[i] == ',' {
			i++
			continue
		}
		end := skipValue(arr, i)
		if !fn(arr[i:end]) {
			return
		}
		i = end
	}
}

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
		depth := 0
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
	default:
		j := i
		for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		return j
	}
}

// strValue decodes a raw JSON string token; other tokens give "".
func strValue(raw string) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return gjson.Parse(raw).Str
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
