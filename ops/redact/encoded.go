package redact

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Secrets under an encoding that the structure around them names (issue
// 31, the encoded family, second round): what the encoding hides is
// decoded, scanned with the built-in rules where it stands (the name in
// front of it kept: DB_PASSWORD_ENCODED=<base64 of a password> is judged as
// DB_PASSWORD_ENCODED=<the password>), and the encoded span is reported.
// Every rule here is anchored on a literal of its structure: a JSON or
// gzip header in base64, a decoding call, a name's encoding qualifier, a
// JSON escape.
func encodedRules() []*Rule {
	return []*Rule{
		// base64 or base64url (RFC 4648 §4, §5) whose first bytes say
		// what it holds: JSON ({" {\n {\t { "), a URL whose scheme carries a
		// user and password (postgres://, mysql://, mongodb://, redis://,
		// amqp://, mssql://, http(s)://, ftp://), gzip (RFC 1952: 1f 8b 08,
		// decompressed, 64 KB at most); not a JWT's segment (a dot beside it)
		{ID: "encoded-secret", Anchors: b64TextAnchors, Priority: prioContext,
			find: findB64Text, emits: []string{"encoded-secret"}},
		// a literal given to a decoding call: base64.b64decode("…"),
		// atob('…'), Buffer.from("…", "base64"|"hex"), base64.StdEncoding.
		// DecodeString("…"), hex.DecodeString, Convert.FromBase64String,
		// Base64.getDecoder().decode, Base64.decode64, base64_decode,
		// bytes.fromhex, unhexlify, hex2bin, base64 -d <<< "…"
		{ID: "encoded-secret", Anchors: decodeCallAnchors, Fold: true, Priority: prioContext,
			find: findDecodeCalls, emits: []string{"encoded-secret"}},
		// a value under a name that says it is encoded: *_ENCODED,
		// *Encoded, camelCase *Base64 / *B64 (the _B64/_BASE64 forms have
		// their rule in keys.go)
		{ID: "encoded-secret", Anchors: []string{"ncoded", "base64", "b64"}, Fold: true, Priority: prioContext,
			find: findEncodedNames, emits: []string{"encoded-secret"}},
		// JSON text inside a JSON string (a tool result holding JSON): its
		// escapes \uXXXX and \\\" are decoded, the text scanned again
		{ID: "encoded-secret", Anchors: []string{`\u00`, `\\\"`}, Priority: prioContext,
			find: findDecodedLines(unescapeJSON), emits: []string{"encoded-secret"}},
		// JSON written HTML-escaped in a page (a data attribute, an
		// embedded state script): &quot; &amp; &lt; &gt; &#39; &#x27;
		{ID: "encoded-secret", Anchors: []string{"&quot;", "&#34;"}, Priority: prioContext,
			find: findDecodedLines(unescapeHTML), emits: []string{"encoded-secret"}},
		// a value percent-encoded once more (WHATWG urlencoded: a JSON
		// object in a query string, a form inside a form), decoded and
		// scanned again, reported over the bytes that wrote the secret
		{ID: "encoded-secret", Anchors: []string{"%22", "%3d"}, Fold: true, Priority: prioContext,
			find: findPercentEncoded, emits: []string{"encoded-secret"}},
		// a password a tool stores encrypted, in base64 between braces:
		// Jenkins' hudson.util.Secret ({AQAAABAAAA…}), Maven's
		// settings.xml <password>{…}</password>
		{ID: "generic-password", Anchors: []string{"{AQAAABAAAA", "<password>{"}, Fold: true, Priority: prioContext,
			find: findBracedPasswords, emits: []string{"generic-password"}},
		// a literal given to a template's decoding filter: {{ "…" | b64dec }}
		// (Helm, Go templates), {{ '…' | b64decode }} (Ansible, Jinja)
		{ID: "encoded-secret", Anchors: []string{"b64dec"}, Fold: true, Priority: prioContext,
			find: findDecodeFilters, emits: []string{"encoded-secret"}},
		// YAML's !!binary tag (base64, YAML 1.1's type repository)
		{ID: "encoded-secret", Anchors: []string{"!!binary"}, Priority: prioContext,
			find: findYAMLBinary, emits: []string{"encoded-secret"}},
		// hex piped to xxd -r -p
		{ID: "encoded-secret", Anchors: []string{"xxd -r -p"}, Before: 1200, Priority: prioContext,
			Re:       regexp.MustCompile(`\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?["']?(?P<s>[0-9a-fA-F]{16,})["']?[ \t]*\|[ \t]*xxd -r -p`),
			Boundary: isAlnum, Check: checkHexHoldsSecret},
		// quoted-printable (RFC 2045 §6.7): =3D is the '=' of NAME=VALUE
		{ID: "encoded-secret", Anchors: []string{"=3d"}, Fold: true, Priority: prioContext,
			find: findDecodedLines(unescapeQP), emits: []string{"encoded-secret"}},
		// a Kubernetes Secret's stringData: every value is a secret's
		// plain text, under whatever name (also inside a block scalar)
		// (anchored on gdata: — "str" is in every other line of code;
		// gdata\": is the key of JSON text inside a JSON string)
		{ID: "generic-secret", Anchors: []string{"gdata:", `gdata":`, `gdata\":`}, Fold: true, Priority: prioGeneric,
			find: findStringData, emits: []string{"generic-secret"}},
		cEscapeRule(), // anywhere.go
	}
}

// b64TextAnchors: the base64 of a value's first bytes that say it is
// JSON, a URL with credentials or gzip.
var b64TextAnchors = []string{"eyJ", "ewo", "ewk", "eyAi", "H4sI",
	"cG9zdGdyZX", "bXlzcWw6Ly", "bWFyaWFkYjovL", "bW9uZ29kYi", "cmVkaXM6Ly", "cmVkaXNzOi8v",
	"YW1xcDovL", "YW1xcHM6Ly", "bXNzcWw6Ly", "c3Fsc2VydmVyOi8v", "aHR0cHM6Ly", "aHR0cDovL", "ZnRwOi8v"}

// findB64Text: at each anchor, the base64 run it begins (a whole token:
// no base64, '-', '_' or '.' beside it, so a JWT's segments are not
// taken), decoded (gunzipped after H4sI) and judged where it stands.
func findB64Text(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		s := int(h.pos)
		if s > 0 && isB64URLOrDot(text[s-1]) {
			continue
		}
		e := b64RunEnd(text, s)
		if e-s < 20 || e < len(text) && isB64URLOrDot(text[e]) {
			continue
		}
		var ok bool
		if text[s] == 'H' {
			ok = checkGzipHoldsSecret(text, s, e)
		} else {
			ok = checkB64TextHoldsSecret(text, s, e)
		}
		if ok {
			emit(s, e, "encoded-secret")
		}
	}
}

// b64RunEnd: the end of the base64 or base64url run at i (16 KB at most)
// and its padding.
func b64RunEnd(text string, i int) int {
	e := i
	for e < len(text) && e-i < 16000 && (isB64(text[e]) || text[e] == '-' || text[e] == '_') {
		e++
	}
	for e < len(text) && text[e] == '=' && e-i < 16002 {
		e++
	}
	return e
}

func isB64URLOrDot(c byte) bool { return isB64(c) || c == '-' || c == '_' || c == '.' }

// decodeB64 decodes standard or URL-safe base64, padded or not.
func decodeB64(v string) ([]byte, bool) { return decodeB64To(nil, v) }

// decodeB64To is decodeB64 into dst when it has the room (a few bytes
// decoded into the caller's array: nothing allocated), else into a new
// slice. What is decoded before a byte that is not base64 is returned
// with false.
func decodeB64To(dst []byte, v string) ([]byte, bool) {
	v = strings.TrimRight(v, "=")
	if len(v)%4 == 1 || len(v) > 1<<16 {
		return nil, false
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(v, "-_") {
		if strings.ContainsAny(v, "+/") {
			return nil, false
		}
		enc = base64.RawURLEncoding
	}
	if n := enc.DecodedLen(len(v)); cap(dst) < n {
		dst = make([]byte, n)
	}
	n, err := enc.Decode(dst[:cap(dst)], []byte(v))
	return dst[:n], err == nil
}

// printableText: b is text (UTF-8, no control byte but blanks).
func printableText(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// holdsSecret: the built-in rules find a secret in what pre+dec+post
// reads, that overlaps dec (pre and post are the text around the encoded
// value, its name in front: the name is evidence too).
func holdsSecret(pre, dec, post string) bool {
	view := pre + dec + post
	for _, f := range plainScanner().Scan(view) {
		if f.End > len(pre) && f.Start < len(pre)+len(dec) {
			return true
		}
	}
	return false
}

// linePrefix is the line of text before i, 160 bytes at most.
func linePrefix(text string, i int) string {
	lo := max(0, i-160)
	if n := strings.LastIndexByte(text[lo:i], '\n'); n >= 0 {
		lo += n + 1
	}
	return text[lo:i]
}

func checkB64TextHoldsSecret(text string, s, e int) bool {
	b, ok := decodeB64(text[s:e])
	if !ok || len(b) < 12 || !printableText(b) {
		return false
	}
	return holdsSecret(linePrefix(text, s), string(b), "")
}

func checkGzipHoldsSecret(text string, s, e int) bool {
	b, ok := decodeB64(text[s:e])
	if !ok || len(b) < 18 {
		return false
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	plain, err := io.ReadAll(io.LimitReader(zr, 64<<10))
	if err != nil && err != io.ErrUnexpectedEOF || !printableText(plain) {
		return false
	}
	return holdsSecret(linePrefix(text, s), string(plain), "")
}

// decodeCallAnchors are the decoding calls whose literal argument is read.
var decodeCallAnchors = []string{"b64decode(", "atob(", "buffer.from(", "decodestring(", "base64string(",
	"r().decode(", "de64(", "base64_decode(", "omhex(", "unhexlify(", "hex2bin(", "<<<",
	"base64decode(", "base64binary(", "decodebytes(", "a85decode(", "b85decode("}

// Each decoding call's anchor starts at a byte trigram prose and code rarely
// hold (the prefilter lets every position of an anchor's first three
// bytes through): fromhex( is found by "omhex(", FromBase64String( by
// "base64string(", getDecoder().decode( by "r().decode(", decode64( by
// "de64(".

// findDecodeCalls: the quoted literal given to a decoding call, decoded
// (base64, or hex for the hex calls and Buffer.from(…, "hex")) and judged
// as the literal the call returns: NAME = decode("…") is read as
// NAME = "<decoded>".
func findDecodeCalls(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, end := int(h.pos), int(h.pos+h.alen)
		call := strings.ToLower(text[p:end])
		isHexCall := call == "omhex(" || call == "unhexlify(" || call == "hex2bin(" ||
			call == "decodestring(" && strings.HasSuffix(strings.ToLower(text[max(0, p-8):p]), "hex.")
		if call == "<<<" {
			// base64 -d <<< "…", base64 --decode, base64 -D, xxd -r -p <<< "…"
			cmd := strings.TrimRight(text[max(0, p-24):p], " \t")
			switch {
			case strings.HasSuffix(cmd, "xxd -r -p"):
				isHexCall = true
			case strings.HasSuffix(cmd, "-d"), strings.HasSuffix(cmd, "--decode"), strings.HasSuffix(cmd, "-D"):
			default:
				continue
			}
		}
		q := skipBlanks(text, end)
		if q+1 < len(text) && strings.IndexByte("bBuUrR", text[q]) >= 0 && (text[q+1] == '"' || text[q+1] == '\'') {
			q++ // a Python bytes or string prefix: b"…"
		}
		if q >= len(text) || text[q] != '"' && text[q] != '\'' && text[q] != '`' {
			continue
		}
		lit := q + 1
		close := strings.IndexByte(text[lit:min(len(text), lit+16000)], text[q])
		if close < 12 {
			continue
		}
		v := text[lit : lit+close]
		if call == "buffer.from(" {
			arg := strings.ToLower(text[lit+close+1 : min(len(text), lit+close+16)])
			switch {
			case strings.Contains(arg, "hex"):
				isHexCall = true
			case !strings.Contains(arg, "base64"):
				continue // Buffer.from("…") is the string's own bytes
			}
		}
		var b []byte
		var ok bool
		switch {
		case isHexCall:
			var err error
			// bytes.fromhex and unhexlify take blanks between the bytes
			b, err = hex.DecodeString(strings.NewReplacer(" ", "", "\t", "").Replace(v))
			ok = err == nil
		case call == "a85decode(": // Python's base64.a85decode (encoded5.go)
			b, ok = decodeA85(strings.TrimSuffix(strings.TrimPrefix(v, "<~"), "~>"))
		case call == "b85decode(": // RFC 1924 base85
			b, ok = decodeB85(v)
		default:
			b, ok = decodeB64(v)
		}
		if !ok || len(b) < 6 || !printableText(b) {
			continue
		}
		// the expression the call begins: back over the callee's name
		st := p
		for st > 0 && (isTokenByte(text[st-1]) || text[st-1] == '.' || text[st-1] == '$') {
			st--
		}
		if call == "<<<" {
			st = p
		}
		if holdsSecret(linePrefix(text, st), `"`+string(b)+`"`, "") {
			emit(lit, lit+close, "encoded-secret")
		}
	}
}

// findEncodedNames: NAME_ENCODED=…, nameEncoded: …, apiTokenBase64 = "…",
// SECRET_B64: … — a base64 value under a name whose last word says it is
// encoded, decoded and judged under the name.
func findEncodedNames(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		end := int(h.pos + h.alen)
		if end < len(text) && isTokenByte(text[end]) {
			continue // the qualifier ends the name
		}
		st := int(h.pos)
		if h.alen == 6 && text[h.pos]|0x20 == 'n' { // ncoded: the anchor of encoded
			if st == 0 || text[st-1]|0x20 != 'e' {
				continue
			}
			st--
		}
		if st == 0 || !isTokenByte(text[st-1]) {
			continue // a name before it
		}
		i, ok := valueAfterName(text, end) // encoded6.go
		if !ok {
			continue
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		j := b64RunEnd(text, i)
		if j-i < 12 || j < len(text) && isTokenByte(text[j]) {
			continue
		}
		b, ok := decodeB64(text[i:j])
		if !ok || len(b) < 6 || !printableText(b) {
			continue
		}
		if holdsSecret(linePrefix(text, i), string(b), "") {
			emit(i, j, "encoded-secret")
		}
	}
}

// findDecodedLines: text written with one more level of escapes (JSON
// text inside a JSON string: \u0067hp_…, {\\\"password\\\": …}; JSON in
// HTML: &quot;): the line around each escape is decoded once and scanned;
// a secret found there is reported over the bytes that wrote it.
func findDecodedLines(decode func(string) (string, []int)) func(string, []hit, func(int, int, string)) {
	return func(text string, hits []hit, emit func(s, e int, id string)) {
		findDecodedLinesWith(decode, text, hits, emit)
	}
}

func findDecodedLinesWith(decode func(string) (string, []int), text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		lo, hi := max(0, p-600), min(len(text), p+600)
		if n := strings.LastIndexByte(text[lo:p], '\n'); n >= 0 {
			lo += n + 1
		}
		if n := strings.IndexByte(text[p:hi], '\n'); n >= 0 {
			hi = p + n
		}
		done = hi
		plain, src := decode(text[lo:hi])
		if plain == "" {
			continue
		}
		for _, f := range plainScanner().Scan(plain) {
			emit(lo+src[f.Start], lo+src[f.End], "encoded-secret")
		}
	}
}

// unescapeJSON decodes the escapes of s once; src[i] is the offset in s
// of the byte that wrote plain[i] (src[len(plain)] = len(s)). "" when
// nothing was decoded.
func unescapeJSON(s string) (string, []int) {
	var b []byte
	var src []int
	put := func(c byte, at int) { b = append(b, c); src = append(src, at) }
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			put(c, i)
			i++
			continue
		}
		switch d := s[i+1]; d {
		case '"', '\\', '/':
			put(d, i)
			i += 2
		case 'n':
			put('\n', i)
			i += 2
		case 't':
			put('\t', i)
			i += 2
		case 'r':
			put('\r', i)
			i += 2
		case 'u':
			r, n := unescapeU(s[i:])
			if n == 0 {
				put(c, i)
				i++
				continue
			}
			var buf [4]byte
			for _, x := range buf[:utf8.EncodeRune(buf[:], r)] {
				put(x, i)
			}
			i += n
		default:
			put(c, i)
			i++
			continue
		}
		changed = true
	}
	if !changed {
		return "", nil
	}
	src = append(src, len(s))
	return string(b), src
}

// unescapeU reads \uXXXX (and a surrogate pair) at the start of s: the
// rune and the bytes read, 0 when malformed.
func unescapeU(s string) (rune, int) {
	hex4 := func(t string) (rune, bool) {
		if len(t) < 6 || t[0] != '\\' || t[1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range []byte(t[2:6]) {
			if !isHex(c) {
				return 0, false
			}
			r = r<<4 | rune(unhex(c))
		}
		return r, true
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(s[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// findStringData: the values of a Kubernetes Secret's stringData (the
// manifest says kind: Secret): each `name: value` line deeper than
// stringData:, also inside a block scalar, whose value looks generated.
func findStringData(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos) - len("strin")
		if p < 0 || !strings.EqualFold(text[p:h.pos], "strin") {
			continue
		}
		if p > 0 && text[p-1] == '"' {
			p-- // the JSON form's quote
		}
		around := strings.ToLower(text[max(0, p-4000):min(len(text), p+4000)])
		if !strings.Contains(around, "kind: secret") && !strings.Contains(around, `"kind": "secret"`) && !strings.Contains(around, `"kind":"secret"`) {
			continue
		}
		if text[p] == '"' {
			findStringDataJSON(text, p, emit)
			continue
		}
		ls := strings.LastIndexByte(text[:p], '\n') + 1
		indent := p - ls
		i := strings.IndexByte(text[p:], '\n')
		if i < 0 {
			continue
		}
		for i = p + i + 1; i < len(text) && i < p+16000; {
			le := strings.IndexByte(text[i:], '\n')
			if le < 0 {
				le = len(text) - i
			}
			line := text[i : i+le]
			ind := len(line) - len(strings.TrimLeft(line, " \t"))
			if strings.TrimSpace(line) != "" && ind <= indent {
				break
			}
			if c := strings.Index(line, ": "); c > 0 {
				v := strings.TrimSpace(line[c+2:])
				v = strings.Trim(v, `"'`)
				if strongValue(v) {
					vs := i + c + 2 + strings.Index(line[c+2:], v)
					emit(vs, vs+len(v), "generic-secret")
				}
			}
			i += le + 1
		}
	}
}

// findStringDataJSON: "stringData": {"name": "value", …}.
func findStringDataJSON(text string, p int, emit func(s, e int, id string)) {
	o := strings.IndexByte(text[p:min(len(text), p+40)], '{')
	if o < 0 {
		return
	}
	i := p + o + 1
	c := strings.IndexByte(text[i:min(len(text), i+16000)], '}')
	if c < 0 {
		return
	}
	obj := text[i : i+c]
	for k := 0; k < len(obj); {
		col := strings.Index(obj[k:], `": "`)
		if col < 0 {
			break
		}
		vs := k + col + 4
		ve := strings.IndexByte(obj[vs:], '"')
		if ve < 0 {
			break
		}
		if strongValue(obj[vs : vs+ve]) {
			emit(i+vs, i+vs+ve, "generic-secret")
		}
		k = vs + ve + 1
	}
}

// findBracedPasswords: the braced base64 of its regexp (either group),
// braces included.
func findBracedPasswords(text string, hits []hit, emit func(s, e int, id string)) {
	r := bracedPasswordRe()
	done := 0
	for _, h := range hits {
		lo := max(done, int(h.pos)-11)
		hi := min(len(text), int(h.pos+h.alen)+400)
		if lo >= hi {
			continue
		}
		for _, m := range r.FindAllStringSubmatchIndex(text[lo:hi], -1) {
			for g := 1; g <= 2; g++ {
				if m[2*g] >= 0 {
					emit(lo+m[2*g], lo+m[2*g+1], "generic-password")
				}
			}
		}
		done = hi
	}
}

var bracedPasswordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\{AQAAABAAAA[A-Za-z0-9+/]{16,}={0,2}\})|(?i:<password>)(\{[A-Za-z0-9+/]{16,}={0,2}\})(?i:</password>)`)
})

// findPercentEncoded: the run of URL bytes around each %22 or %3D,
// percent-decoded (RFC 3986; '+' kept: base64 holds it) and scanned
// again; a secret found there is reported over the bytes that wrote it.
func findPercentEncoded(text string, hits []hit, emit func(s, e int, id string)) {
	findPercentRuns(unpercent, text, hits, emit)
}

// findPercentRuns: findPercentEncoded with the decoder given.
func findPercentRuns(unpercent func(string) (string, []int), text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		lo, hi := p, p
		for lo > 0 && p-lo < 4000 && isURLByte(text[lo-1]) {
			lo--
		}
		for hi < len(text) && hi-p < 4000 && isURLByte(text[hi]) {
			hi++
		}
		done = hi
		plain, src := unpercent(text[lo:hi])
		if plain == "" {
			continue
		}
		for _, f := range plainScanner().Scan(plain) {
			emit(lo+src[f.Start], lo+src[f.End], "encoded-secret")
		}
	}
}

// isURLByte: a byte a URL or a form body holds unencoded.
func isURLByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '<' && c != '>' && c != '`' && c != '\\'
}

// unpercent decodes the %XX escapes of s; src[i] is the offset in s of the
// byte that wrote plain[i] (src[len(plain)] = len(s)). "" when nothing
// was decoded.
func unpercent(s string) (string, []int) { return unhexEscapes(s, '%') }

// unescapeQP decodes quoted-printable's =XX escapes (a soft line break
// ends the line the decoder is given).
func unescapeQP(s string) (string, []int) { return unhexEscapes(s, '=') }

func unhexEscapes(s string, esc byte) (string, []int) {
	var b []byte
	var src []int
	for i := 0; i < len(s); {
		if s[i] == esc && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			src = append(src, i)
			i += 3
			continue
		}
		b = append(b, s[i])
		src = append(src, i)
		i++
	}
	if len(b) == len(s) {
		return "", nil
	}
	return string(b), append(src, len(s))
}

// htmlRefs are the character references JSON written in HTML uses.
var htmlRefs = []struct{ ref, c string }{{"&quot;", `"`}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&#34;", `"`}, {"&#x22;", `"`}}

// unescapeHTML decodes htmlRefs in s; src as unescapeJSON's.
func unescapeHTML(s string) (string, []int) {
	var b []byte
	var src []int
	changed := false
next:
	for i := 0; i < len(s); {
		if s[i] == '&' {
			for _, r := range htmlRefs {
				if strings.HasPrefix(s[i:], r.ref) {
					b = append(b, r.c[0])
					src = append(src, i)
					i += len(r.ref)
					changed = true
					continue next
				}
			}
		}
		b = append(b, s[i])
		src = append(src, i)
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(src, len(s))
}

// checkHexHoldsSecret: text[s:e] is hex of text in which the built-in
// rules find a secret, judged on its line.
func checkHexHoldsSecret(text string, s, e int) bool {
	b, err := hex.DecodeString(text[s:e])
	if err != nil || len(b) < 6 || !printableText(b) {
		return false
	}
	return holdsSecret(linePrefix(text, s), string(b), "")
}

// findDecodeFilters: "…" | b64dec (or b64decode) inside {{ }}: the quoted
// literal before the filter, decoded and judged as the value of the name
// in front of the template expression.
func findDecodeFilters(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		i := int(h.pos)
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
			i--
		}
		if i == 0 || text[i-1] != '|' {
			continue
		}
		i--
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
			i--
		}
		if i == 0 || text[i-1] != '"' && text[i-1] != '\'' {
			continue
		}
		e := i - 1
		st := strings.LastIndexByte(text[max(0, e-16000):e], text[e])
		if st < 0 {
			continue
		}
		st += max(0, e-16000) + 1
		b, ok := decodeB64(text[st:e])
		if !ok || len(b) < 6 || !printableText(b) {
			continue
		}
		pre := linePrefix(text, st)
		if k := strings.LastIndex(pre, "{{"); k >= 0 {
			pre = strings.TrimRight(pre[:k], " \t\"'")
		}
		if holdsSecret(pre+` "`, string(b), `"`) {
			emit(st, e, "encoded-secret")
		}
	}
}

// findYAMLBinary: NAME: !!binary BASE64 (on the line, or the lines of a
// block scalar after it), decoded and judged under NAME.
func findYAMLBinary(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		i := skipBlanks(text, int(h.pos+h.alen))
		if i < len(text) && text[i] == '|' {
			i++
			for i < len(text) && (text[i] == '\n' || text[i] == ' ' || text[i] == '\t' || text[i] == '-') {
				i++
			}
		}
		e := b64RunEnd(text, i)
		if e-i < 8 || e < len(text) && isTokenByte(text[e]) {
			continue
		}
		b, ok := decodeB64(text[i:e])
		if !ok || len(b) < 6 || !printableText(b) {
			continue
		}
		if holdsSecret(linePrefix(text, int(h.pos)), string(b), "") {
			emit(i, e, "encoded-secret")
		}
	}
}
