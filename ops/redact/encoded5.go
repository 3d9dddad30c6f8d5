package redact

import (
	"encoding/ascii85"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Secrets hidden by an encoding, fifth round (issue 31, the encoded
// family; dev set testdata/dev-encoded5.txt). The rounds before were
// written against their own examples; this one against the reasons an
// encoded secret is missed, one principle per reason:
//
//   - (a) the decoder never saw the whole span. Literals joined by an
//     operator ("…" + "…", '…' . '…', "…" & _, adjacent "…" "…", arrays of
//     fixed-width lines) are joined and scanned as the one string the
//     program builds (concatRule); a block's continuation lines may carry
//     any indentation and the Read tool's or cat -n's line numbers
//     (lineBreak, anywhere.go); a data: URI is binary only when its media
//     type says so (RFC 2397: none is text/plain; nonTextDataURI);
//     quoted-printable's soft line breaks (RFC 2045 §6.7) are removed
//     before its =XX escapes are read (qpSoftRule).
//   - (b) the decoded text is judged without a name. Some decoded shapes
//     are credentials by themselves: ident:secret with a secret that is
//     strong by itself (RFC 7617's user-pass, Elasticsearch's ApiKey
//     id:api_key) wherever its encoding stands (decodedCredential, called
//     by the sweep); every value of a Kubernetes Secret's data is a secret
//     by declaration, so a decoded value that looks generated is one under
//     any key (checkSecretDataValue, keys.go's rule).
//   - (c) the decoded text is encoded again differently: the decoders
//     below hand their text to the whole scanner (plainScanner, with its
//     sweep), so base64 in HTML5 references or in a byte list is read too.
//   - (d) encodings the sweep did not know: Ascii85 (<~ ~>, Adobe) and
//     RFC 1924 base85 (Python's a85decode/b85decode calls, encoded.go);
//     uuencode; hex behind PostgreSQL bytea's \x; hex dumps of tcpdump -X,
//     od -t x1z and Wireshark (dumpLine, encoded4.go); decimal byte lists
//     in any bracket (Node's Buffer JSON, Python's list(bytes), SQL
//     CHAR(…), PowerShell [char[]](…)); HTML5's named character
//     references of ASCII punctuation (&colon; &sol; &commat;: PHP's
//     htmlentities with ENT_HTML5; xmlRefs, encoded4.go).
//
// Not read, on purpose: %uXXXX (JavaScript's escape() writes it only
// above U+00FF, never for a secret's ASCII), punycode (host labels only),
// base36 and base58 (identifiers, not text encodings).
//
// Hooked into the core by builtinRules (rules.go), after encoded4Rules;
// every rule is gated by literal anchors of its structure.
func encoded5Rules() []*Rule {
	return []*Rule{
		{ID: "encoded-secret", Anchors: concatAnchors, Priority: prioContext,
			find: findConcatenated, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: decimalListAnchors(), Priority: prioContext,
			find: findByteLists, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"0x0000:", "0x0010:", "000000 ", "000010 ", "0000  ", "0010  "}, Priority: prioContext,
			find: findHexDumps, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: html5RefAnchors, Priority: prioContext,
			find: findDecodedLines(unescapeRefs), emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"=3d", "=20", "quoted-printable"}, Fold: true, Priority: prioContext,
			find: findQPSoft, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"<~"}, Priority: prioContext,
			find: findAscii85, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"begin 6", "begin 4", "begin 7"}, Priority: prioContext,
			find: findUuencoded, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{`\x`}, Priority: prioContext,
			find: findByteaHex, emits: []string{"encoded-secret"}},
	}
}

// ---- (a) concatenated literals

// concatAnchors: a literal's closing quote and what joins it to the next:
// an operator (+ . &, a comma ending a line of an array), a line
// continuation, or a newline and the next line's indentation. Three bytes
// each: a two-byte anchor such as "\n or ", would let a position in every
// line of code and JSON through the prefilter (literals glued with
// nothing between, "…""…", and one-line arrays are left out for that
// reason).
var concatAnchors = func() []string {
	var a []string
	for _, q := range []string{`"`, `'`} {
		for _, j := range []string{"+" + q, "+ ", "+\n", " +", "." + q, ". ", " .", " &", " \\", "\n ", "\n\t", ",\n"} {
			a = append(a, q+j)
		}
	}
	return a
}()

// decimalListAnchors: a bracket and the first two digits of a printable
// byte's value (32 to 126), where a list of byte values starts; the
// containers a list is printed in without a number right after them.
func decimalListAnchors() []string {
	a := []string{"data: [", `"data":[`, `"data": [`}
	for _, b := range []string{"[", "("} {
		for v := 32; v <= 126; v++ {
			if d := fmt.Sprint(v)[:2]; !slices.Contains(a, b+d) {
				a = append(a, b+d)
			}
		}
	}
	return a
}

// isLitByte: a byte of an encoded literal (base64, base64url, hex, a
// token's own alphabet).
func isLitByte(c byte) bool { return isB64(c) || c == '-' || c == '_' || c == '=' || c == '.' }

// findConcatenated: at a literal's closing quote, the chain of literals
// joined to it (each made only of an encoding's bytes, 4 at least; 8 for
// the first), joined into the string the program builds and scanned with
// the whole scanner: when it holds a secret, the chain from the first
// literal's first byte to the last one's last byte is reported.
func findConcatenated(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		q := text[p]
		st := p
		for st > 0 && p-st < 16000 && isLitByte(text[st-1]) {
			st--
		}
		if p-st < 8 || st == 0 || text[st-1] != q {
			continue
		}
		var parts []string
		parts = append(parts, text[st:p])
		end, i := p, p+1
		for len(parts) < 200 {
			j, comma := skipJoiner(text, i)
			if j < 0 || j >= len(text) || text[j] != q {
				break
			}
			k := j + 1
			for k < len(text) && k-j < 16000 && isLitByte(text[k]) {
				k++
			}
			if k >= len(text) || text[k] != q || k-j-1 < 4 {
				break
			}
			// an array of lines: the lines before a comma are one width
			if comma && (len(parts[len(parts)-1]) < 40 || len(parts) > 1 && len(parts[len(parts)-1]) != len(parts[0])) {
				break
			}
			parts = append(parts, text[j+1:k])
			end, i = k, k+1
		}
		done = end
		if len(parts) < 2 {
			continue
		}
		joined := strings.Join(parts, "")
		if len(joined) < 24 {
			continue
		}
		if len(plainScanner().Scan(joined)) > 0 {
			emit(st, end, "encoded-secret")
		}
	}
}

// skipJoiner: after a literal's closing quote at i-1, where the next
// literal's opening quote may be: past blanks, newlines, one operator (+
// . & , .. ||) and a line continuation (\ or VB's _ before a newline);
// -1 when something else stands there. comma: the operator was a comma.
func skipJoiner(text string, i int) (int, bool) {
	ops, comma := 0, false
	for n := 0; i < len(text) && n < 24; n++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case (c == '\\' || c == '_') && i+1 < len(text) && (text[i+1] == '\n' || text[i+1] == '\r'):
			i++
		case ops == 0 && (c == '+' || c == '&' || c == ','):
			ops, comma = 1, c == ','
			i++
		case ops == 0 && (c == '.' || c == '|'):
			ops = 1
			i++
			if i < len(text) && text[i] == c {
				i++
			}
		default:
			return i, comma
		}
	}
	return -1, false
}

// ---- (a) quoted-printable soft line breaks

// findQPSoft: around a quoted-printable escape, the lines joined by soft
// line breaks (a line ending in '='), decoded (RFC 2045 §6.7: the break
// removed, =XX read) and scanned; a secret found is reported over the
// bytes that wrote it. Lines without a soft break are encoded.go's.
func findQPSoft(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		lo := strings.LastIndexByte(text[:p], '\n') + 1
		for n := 0; lo >= 2 && n < 200 && softBreakBefore(text, lo); n++ {
			lo = strings.LastIndexByte(text[:lo-1], '\n') + 1
		}
		hi := p
		for n := 0; n < 200; n++ {
			e := strings.IndexByte(text[hi:], '\n')
			if e < 0 {
				hi = len(text)
				break
			}
			hi += e
			if !softBreakBefore(text, hi+1) {
				break
			}
			hi++
		}
		done = hi
		plain, src := unescapeQPSoft(text[lo:hi])
		if plain == "" {
			continue
		}
		for _, f := range plainScanner().Scan(plain) {
			emit(lo+src[f.Start], lo+src[f.End], "encoded-secret")
		}
	}
}

// softBreakBefore: the line that ends just before i (a newline at i-1)
// ends with a soft line break ("=\n" or "=\r\n").
func softBreakBefore(text string, i int) bool {
	j := i - 1
	if j > 0 && text[j-1] == '\r' {
		j--
	}
	return j >= 1 && text[j-1] == '='
}

// unescapeQPSoft decodes quoted-printable with its soft line breaks; src
// as unescapeJSON's. "" when s holds no soft break.
func unescapeQPSoft(s string) (string, []int) {
	var b []byte
	var src []int
	soft := false
	for i := 0; i < len(s); {
		if s[i] == '=' {
			switch {
			case strings.HasPrefix(s[i+1:], "\r\n"):
				i += 3
				soft = true
				continue
			case strings.HasPrefix(s[i+1:], "\n"):
				i += 2
				soft = true
				continue
			case i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
				b, src = append(b, unhex(s[i+1])<<4|unhex(s[i+2])), append(src, i)
				i += 3
				continue
			}
		}
		b, src = append(b, s[i]), append(src, i)
		i++
	}
	if !soft {
		return "", nil
	}
	return string(b), append(src, len(s))
}

// ---- (b) decoded shapes that are credentials by themselves

// decodedCredential: dec (what an encoded run decodes to) is one
// ident:secret pair whose secret is strong by itself: an identifier
// (user, e-mail, key id) and a password or key with three character
// classes, or 16 characters of high entropy. Digest labels (sha256:…),
// URLs and placeholders are not.
func decodedCredential(dec string) bool {
	dec = strings.TrimRight(dec, "\r\n")
	i := strings.IndexByte(dec, ':')
	if i < 2 || i > 64 || len(dec)-i-1 < 8 || len(dec)-i-1 > 128 {
		return false
	}
	ident, pw := dec[:i], dec[i+1:]
	if k := strings.LastIndexByte(pw, '@'); k > 0 && isHostPort(pw[k+1:]) {
		pw = pw[:k] // an authority without its scheme: user:pass@host:port
	}
	for k := 0; k < len(ident); k++ {
		if c := ident[k]; !isAlnum(c) && c != '.' && c != '_' && c != '-' && c != '@' && c != '+' {
			return false
		}
	}
	// one pair: a second colon makes a list of fields (a cursor, a time)
	if digestLabel[strings.ToLower(ident)] || strings.ContainsAny(pw, ": \t\n") || chain.IsUUID(pw) {
		return false
	}
	if !plausibleValue(pw, kindPassword, true) {
		return false
	}
	c := classOf(pw)
	return c.kinds() >= 3 || len(pw) >= 16 && c.kinds() >= 2 && entropy(pw) >= 3.5
}

// digestLabel: the labels a digest or an identifier is written after
// (sha256:…, urn:…), which ident:secret is not.
var digestLabel = map[string]bool{"md5": true, "sha1": true, "sha224": true, "sha256": true, "sha384": true, "sha512": true,
	"sha3-256": true, "blake2b": true, "blake3": true, "urn": true, "uuid": true, "git": true, "docker": true, "sha": true}

// checkSecretDataValue: a value of a Kubernetes Secret's data (keys.go):
// its decoded text holds a secret the built-in rules find, or, the Secret
// declaring every value secret, looks generated by itself (strongValue,
// not a UUID) whatever its key is named.
func checkSecretDataValue(text string, s, e int) bool {
	if checkDecodedHoldsSecret(text, s, e) {
		return true
	}
	b, ok := decodeB64(text[s:e])
	if !ok || !printableText(b) {
		return false
	}
	// one token: a certificate or a file is judged by what it holds
	v := strings.TrimRight(string(b), "\r\n")
	return !strings.ContainsAny(v, " \t\r\n") && strongValue(v) && !chain.IsUUID(v)
}

// ---- (d) encodings the sweep did not know

// html5RefAnchors: HTML5's named references of ASCII punctuation that a
// URL, an assignment or a token is written with (xmlRefs, encoded4.go).
var html5RefAnchors = []string{"&colon;", "&sol;", "&commat;", "&lowbar;", "&equals;", "&period;", "&excl;", "&num;",
	"&dollar;", "&percnt;", "&plus;", "&quest;"}

// findAscii85: Adobe's Ascii85 between <~ and ~> (the PostScript and PDF
// delimiters; Python's a85encode(adobe=True)), decoded to text judged on
// its line.
func findAscii85(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		s := int(h.pos) + 2
		e := strings.Index(text[s:min(len(text), s+16000)], "~>")
		if e < 10 {
			continue
		}
		e += s
		b, ok := decodeA85(text[s:e])
		if ok && printableText(b) && holdsSecret(linePrefix(text, int(h.pos)), string(b), "") {
			emit(s, e, "encoded-secret")
		}
	}
}

// decodeA85 decodes Ascii85 (Adobe's alphabet, 'z' for four zeros,
// blanks ignored).
func decodeA85(v string) ([]byte, bool) {
	dst := make([]byte, 4*len(v))
	n, _, err := ascii85.Decode(dst, []byte(v), true)
	return dst[:n], err == nil && n > 0
}

// b85Alphabet is RFC 1924's (Python's base64.b85encode, git's binary
// patches).
const b85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

var b85Val = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(b85Alphabet); i++ {
		t[b85Alphabet[i]] = int8(i)
	}
	return
}()

// decodeB85 decodes RFC 1924 base85 (a last group of 2-4 digits padded as
// Python pads it).
func decodeB85(v string) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(v); i += 5 {
		g := v[i:min(len(v), i+5)]
		if len(g) == 1 {
			return nil, false
		}
		var acc uint64
		for k := 0; k < 5; k++ {
			d := int8(84)
			if k < len(g) {
				if d = b85Val[g[k]]; d < 0 {
					return nil, false
				}
			}
			acc = acc*85 + uint64(d)
		}
		if acc > 0xffffffff {
			return nil, false
		}
		w := []byte{byte(acc >> 24), byte(acc >> 16), byte(acc >> 8), byte(acc)}
		out = append(out, w[:len(g)-1]...)
	}
	return out, len(out) > 0
}

// findUuencoded: a uuencoded file (begin MODE NAME … end): its lines
// decoded (length byte, then 4 characters for 3 bytes) to text in which
// the built-in rules find a secret; the lines are reported.
func findUuencoded(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		if p > 0 && text[p-1] != '\n' {
			continue
		}
		nl := strings.IndexByte(text[p:], '\n')
		if nl < 0 || nl > 300 {
			continue
		}
		st := p + nl + 1
		var b []byte
		i, e := st, st
		for i < len(text) && len(b) < 64<<10 {
			le := strings.IndexByte(text[i:], '\n')
			if le < 0 {
				le = len(text) - i
			}
			line := strings.TrimRight(text[i:i+le], "\r")
			d, ok := uuLine(line)
			if !ok || len(d) == 0 {
				break
			}
			b = append(b, d...)
			e = i + len(line)
			i += le + 1
		}
		if len(b) >= 8 && printableText(b) && len(plainScanner().Scan(string(b))) > 0 {
			emit(st, e, "encoded-secret")
		}
	}
}

// uuLine decodes one uuencoded line.
func uuLine(l string) ([]byte, bool) {
	if l == "" {
		return nil, false
	}
	n := int((l[0] - 32) & 63)
	if n == 0 || len(l) < 1+(n+2)/3*4 {
		return nil, n == 0
	}
	var out []byte
	for k := 1; k+3 < len(l) && len(out) < n; k += 4 {
		var v [4]byte
		for j := 0; j < 4; j++ {
			c := l[k+j]
			if c < 32 || c > 96 {
				return nil, false
			}
			v[j] = (c - 32) & 63
		}
		out = append(out, v[0]<<2|v[1]>>4, v[1]<<4|v[2]>>2, v[2]<<6|v[3])
	}
	if len(out) < n {
		return nil, false
	}
	return out[:n], true
}

// findByteaHex: hex behind a backslash-x (PostgreSQL's bytea output,
// '\x…'::bytea), 16 digits at least and not one escape of many (\x41\x42
// is cEscapeRule's), decoded and judged on its line.
func findByteaHex(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		s := int(h.pos) + 2
		e := s
		for e < len(text) && e-s < 16000 && isHex(text[e]) {
			e++
		}
		if e-s < 16 || (e-s)%2 != 0 || e < len(text) && (isAlnum(text[e]) || text[e] == '\\') {
			continue
		}
		b, err := hex.DecodeString(text[s:e])
		if err == nil && printableText(b) && holdsSecret(linePrefix(text, int(h.pos)), string(b), "") {
			emit(s, e, "encoded-secret")
		}
	}
}

// skipLineNumber: past the line number the Read tool ("    12→") or cat
// -n ("    12\t") writes at i, the start of a block's next line
// (lineBreak, anywhere.go); i when there is none.
func skipLineNumber(text string, i int) int {
	k := i
	for k < len(text) && k-i < 8 && text[k] == ' ' {
		k++
	}
	d := k
	for d < len(text) && d-k < 7 && isDigit(text[d]) {
		d++
	}
	switch {
	case d == k:
		return i
	case strings.HasPrefix(text[d:], "→"):
		return d + len("→")
	case d < len(text) && text[d] == '\t':
		return d + 1
	}
	return i
}

// encodedPlaceholder: v is base64 of a placeholder, or of ident:placeholder
// (deploy:changeme, admin:password, user:${PASSWORD}): a decoded value is
// judged as the plain one would be, so what is no secret written plainly
// is none encoded (plausibleValue, check.go). Only standard base64 of
// printable text is decoded: random keys fail at the first bytes.
func encodedPlaceholder(v string) bool {
	// base64 of printable text starts with I-Z or a-f (prefixPrintable)
	if c := v[0]; len(v) < 8 || len(v) > 96 || len(v)%4 != 0 || !(c >= 'I' && c <= 'Z' || c >= 'a' && c <= 'f') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isB64(v[i]) && v[i] != '=' {
			return false
		}
	}
	if !quickText(v) {
		return false
	}
	b, ok := decodeB64(v)
	if !ok || len(b) < 4 || !printableText(b) {
		return false
	}
	d := string(b)
	if i := strings.IndexByte(d, ':'); i > 0 {
		d = d[i+1:]
	}
	return d == "" || isPlaceholderWord(d) || hasPlaceholderPart(d)
}

// isHostPort: h is a host name (two labels at least) with an optional
// port.
func isHostPort(h string) bool {
	if c := strings.LastIndexByte(h, ':'); c > 0 {
		for k := c + 1; k < len(h); k++ {
			if !isDigit(h[k]) {
				return false
			}
		}
		h = h[:c]
	}
	if !strings.Contains(h, ".") || len(h) < 3 {
		return false
	}
	for k := 0; k < len(h); k++ {
		if c := h[k]; !isAlnum(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// basicScheme: before (the text in front of an encoded run) ends with the
// Basic scheme, whose credentials basic-auth reports under its own name.
func basicScheme(before string) bool {
	return len(before) >= 6 && strings.EqualFold(before[len(before)-6:], "basic ")
}
