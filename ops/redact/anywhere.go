package redact

import (
	"encoding/base32"
	"encoding/hex"
	"strings"
	"unicode/utf16"
)

// Secrets hidden by an encoding where nothing around them says "secret"
// or names the encoding (issue 31, the encoded family, third round). The
// rules of encoded.go decode where a name or a format declares the
// encoding; here every run of an encoding's alphabet is a candidate,
// whatever stands around it:
//
//   - base64 and base64url (RFC 4648 §4, §5), also wrapped at a fixed
//     width (RFC 2045's 76 columns, PEM-less 64-column blocks, lines
//     joined by real or escaped newlines and indented alike);
//   - base16 (hex, RFC 4648 §8; `0x` before it allowed) and base32
//     (RFC 4648 §6);
//   - percent-encoding (RFC 3986 §2.1) of a whole value;
//   - UTF-16LE/BE text (RFC 2781) under base64 (PowerShell's
//     -EncodedCommand);
//
// decoded when the decoded bytes are printable text, and scanned with the
// whole scanner; the encoded span is what is reported. The decoded text is
// swept again (base64 of base64, percent of base64): two levels at most
// (Scanner.inner). C, JavaScript and Python string escapes (\x41, \101,
// \u0041) are decoded by an anchored rule (cEscapeRule).
//
// Cost: one pass over the bytes with a 256-entry table; a run shorter than
// minEncodedRun or longer than maxEncodedRun is passed over (an image in a
// session is far longer); a run is decoded only when its first bytes
// decode to printable text (prefixPrintable), and never after a data:
// URI's media type that is not text (an image, a PDF, audio).

const (
	minEncodedRun = 16       // 12 bytes of base64, 8 of hex
	maxEncodedRun = 64 << 10 // 64 KB
)

// encClass: the bytes a run of base64, base64url, hex, base32 or
// percent-encoding is made of (padding '=' is read after a run).
var encClass = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = isAlnum(b) || b == '+' || b == '/' || b == '-' || b == '_' || b == '%'
	}
	return
}()

// sweepEncoded appends to *out the encoded runs of text that decode to
// text holding a secret. probe: report (true) the first run whose first
// bytes decode to printable text, without decoding it whole (MayHold).
func (s *Scanner) sweepEncoded(text string, probe bool, out *[]Finding) bool {
	if !s.sweep || len(text) < minEncodedRun {
		return false
	}
	for i := 0; ; {
		st, e := nextEncodedRun(text, i)
		if st < 0 {
			break
		}
		i = e
		if !quickText(text[st:e]) {
			continue // (a wrapped block's next lines are runs of their own)
		}
		segs, en := wrappedRun(text, st, e)
		i = en
		if en-st > maxEncodedRun || dottedToken(text, st, en) || nonTextDataURI(text, st) {
			continue
		}
		// a wrapped block's lines are joined only when its first bytes
		// decode to text (a key's body in a PEM block seldom does)
		v := text[st:en]
		if !prefixPrintableOf(runKindOf(segs, v), runHead(segs, v)) {
			if !probe && len(segs) <= 1 && binaryTailCredential(s.inner, v, linePrefix(text, st)) { // encoded6.go
				*out = append(*out, Finding{st, en, "encoded-secret"})
			}
			continue
		}
		if len(segs) > 1 {
			v = strings.Join(segs, "")
		}
		if probe {
			return true
		}
		if len(segs) <= 1 && runKind(v) == '%' && s.inner != nil {
			// percent-encoding maps byte to bytes: the secret's own bytes
			// are reported, the rest of the run (%7B%22token%22%3A%22) kept
			if plain, src := unpercent(v); plain != "" {
				for _, f := range s.inner.Scan(plain) {
					*out = append(*out, Finding{st + src[f.Start], st + src[f.End], "encoded-secret"})
				}
			}
			continue
		}
		switch {
		case s.holdsEncodedSecret(v, text[max(0, st-8):st]):
			*out = append(*out, Finding{st, en, "encoded-secret"})
		case len(segs) > 1 && s.holdsEncodedSecret(segs[0], ""):
			// a line that only looked like the first of a block
			*out = append(*out, Finding{st, st + len(segs[0]), "encoded-secret"})
		}
	}
	return false
}

// nextEncodedRun is the first run of encClass of minEncodedRun bytes or
// more that starts at i or after (st -1 when there is none), the letter
// of an escape before it (\n) left out. A run of minEncodedRun bytes or
// more holds the byte minEncodedRun-1 after any position before it: only
// that byte (j) is tested first (the scan reads one byte in sixteen of
// prose), and a run met is walked back to its start (never before i: what
// is before was read). Such a run holding j holds j-8 or j+8 too: when
// neither is of the class, no run from i to j+8 is long enough, and the
// walks over the short words of a log line or a command (most of the
// sweep's time on the secrets bench) are not made.
func nextEncodedRun(text string, i int) (st, e int) {
	for i+minEncodedRun <= len(text) {
		j := i + minEncodedRun - 1
		if !encClass[text[j]] {
			i = j + 1
			continue
		}
		if j+8 < len(text) && !encClass[text[j-8]] && !encClass[text[j+8]] {
			i = j + 9
			continue
		}
		st, e := j, j+1
		for st > i && encClass[text[st-1]] {
			st--
		}
		for e < len(text) && encClass[text[e]] {
			e++
		}
		i = e
		if st > 0 && text[st-1] == '\\' && (text[st] == 'n' || text[st] == 'r' || text[st] == 't') {
			st++ // the letter of an escape (\n) is not the run's
		}
		if e-st >= minEncodedRun {
			return st, e
		}
	}
	return -1, -1
}

// holdsEncodedSecret: the run v decodes to text in which the scanner one
// level deeper finds a secret, or to a credential by itself
// (decodedCredential, encoded5.go; before is the text in front of v).
func (s *Scanner) holdsEncodedSecret(v, before string) bool {
	dec, ok := decodeRun(v)
	if !ok {
		return binaryTailCredential(s.inner, v, before) // encoded6.go
	}
	return s.inner != nil && (len(s.inner.Scan(dec)) > 0 || decodedCredential(dec) && !basicScheme(before))
}

// b64Val: the value of a base64 or base64url digit, -1 for another byte.
var b64Val = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = int8(i)
	}
	t['-'], t['_'] = 62, 63
	return
}()

// quickText: the first 4 bytes of a base64 run decode to 3 bytes that text
// can start with (printable, a blank, NUL for UTF-16, a BOM's 0xfe/0xff):
// random base64 passes one time in twenty, and nothing is allocated. Hex,
// base32 and percent runs pass.
func quickText(v string) bool {
	if strings.IndexByte(v[:min(len(v), 48)], '%') >= 0 {
		return true
	}
	a, b, c, d := b64Val[v[0]], b64Val[v[1]], b64Val[v[2]], b64Val[v[3]]
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return true // hex 0x…, or percent-encoding: judged by prefixPrintable
	}
	w := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
	for _, x := range [3]byte{byte(w >> 16), byte(w >> 8), byte(w)} {
		if !(x >= 0x20 && x < 0x7f || x == '\t' || x == '\n' || x == '\r' || x == 0 || x >= 0xfe) {
			return isHexRun(v) || isB32Run(v)
		}
	}
	return true
}

func isHexRun(v string) bool {
	v = strings.TrimPrefix(v, "0x")
	for i := 0; i < min(len(v), 16); i++ {
		if !isHex(v[i]) {
			return false
		}
	}
	return true
}

func isB32Run(v string) bool {
	for i := 0; i < min(len(v), 16); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// wrappedRun: the run text[st:e] with its padding, and, when it is a line
// of a block wrapped at a fixed width (a multiple of 4, 40 columns at
// least), the lines after it: the segments and the block's end.
func wrappedRun(text string, st, e int) ([]string, int) {
	pad := func(e int) int {
		for k := 0; k < 6 && e < len(text) && text[e] == '='; k++ {
			e++
		}
		return e
	}
	width := e - st
	if width < 40 || width%4 != 0 || strings.IndexByte(text[st:e], '%') >= 0 {
		return nil, pad(e)
	}
	segs := []string{text[st:e]}
	last := st
	for {
		j := lineBreak(text, e)
		if j < 0 {
			break
		}
		k := j
		for k < len(text) && encClass[text[k]] && text[k] != '%' {
			k++
		}
		if k == j || k-j > width {
			break
		}
		segs = append(segs, text[j:k])
		e, last = k, j
		if k-j < width || e-st > maxEncodedRun {
			break
		}
	}
	e = pad(e)
	segs[len(segs)-1] = text[last:e]
	return segs, e
}

// lineBreak: where the next line starts after a newline at i (real or
// escaped as \n, \r\n), past the line number the Read tool or cat -n
// puts in front of it and the indentation a block keeps (nested YAML
// and XML go deeper than 8 columns); -1 if none.
func lineBreak(text string, i int) int {
	switch {
	case strings.HasPrefix(text[i:], "\r\n"):
		i += 2
	case strings.HasPrefix(text[i:], "\n"):
		i++
	case strings.HasPrefix(text[i:], `\r\n`):
		i += 4
	case strings.HasPrefix(text[i:], `\n`):
		i += 2
	default:
		return -1
	}
	i = skipLineNumber(text, i)
	for k := 0; k < 64 && i < len(text) && (text[i] == ' ' || text[i] == '\t'); k++ {
		i++
	}
	return i
}

// dottedToken: the run is one segment of a dotted token (a JWT, whose
// segments the jwt rule reads).
func dottedToken(text string, st, en int) bool {
	return st >= 2 && text[st-1] == '.' && isB64(text[st-2]) || en+1 < len(text) && text[en] == '.' && isB64(text[en+1])
}

// binaryMediaTypes are the media types (and type prefixes) of data that
// is not text.
var binaryMediaTypes = []string{"image/", "audio/", "video/", "font/", "application/pdf", "application/zip",
	"application/gzip", "application/x-gzip", "application/x-tar", "application/wasm", "application/vnd.", "application/x-font",
	"application/font", "application/x-protobuf", "application/protobuf", "application/x-msdownload"}

// nonTextDataURI: the run is the data of a data: URI (RFC 2397) whose
// media type is not text: an image, a PDF, audio, a font.
func nonTextDataURI(text string, st int) bool {
	if !strings.HasSuffix(text[:st], ";base64,") {
		return false
	}
	lo := max(0, st-120)
	k := strings.LastIndex(text[lo:st], "data:")
	if k < 0 {
		return true // base64 of a media type not named: judged binary
	}
	// binary only when the media type says so: none is text/plain (RFC
	// 2397 §2), and a generic type (application/octet-stream, x-yaml,
	// x-sh: how a browser uploads a .env) is judged by the bytes
	mt := strings.ToLower(text[lo+k+5 : st])
	for _, b := range binaryMediaTypes {
		if strings.HasPrefix(mt, b) {
			return true
		}
	}
	return false
}

// runKind names the encoding a run is read in: percent-encoding when it
// holds %XX, hex when every byte is a hex digit (`0x` allowed), base32
// when upper-case letters and 2–7 in blocks of 8, base64 otherwise.
func runKind(v string) byte { return runKindOf(nil, v) }

// runKindOf is runKind of the run made of the lines segs, joined (v when
// segs has fewer than two), without joining them.
func runKindOf(segs []string, v string) byte {
	head := runHead(segs, v)
	if len(segs) < 2 {
		segs = []string{v}
	}
	n := 0
	for _, sg := range segs {
		if strings.IndexByte(sg, '%') >= 0 {
			return '%'
		}
		n += len(sg)
	}
	off := 0 // a `0x` before hex digits
	if strings.HasPrefix(head, "0x") {
		off = 2
	}
	hexOnly, b32 := (n-off)%2 == 0, n%8 == 0
	j := 0 // the place in the joined run
	for _, sg := range segs {
		for i := 0; i < len(sg) && (hexOnly || b32); i, j = i+1, j+1 {
			c := sg[i]
			if j >= off && !isHex(c) {
				hexOnly = false
			}
			if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' || c == '=') {
				b32 = false
			}
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

// runPrefix is how many of a run's first bytes prefixPrintable decodes at
// most.
const runPrefix = 48

// runHead is the first runPrefix bytes of the run made of the lines segs,
// joined (v when segs has fewer than two); it joins lines only when the
// first is shorter than that.
func runHead(segs []string, v string) string {
	if len(segs) < 2 {
		return v[:min(len(v), runPrefix)]
	}
	if len(segs[0]) >= runPrefix {
		return segs[0][:runPrefix]
	}
	var b []byte
	for _, sg := range segs {
		b = append(b, sg[:min(len(sg), runPrefix-len(b))]...)
		if len(b) == runPrefix {
			break
		}
	}
	return string(b)
}

// prefixPrintableOf: the first bytes of a run of encoding kind (runKind),
// head (runHead), decode to printable text (UTF-16 text too), and not to a
// media file's magic (%PDF). Up to 48 bytes are decoded, into an array of
// its own.
func prefixPrintableOf(kind byte, head string) bool {
	var b []byte
	var buf [runPrefix]byte
	v := head
	switch kind {
	case '%':
		p, _ := unpercent(v[:min(len(v), 48)])
		if p == "" {
			p = v[:min(len(v), 48)] // its escapes come later (%3D%3D)
		}
		b = append(buf[:0], p...)
	case 'x':
		h := strings.TrimPrefix(v, "0x")
		n, _ := hex.Decode(buf[:], []byte(h[:min(len(h), 32)]))
		b = buf[:n]
	case '2':
		n, _ := base32.StdEncoding.Decode(buf[:], []byte(v[:min(len(v), 32)]))
		b = buf[:n]
	default:
		// the first byte of text is 0x20-0x7e (its base64 starts I-Z or
		// a-f), a UTF-16BE NUL (A) or a BOM (+, /): a token, a word or a
		// path is passed over before any decoding
		if c := v[0]; !(c >= 'I' && c <= 'Z' || c >= 'a' && c <= 'f' || c == 'A' || c == '+' || c == '/') {
			return false
		}
		b, _ = decodeB64To(buf[:0], v[:min(len(v), 32)/4*4])
	}
	if len(b) < 8 || strings.HasPrefix(string(b), "%PDF") {
		return false
	}
	if t, ok := fromUTF16(b); ok {
		b = t
	}
	return printableText(trimPartialRune(b))
}

// decodeRun decodes a run in its encoding (runKind) to printable text.
func decodeRun(v string) (string, bool) {
	var b []byte
	var err error
	switch runKind(v) {
	case '%':
		p, _ := unpercent(v)
		b = []byte(p)
	case 'x':
		b, err = hex.DecodeString(strings.TrimPrefix(v, "0x"))
	case '2':
		b, err = base32.StdEncoding.DecodeString(v)
	default:
		var ok bool
		if b, ok = decodeB64(v); !ok {
			return "", false
		}
	}
	if err != nil || len(b) < 12 {
		return "", false
	}
	if t, ok := fromUTF16(b); ok {
		b = t
	}
	if !printableText(b) {
		return "", false
	}
	return string(b), true
}

// fromUTF16: b as UTF-16LE or BE text (a BOM, or a NUL in every other
// byte of its first eight) made UTF-8.
func fromUTF16(b []byte) ([]byte, bool) {
	if len(b) < 8 {
		return nil, false
	}
	le := b[0] == 0xff && b[1] == 0xfe || b[1] == 0 && b[3] == 0 && b[5] == 0 && b[7] == 0 && b[0] != 0
	be := b[0] == 0xfe && b[1] == 0xff || b[0] == 0 && b[2] == 0 && b[4] == 0 && b[6] == 0 && b[1] != 0
	if !le && !be {
		return nil, false
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if le {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		} else {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
	}
	if len(u) > 0 && u[0] == 0xfeff {
		u = u[1:]
	}
	return []byte(string(utf16.Decode(u))), true
}

// trimPartialRune drops the bytes of a rune the prefix cut.
func trimPartialRune(b []byte) []byte {
	for k := 0; k < 3 && len(b) > 0 && b[len(b)-1] >= 0x80; k++ {
		b = b[:len(b)-1]
	}
	return b
}

// cEscapeRule: C, JavaScript and Python string escapes (ISO C 6.4.4.4,
// ECMA-262 §12.9.4, Python's string literals): a line with four numeric
// escapes or more (\xHH, \ooo, \uHHHH, \UHHHHHHHH) is decoded once and
// scanned again; a secret found there is reported over the bytes that
// wrote it.
func cEscapeRule() *Rule {
	return &Rule{ID: "encoded-secret", Anchors: []string{`\x`, `\0`, `\1`, `\2`, `\3`}, Priority: prioContext,
		find: findDecodedLines(unescapeC), emits: []string{"encoded-secret"}}
}

// unescapeC decodes the escapes of s once; src as unescapeJSON's. "" when
// s holds fewer than four numeric escapes.
func unescapeC(s string) (string, []int) {
	var b []byte
	var src []int
	n := 0
	put := func(r rune, at int) {
		for _, c := range []byte(string(r)) {
			b = append(b, c)
			src = append(src, at)
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			b, src = append(b, s[i]), append(src, i)
			i++
			continue
		}
		c := s[i+1]
		switch {
		case c == 'x' && i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]):
			b, src = append(b, unhex(s[i+2])<<4|unhex(s[i+3])), append(src, i)
			i += 4
			n++
		case c >= '0' && c <= '7':
			k, v := i+1, 0
			for k < len(s) && k < i+4 && s[k] >= '0' && s[k] <= '7' {
				v = v*8 + int(s[k]-'0')
				k++
			}
			if v > 255 {
				b, src = append(b, s[i]), append(src, i)
				i++
				continue
			}
			b, src = append(b, byte(v)), append(src, i)
			i = k
			n++
		case (c == 'u' || c == 'U') && i+6 <= len(s):
			w := 4
			if c == 'U' {
				w = 8
			}
			if i+2+w > len(s) {
				b, src = append(b, s[i]), append(src, i)
				i++
				continue
			}
			r, ok := 0, true
			for _, d := range []byte(s[i+2 : i+2+w]) {
				if !isHex(d) {
					ok = false
					break
				}
				r = r<<4 | int(unhex(d))
			}
			if !ok || r > 0x10ffff {
				b, src = append(b, s[i]), append(src, i)
				i++
				continue
			}
			put(rune(r), i)
			i += 2 + w
			n++
		default:
			b, src = append(b, s[i]), append(src, i)
			i++
		}
	}
	if n < 4 {
		return "", nil
	}
	return string(b), append(src, len(s))
}
