package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"
)

// prefixPrintableRef is the sweep's test of a run's first bytes as it was
// written before the lines of a wrapped block were judged unjoined: the
// whole run joined, decoded with the library's allocating calls.
func prefixPrintableRef(v string) bool {
	var b []byte
	switch runKindRef(v) {
	case '%':
		p, _ := unpercent(v[:min(len(v), 48)])
		if p == "" {
			p = v[:min(len(v), 48)]
		}
		b = []byte(p)
	case 'x':
		h := strings.TrimPrefix(v, "0x")
		b, _ = hex.DecodeString(h[:min(len(h), 32)])
	case '2':
		b, _ = base32.StdEncoding.DecodeString(v[:min(len(v), 32)])
	default:
		if c := v[0]; !(c >= 'I' && c <= 'Z' || c >= 'a' && c <= 'f' || c == 'A' || c == '+' || c == '/') {
			return false
		}
		w := strings.TrimRight(v[:min(len(v), 32)/4*4], "=")
		if len(w)%4 == 1 {
			return false
		}
		enc := base64.RawStdEncoding
		if strings.ContainsAny(w, "-_") {
			if strings.ContainsAny(w, "+/") {
				return false
			}
			enc = base64.RawURLEncoding
		}
		b, _ = enc.DecodeString(w)
	}
	if len(b) < 8 || strings.HasPrefix(string(b), "%PDF") {
		return false
	}
	if t, ok := fromUTF16(b); ok {
		b = t
	}
	return printableText(trimPartialRune(b))
}

func runKindRef(v string) byte {
	if strings.IndexByte(v, '%') >= 0 {
		return '%'
	}
	h := strings.TrimPrefix(v, "0x")
	hexOnly, b32 := len(h)%2 == 0, len(v)%8 == 0
	for i := 0; i < len(v) && (hexOnly || b32); i++ {
		c := v[i]
		if i < len(h) && !isHex(h[i]) {
			hexOnly = false
		}
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' || c == '=') {
			b32 = false
		}
	}
	switch {
	case hexOnly:
		return 'x'
	case b32:
		return '2'
	}
	return '6'
}

// The sweep judges a run by its first bytes without joining the lines of a
// wrapped block (runKindOf, runHead, prefixPrintableOf): the same verdict
// and the same encoding as the joined run gives, for every encoding of the
// sweep (base64 and base64url of text, of UTF-16, of a PDF and of random
// bytes; hex with and without 0x; base32; percent-encoding), whole or cut
// into lines of every width, the first line shorter than the bytes judged
// among them.
func TestRunJudgedByItsFirstBytesUnjoined(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	text := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(32 + r.Intn(95))
		}
		return b
	}
	raw := func(n int) []byte {
		b := make([]byte, n)
		r.Read(b)
		return b
	}
	utf16le := func(n int) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(string(text(n)))) {
			b = append(b, byte(u), byte(u>>8))
		}
		return b
	}
	kinds := map[string]func() string{
		"base64 of text":     func() string { return base64.StdEncoding.EncodeToString(text(12 + r.Intn(300))) },
		"base64url of text":  func() string { return base64.RawURLEncoding.EncodeToString(text(12 + r.Intn(300))) },
		"base64 of bytes":    func() string { return base64.StdEncoding.EncodeToString(raw(12 + r.Intn(300))) },
		"base64 of UTF-16":   func() string { return base64.StdEncoding.EncodeToString(utf16le(8 + r.Intn(100))) },
		"base64 of a PDF":    func() string { return base64.StdEncoding.EncodeToString(append([]byte("%PDF-1.7 "), text(40)...)) },
		"hex of text":        func() string { return hex.EncodeToString(text(8 + r.Intn(100))) },
		"0x hex of text":     func() string { return "0x" + hex.EncodeToString(text(8+r.Intn(100))) },
		"hex of bytes":       func() string { return hex.EncodeToString(raw(8 + r.Intn(100))) },
		"base32 of text":     func() string { return base32.StdEncoding.EncodeToString(text(10 + r.Intn(100))) },
		"percent of text":    func() string { return strings.ReplaceAll(string(text(20+r.Intn(100))), " ", "%20") },
		"letters and digits": func() string { return string(text(16 + r.Intn(200))) },
	}
	for name, make := range kinds {
		t.Run(name, func(t *testing.T) {
			for range 400 {
				v := make()
				if !assertSameJudgement(t, []string{v}, v) {
					return
				}
				width := 1 + r.Intn(80)
				var segs []string
				for rest := v; rest != ""; {
					k := min(len(rest), width)
					segs = append(segs, rest[:k])
					rest = rest[k:]
				}
				if len(segs) > 1 && !assertSameJudgement(t, segs, v) {
					return
				}
			}
		})
	}
}

func assertSameJudgement(t *testing.T, segs []string, joined string) bool {
	t.Helper()
	v := joined
	if len(segs) > 1 {
		v = segs[0] // the sweep passes the first line's span with the lines
	}
	if got, want := runKindOf(segs, v), runKindRef(joined); got != want {
		t.Errorf("runKindOf(%q) = %c, want %c", segs, got, want)
		return false
	}
	if got, want := prefixPrintableOf(runKindOf(segs, v), runHead(segs, v)), prefixPrintableRef(joined); got != want {
		t.Errorf("prefixPrintableOf(%q) = %v, want %v", segs, got, want)
		return false
	}
	return true
}
