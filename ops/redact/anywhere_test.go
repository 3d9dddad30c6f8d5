package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"
)

// The encodings of the sweep (anywhere.go), each from its definition,
// applied to one secret with nothing around it that names a secret or
// the encoding: each member of the family is a subtest, so a failure says
// which encoding broke.
const sweepToken = "ghp_R8fKq2LmZx7VtN3wPj5HcY9sDb1GeA4uWo6T"

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func utf16Bytes(s string, le bool) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		if le {
			b = append(b, byte(u), byte(u>>8))
		} else {
			b = append(b, byte(u>>8), byte(u))
		}
	}
	return b
}

func wrapAt(s string, n int, sep string) string {
	var parts []string
	for len(s) > n {
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return strings.Join(append(parts, s), sep)
}

func eachByte(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

func TestSweepFindsEveryEncoding(t *testing.T) {
	env := "# deploy\nGITHUB_TOKEN=" + sweepToken + "\nLOG_LEVEL=info\nREGION=eu-west-1\nRETRIES=3\n"
	cases := []struct{ name, enc string }{
		{"base64", b64(sweepToken)},
		{"base64url", base64.RawURLEncoding.EncodeToString([]byte("user=ops&token=" + sweepToken + "&x=1~~"))},
		{"hex", hex.EncodeToString([]byte(sweepToken))},
		{"hex-0x", "0x" + hex.EncodeToString([]byte(sweepToken))},
		{"base32", base32.StdEncoding.EncodeToString([]byte(sweepToken))},
		{"percent", eachByte(sweepToken, "%%%02X")},
		{"wrapped-76-lf", wrapAt(b64(env), 76, "\n")},
		{"wrapped-76-crlf", wrapAt(b64(env), 76, "\r\n")},
		{"wrapped-64-escaped", wrapAt(b64(env), 64, `\n`)},
		{"wrapped-76-indented", wrapAt(b64(env), 76, "\n    ")},
		{"utf16le-base64", base64.StdEncoding.EncodeToString(utf16Bytes("$env:GITHUB_TOKEN='"+sweepToken+"'", true))},
		{"utf16be-base64", base64.StdEncoding.EncodeToString(utf16Bytes(sweepToken, false))},
		{"base64-of-base64", b64(b64(sweepToken))},
		{"percent-of-base64", url.QueryEscape(b64("token: " + sweepToken + "\n>>>"))},
		{"base64-of-hex", b64(hex.EncodeToString([]byte(sweepToken)))},
		{"c-hex-escapes", eachByte(sweepToken, `\x%02x`)},
		{"c-octal-escapes", eachByte(sweepToken, `\%03o`)},
		{"js-unicode-escapes", eachByte(sweepToken, `\u%04x`)},
	}
	s := mustNew(t, Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := `{"note": "` + c.enc + `", "n": 2}`
			st := strings.Index(text, c.enc)
			fs := s.Scan(text)
			if len(fs) != 1 {
				t.Fatalf("want one finding over the encoded span, got %v in %q", fs, text)
			}
			f := fs[0]
			if f.Rule != "encoded-secret" || f.Start > st || f.End < st+len(c.enc)-8 {
				t.Errorf("finding %v does not cover the encoded span %d..%d", f, st, st+len(c.enc))
			}
			if !s.MayHold(text) {
				t.Errorf("MayHold false on a text Scan finds a secret in")
			}
		})
	}
}

// The sweep decodes two levels at most: a third is not read.
func TestSweepDepthIsTwo(t *testing.T) {
	s := mustNew(t, Options{})
	if fs := s.Scan("v: " + b64(b64(b64(sweepToken)))); len(fs) != 0 {
		t.Errorf("base64 three times over was decoded: %v", fs)
	}
}

// A run longer than maxEncodedRun (an image's size) is not decoded.
func TestSweepSkipsLongRuns(t *testing.T) {
	s := mustNew(t, Options{})
	long := b64(strings.Repeat("plain words of a long log line ", 2300) + "token=" + sweepToken)
	if len(long) <= maxEncodedRun {
		t.Fatalf("the run is %d bytes, not longer than %d", len(long), maxEncodedRun)
	}
	if fs := s.Scan(long); len(fs) != 0 {
		t.Errorf("a %d-byte run was decoded: %v", len(long), fs)
	}
}

func TestSweepLeavesNonSecretsClean(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), []byte(strings.Repeat("token="+sweepToken, 2))...)
	pdf := "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n(token=" + sweepToken + ")"
	cases := []struct{ name, text string }{
		{"base64-prose", b64("The quick brown fox jumps over the lazy dog while the build runs.")},
		{"base64-config", b64("name=build\nversion=1.2.3\nchannel=stable\n")},
		{"base64-code", b64("func main() {\n\tfmt.Println(\"hello\")\n}\n")},
		{"hex-sha256", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"hex-git", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"},
		{"base64-digest", "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="},
		{"uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"},
		{"png-data-uri", "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)},
		{"pdf", base64.StdEncoding.EncodeToString([]byte(pdf))},
		{"ssh-public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb0H4Zc2xvVx8c1qk7o3qGv0m3oJk7wq8dTq8lq0d1x dev@laptop"},
		{"hex-prose", hex.EncodeToString([]byte("Hello, this is only a plain message for the log."))},
		{"base32-prose", base32.StdEncoding.EncodeToString([]byte("nothing secret in this sentence at all"))},
		{"c-escapes-prose", eachByte("Hello world, plain text", `\x%02x`)},
		{"path", "/usr/local/go/src/encoding/base64/base64_test.go:/home/user/project/internal/app/redact"},
		{"utf16-prose", base64.StdEncoding.EncodeToString(utf16Bytes("Get-ChildItem -Path C:\\Users -Recurse", true))},
	}
	s := mustNew(t, Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if fs := s.Scan(c.text); len(fs) != 0 {
				t.Errorf("reported %v in %q", fs, c.text)
			}
		})
	}
}

// nextRunByDefinition is nextEncodedRun from its definition: each maximal
// run of encClass in text[i:], in order, the letter of an escape before it
// left out, the first of minEncodedRun bytes or more.
func nextRunByDefinition(text string, i int) (int, int) {
	for p := i; p < len(text); {
		if !encClass[text[p]] {
			p++
			continue
		}
		st, e := p, p
		for e < len(text) && encClass[text[e]] {
			e++
		}
		p = e
		if st > 0 && text[st-1] == '\\' && (text[st] == 'n' || text[st] == 'r' || text[st] == 't') {
			st++
		}
		if e-st >= minEncodedRun {
			return st, e
		}
	}
	return -1, -1
}

// The sweep's search for runs (which passes over a short word without
// reading it when the bytes 8 before and 8 after its tested byte are not of
// the class) finds the runs of the definition, from any start: texts of
// words of the class of every length to 40 between separators of 1 to 9
// bytes (escapes among them), cut anywhere, searched from every position.
func TestNextEncodedRunIsEveryLongRun(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	seps := []string{" ", ".", ":", "\n", "\\n", "\\t", "\\r", "\\", "=", "\"", "é", "\x00"}
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for b.Len() < 20+r.Intn(300) {
			for k := r.Intn(41); k > 0; k-- {
				b.WriteByte(handB64[r.Intn(len(handB64))])
			}
			for k := 1 + r.Intn(3); k > 0; k-- {
				b.WriteString(seps[r.Intn(len(seps))])
			}
		}
		text := b.String()
		text = text[:r.Intn(len(text)+1)]
		for i := 0; i <= len(text); i++ {
			st, e := nextEncodedRun(text, i)
			wst, we := nextRunByDefinition(text, i)
			if st != wst || e != we {
				t.Fatalf("from %d of %q: [%d,%d), want [%d,%d)", i, text, st, e, wst, we)
			}
		}
	}
}
