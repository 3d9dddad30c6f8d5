package redact

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Secrets hidden by an encoding, fourth round (issue 31, the encoded
// family; dev set testdata/dev-encoded4.txt). One principle per encoding
// the earlier rounds did not read:
//
//   - a list of byte values written as code writes them (Go []byte{0x67,
//     …}, Java new byte[]{103, …}, C arrays, Python bytes([…]), JS
//     String.fromCharCode(…) and Buffer.from([…])): the list decoded to
//     text and scanned; the whole list is reported;
//   - braced and numeric escapes (\u{67} of ES6/Rust/Swift, \x{67} of
//     Perl, HTML's &#x67; and &#103;) and XML escaped inside XML
//     (&lt;password&gt;): decoded and scanned, reported over the bytes
//     that wrote the secret;
//   - a hex dump (xxd, hexdump -C) of a file: its hex column decoded, and
//     every dump line holding a byte of a secret reported whole (its
//     ASCII column shows the secret too);
//   - SASL PLAIN (RFC 4616: base64 of authzid NUL user NUL password) after
//     AUTH PLAIN / AUTHENTICATE PLAIN, and SASL LOGIN's answer to the
//     server's base64 "Password:" prompt (RFC 4954 §4, the LOGIN draft);
//   - zlib (RFC 1950, default compression: base64 eJw…eJz) under base64,
//     and gzip or zlib under base64 wrapped at a fixed width;
//   - a URL or a value percent-encoded twice, or once with nothing but
//     the encoded "://" to show it (%3A%2F%2F, %2522, %253D);
//   - a literal handed to an encoding function (Helm's b64enc,
//     Terraform's base64encode, JS btoa): judged as the plain value it is,
//     with the name it is assigned to;
//   - Yarn's npmAuthIdent, base64 of user:password as .npmrc's _auth.
//
// Hooked into the core by builtinRules (rules.go), after generalRules;
// every rule is gated by literal anchors of its structure.
func encoded4Rules() []*Rule {
	return []*Rule{
		{ID: "encoded-secret", Anchors: byteListAnchors, Fold: true, Priority: prioContext,
			find: findByteLists, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{`\u{`, `\x{`, "&#x", "&#1", "&#4", "&#5", "&#6", "&#7", "&#8", "&#9", "&lt;"}, Fold: true, Priority: prioContext,
			find: findDecodedLines(unescapeRefs), emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"00000000: ", "00000010: ", "00000000  ", "00000010  "}, Priority: prioContext,
			find: findHexDumps, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"auth plain", "authenticate plain"}, Fold: true, Priority: prioContext,
			find: findSASLPlain, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"UGFzc3dvcmQ6", "cGFzc3dvcmQ6"}, Priority: prioContext,
			find: findSASLLogin, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"eJw", "eJx", "eJy", "eJz", "H4sI"}, Priority: prioContext,
			find: findCompressedB64, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"%3a%2f%2f", "%2522", "%253d", "%253a"}, Fold: true, Priority: prioContext,
			find: findPercentURLs, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"b64enc", "base64encode(", "btoa("}, Fold: true, Priority: prioContext,
			find: findDecodedLines(unwrapEncodeCalls), emits: []string{"encoded-secret"}},
		{ID: "basic-auth", Anchors: []string{"npmAuthIdent"}, Fold: true, After: 200, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i)npmAuthIdent["']?[ \t]*[:=][ \t]*["']?(?P<s>[A-Za-z0-9+/]{8,}={0,2})`),
			Check: checkBasic},
	}
}

// ---- byte lists

// byteListAnchors: the containers code writes a list of bytes in, and a
// hex list's separator (", 0x": the list is read back from the hit).
var byteListAnchors = []string{"byte{", "byte[]{", "byte[] {", "uint8{", "bytes([", "bytearray([", "fromcharcode(",
	"buffer.from([", "uint8array([", "[] = {", "[]={", ", 0x", ",0x"}

// findByteLists: at each hit, the list of numbers around it (0xHH or
// decimal, 255 at most, separated by commas, over lines too), at least 8
// of them, decoded to printable text in which the built-in rules find a
// secret: the list is reported.
func findByteLists(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		s, e, b := byteListAt(text, p)
		done = max(done, e, p+1)
		if len(b) < 8 || !printableText(b) {
			continue
		}
		if len(plainScanner().Scan(string(b))) > 0 {
			emit(s, e, "encoded-secret")
		}
	}
}

// byteListAt: the list of byte values holding position p (or starting
// after the container's opening at p): its span and its bytes.
func byteListAt(text string, p int) (int, int, []byte) {
	isListByte := func(c byte) bool {
		return isHex(c) || c == 'x' || c == 'X' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
	}
	lo := p
	if text[p] == ',' {
		for lo > 0 && p-lo < 8000 && isListByte(text[lo-1]) {
			lo--
		}
	} else {
		// a container: the list starts after the opening bracket a
		// number follows (byte[]{1, …: not the [ of the type)
		for lo < len(text) && lo-p < 24 {
			c := text[lo]
			lo++
			if c == '{' || c == '[' || c == '(' {
				k := lo
				for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r') {
					k++
				}
				if k < len(text) && isDigit(text[k]) {
					break
				}
			}
		}
	}
	// the first number: skip what is not one (a word's hex letters)
	var b []byte
	i, s, e := lo, -1, -1
	for i < len(text) && i-lo < 16000 {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
		v, n := byteValue(text[i:])
		if n == 0 {
			if s < 0 && i < p && i < len(text) && isListByte(text[i]) {
				// a partial word before the list: move to the next comma
				k := strings.IndexByte(text[i:min(len(text), p+1)], ',')
				if k < 0 {
					break
				}
				i += k + 1
				continue
			}
			break
		}
		if s < 0 {
			s = i
		}
		b = append(b, v)
		i += n
		e = i
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) || text[i] != ',' {
			break
		}
		i++
	}
	if s < 0 {
		return p, p + 1, nil
	}
	return s, e, b
}

// byteValue: the number at the start of s (0xHH, or decimal up to 255)
// and its length, not followed by another token byte; 0 when none.
func byteValue(s string) (byte, int) {
	n := 0
	var v uint64
	var err error
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		n = 2
		for n < len(s) && n < 5 && isHex(s[n]) {
			n++
		}
		if n == 2 {
			return 0, 0
		}
		v, err = strconv.ParseUint(s[2:n], 16, 16)
	default:
		for n < len(s) && n < 4 && isDigit(s[n]) {
			n++
		}
		if n == 0 {
			return 0, 0
		}
		v, err = strconv.ParseUint(s[:n], 10, 16)
	}
	if err != nil || v > 255 || n < len(s) && (isAlnum(s[n]) || s[n] == '.' || s[n] == '_') {
		return 0, 0
	}
	return byte(v), n
}

// ---- braced and numeric escapes

// unescapeRefs decodes \u{H…}, \x{H…}, &#xH…; and &#D…; and the named
// references of XML (&lt; &gt; &amp; &quot; &apos;) once; src as
// unescapeJSON's. "" when nothing was decoded.
func unescapeRefs(s string) (string, []int) {
	var b []byte
	var src []int
	changed := false
	put := func(r rune, at int) {
		for _, c := range []byte(string(r)) {
			b = append(b, c)
			src = append(src, at)
		}
	}
next:
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+3 < len(s) && (s[i+1] == 'u' || s[i+1] == 'x') && s[i+2] == '{' {
			if k := strings.IndexByte(s[i+3:min(len(s), i+12)], '}'); k > 0 {
				if v, err := strconv.ParseUint(s[i+3:i+3+k], 16, 32); err == nil && v <= 0x10ffff {
					put(rune(v), i)
					i += 4 + k
					changed = true
					continue
				}
			}
		}
		if c == '&' && i+2 < len(s) {
			if s[i+1] == '#' {
				k := strings.IndexByte(s[i+2:min(len(s), i+12)], ';')
				if k > 0 {
					num, base := s[i+2:i+2+k], 10
					if num[0] == 'x' || num[0] == 'X' {
						num, base = num[1:], 16
					}
					if v, err := strconv.ParseUint(num, base, 32); err == nil && v <= 0x10ffff && v > 0 {
						put(rune(v), i)
						i += 3 + k
						changed = true
						continue
					}
				}
			}
			for _, r := range xmlRefs {
				if strings.HasPrefix(s[i:], r.ref) {
					put(rune(r.c), i)
					i += len(r.ref)
					changed = true
					continue next
				}
			}
		}
		b, src = append(b, c), append(src, i)
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(src, len(s))
}

// xmlRefs: XML's five predefined entities, and HTML5's named references
// of the other ASCII punctuation a URL, an assignment or a token holds
// (PHP's htmlentities writes them with ENT_HTML5; encoded5.go).
var xmlRefs = []struct {
	ref string
	c   byte
}{{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''},
	{"&colon;", ':'}, {"&sol;", '/'}, {"&commat;", '@'}, {"&lowbar;", '_'}, {"&equals;", '='}, {"&period;", '.'},
	{"&excl;", '!'}, {"&num;", '#'}, {"&dollar;", '$'}, {"&percnt;", '%'}, {"&plus;", '+'}, {"&quest;", '?'},
	{"&comma;", ','}, {"&semi;", ';'}, {"&ast;", '*'}, {"&lpar;", '('}, {"&rpar;", ')'}, {"&lsqb;", '['},
	{"&rsqb;", ']'}, {"&lcub;", '{'}, {"&rcub;", '}'}, {"&bsol;", '\\'}, {"&Hat;", '^'}, {"&grave;", '`'},
	{"&verbar;", '|'}, {"&NewLine;", '\n'}, {"&Tab;", '\t'}}

// ---- hex dumps

// findHexDumps: at the first lines of a dump (offsets 0 and 0x10), the
// dump's lines in xxd's form (00000000: 4150 505f …  APP_…) or hexdump
// -C's (00000000  41 50 50 5f …  |APP_…|); the bytes of their hex columns
// decoded and, when they are text, scanned; every line holding a byte of
// a secret is reported whole.
func findHexDumps(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done || p > 0 && text[p-1] != '\n' && text[p-1] != ' ' && text[p-1] != '\t' {
			continue
		}
		var data []byte
		var lineOf []int   // the line of each byte
		var spans [][2]int // each line's span
		for q := p; q < len(text) && len(data) < 64<<10; {
			end := strings.IndexByte(text[q:], '\n')
			if end < 0 {
				end = len(text)
			} else {
				end += q
			}
			b, ok := dumpLine(text[q:end])
			if !ok {
				break
			}
			for range b {
				lineOf = append(lineOf, len(spans))
			}
			data = append(data, b...)
			spans = append(spans, [2]int{q, end})
			q = end + 1
		}
		if len(spans) > 0 {
			done = spans[len(spans)-1][1]
		}
		if len(data) < 8 || !printableText(data) {
			continue
		}
		last := -1
		for _, f := range plainScanner().Scan(string(data)) {
			a, z := lineOf[f.Start], lineOf[f.End-1]
			if a <= last {
				a = last + 1
			}
			if a > z {
				continue
			}
			emit(spans[a][0], spans[z][1], "encoded-secret")
			last = z
		}
	}
}

// dumpLine: the bytes of one line of a hex dump: an offset (4 hex digits
// or more, 0x in front for tcpdump -X, a colon after for xxd), then the
// hex column in groups of 2, 4 or 8 digits (xxd, hexdump -C, od -t x1,
// tcpdump -X, Wireshark), 32 bytes at most, up to the text column: two
// blanks or more (one gap of two after 8 single bytes is hexdump -C's and
// Wireshark's middle), a '|' or a '>'.
func dumpLine(l string) ([]byte, bool) {
	l = strings.TrimLeft(l, " \t")
	k := 0
	if strings.HasPrefix(l, "0x") {
		k = 2
	}
	d := k
	for d < len(l) && isHex(l[d]) {
		d++
	}
	if d-k < 4 || d >= len(l) {
		return nil, false
	}
	rest := l[d:]
	switch {
	case rest[0] == ':':
		rest = rest[1:]
	case rest[0] != ' ':
		return nil, false
	}
	var b []byte
	single := true // every group so far one byte
	for i := 0; ; {
		j := i
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		if j == i && i > 0 || j >= len(rest) || rest[j] == '|' || rest[j] == '>' {
			break
		}
		if len(b) > 0 && j-i >= 2 && !(j-i == 2 && len(b) == 8 && single) {
			break
		}
		e := j
		for e < len(rest) && isHex(rest[e]) {
			e++
		}
		g := e - j
		if g == 0 || g%2 != 0 || g > 8 || e < len(rest) && rest[e] != ' ' || len(b)+g/2 > 32 {
			if len(b) == 0 {
				return nil, false
			}
			break
		}
		single = single && g == 2
		for x := j; x < e; x += 2 {
			b = append(b, unhex(rest[x])<<4|unhex(rest[x+1]))
		}
		i = e
	}
	return b, len(b) > 0
}

// ---- SASL

// findSASLPlain: the base64 after AUTH PLAIN (SMTP, POP3) or AUTHENTICATE
// PLAIN (IMAP), on its line or, after the server's empty 334/+ challenge,
// on a following line: reported when it decodes to authzid NUL user NUL
// password with a password (not a placeholder: user\0password).
func findSASLPlain(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		i := p + strings.IndexByte(text[p:], ' ')
		i += len(" plain")
		s, e := nextB64Token(text, i, 160)
		if s < 0 {
			continue
		}
		b, ok := decodeB64(text[s:e])
		if !ok {
			continue
		}
		parts := bytes.Split(b, []byte{0})
		if len(parts) != 3 || len(parts[2]) < 4 || len(parts[1]) == 0 || !printableText(parts[2]) {
			continue
		}
		if plausibleValue(string(parts[2]), kindPassword, true) {
			emit(s, e, "encoded-secret")
		}
	}
}

// findSASLLogin: the client's answer to the server's base64 "Password:"
// (UGFzc3dvcmQ6; "password:" lower case) in SMTP AUTH LOGIN: the first
// base64 token of the next line, when it decodes to a printable value.
func findSASLLogin(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos) + len("UGFzc3dvcmQ6")
		nl := strings.IndexByte(text[p:], '\n')
		if nl < 0 {
			continue
		}
		s, e := nextB64Token(text, p+nl+1, 40)
		if s < 0 || strings.IndexByte(text[p+nl+1:s], '\n') >= 0 {
			continue
		}
		b, ok := decodeB64(text[s:e])
		if !ok || len(b) < 6 || !printableText(b) {
			continue
		}
		if pw := string(b); plausibleValue(pw, kindPassword, true) {
			emit(s, e, "encoded-secret")
		}
	}
}

// nextB64Token: the next whole base64 token (8 bytes at least) within n
// bytes after i, passing over a log's speaker marks (C:, S:, >, <) and a
// server's 334 or + challenge line; -1 when none.
func nextB64Token(text string, i, n int) (int, int) {
	hi := min(len(text), i+n)
	for i < hi {
		c := text[i]
		if !isB64(c) {
			i++
			continue
		}
		e := b64RunEnd(text, i)
		if e-i >= 8 && (e == len(text) || !isAlnum(text[e]) && text[e] != ':') {
			return i, e
		}
		i = e + 1
	}
	return -1, -1
}

// ---- compressed under base64

// findCompressedB64: base64 of zlib (78 9c: eJw…eJz) or gzip (H4sI),
// wrapped at a fixed width or not, inflated (64 KB at most) to text in
// which the built-in rules find a secret: the whole block is reported.
func findCompressedB64(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		s := int(h.pos)
		if s > 0 && isB64URLOrDot(text[s-1]) {
			continue
		}
		e := b64RunEnd(text, s)
		if e-s < 16 || e < len(text) && isB64URLOrDot(text[e]) {
			continue
		}
		v := text[s:e]
		if segs, en := wrappedRun(text, s, e); len(segs) > 1 {
			v, e = strings.Join(segs, ""), en
		}
		b, ok := decodeB64(v)
		if !ok || len(b) < 8 {
			continue
		}
		plain, ok := inflate(b)
		if ok && printableText(plain) && holdsSecret(linePrefix(text, s), string(plain), "") {
			emit(s, e, "encoded-secret")
		}
	}
}

// inflate: b decompressed as gzip or zlib, 64 KB at most.
func inflate(b []byte) ([]byte, bool) {
	var zr io.Reader
	var err error
	if b[0] == 0x1f {
		zr, err = gzip.NewReader(bytes.NewReader(b))
	} else {
		zr, err = zlib.NewReader(bytes.NewReader(b))
	}
	if err != nil {
		return nil, false
	}
	plain, err := io.ReadAll(io.LimitReader(zr, 64<<10))
	return plain, err == nil || err == io.ErrUnexpectedEOF
}

// ---- percent-encoding

// findPercentURLs: findPercentEncoded for the runs that hold an encoded
// "://" or a second level of encoding, decoded by unpercentURL.
func findPercentURLs(text string, hits []hit, emit func(s, e int, id string)) {
	findPercentRuns(unpercentURL, text, hits, emit)
}

// unpercentURL is unpercent keeping %23 encoded: a '#' decoded inside a
// URL would end it (RFC 3986 §3.5) though it was a byte of its password
// (https%3A%2F%2Fci%3Ap%23w%40host: the password is p#w); %23 is read as
// a byte of the value it stands in.
func unpercentURL(s string) (string, []int) {
	var b []byte
	var src []int
	for i := 0; i < len(s); {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) && !(s[i+1] == '2' && s[i+2] == '3') {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			src = append(src, i)
			i += 3
			continue
		}
		b, src = append(b, s[i]), append(src, i)
		i++
	}
	if len(b) == len(s) {
		return "", nil
	}
	return string(b), append(src, len(s))
}

// ---- literals given to an encoding function

// encodeCallRe: a quoted literal piped to a template's encoding filter
// ({{ "…" | b64enc }}, Ansible's b64encode) or given to an encoding call
// (base64encode("…"), btoa('…')).
var encodeCallRe = regexp.MustCompile(`\{\{-?\s*("[^"\n]{1,200}"|'[^'\n]{1,200}')\s*\|\s*b64enc(?:ode)?\b[^}\n]*\}\}|(?i:base64encode|btoa)\(\s*("[^"\n]{1,200}"|'[^'\n]{1,200}')\s*\)`)

// unwrapEncodeCalls rewrites each such expression of s as its literal
// (NAME: {{ "x" | b64enc }} reads NAME: "x"); src as unescapeJSON's.
func unwrapEncodeCalls(s string) (string, []int) {
	ms := encodeCallRe.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return "", nil
	}
	var b []byte
	var src []int
	at := 0
	for _, m := range ms {
		ls, le := m[2], m[3]
		if ls < 0 {
			ls, le = m[4], m[5]
		}
		for i := at; i < m[0]; i++ {
			b, src = append(b, s[i]), append(src, i)
		}
		for i := ls; i < le; i++ {
			b, src = append(b, s[i]), append(src, i)
		}
		at = m[1]
	}
	for i := at; i < len(s); i++ {
		b, src = append(b, s[i]), append(src, i)
	}
	return string(b), append(src, len(s))
}
