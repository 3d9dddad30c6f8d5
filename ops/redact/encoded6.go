package redact

import (
	"bytes"
	"encoding/base32"
	"encoding/hex"
	"strconv"
	"strings"
)

// Secrets hidden by an encoding, sixth round (issue 31, the encoded
// family; dev set testdata/dev-encoded6.txt; the 43 misses of blind sets
// a-d retired to development, testdata/retired-blind-encoded.txt). The
// rounds before judged an encoded value by what it decodes to; most of
// the misses left were values whose POSITION says they are credentials
// while what they decode to is binary or a bare token with no name. One
// principle per class:
//
//   - (1) an auth scheme's value is a credential by its position: the
//     token after Basic in an Authorization or Proxy-Authorization header
//     (also git's extraheader, any case), the initial response of a SASL
//     mechanism (XOAUTH2, OAUTHBEARER, PLAIN in SMTP, IMAP, XMPP,
//     ManageSieve) and the answer to SMTP's "Password:" challenge,
//     whatever it decodes to; not what decodes to user: with an empty
//     password nor to a placeholder (findAuthSchemeValues,
//     findSASLResponses).
//   - (2) key material written as bytes or hex is a secret when its name
//     says key, secret, password, seed (a byte array, a byte string, a
//     hex literal, SQL's 0x/X”/UNHEX/HEXTORAW beside a secret's name in
//     the same statement, a log's "key (hex):"), or when a REPL or a
//     command prints it as one (>>> key, secrets.token_hex, openssl rand);
//     not an IV, a nonce, a salt, a digest, a magic number, a public key
//     (findNamedKeyBytes, findPrintedKeys).
//   - (3) a blob whose name says it holds a credential
//     (SERVICE_ACCOUNT_JSON_B64, *_CREDENTIALS_FILE, GPG_PRIVATE_KEY_BASE64,
//     SecretString (base64)) is one whatever it decodes to; a blob whose
//     decoded prefix opens a credential (DB_PASSWORD=, "password":",
//     postgres://user:, [default] aws_…, a private key's armor, sk_live_)
//     is one even when the rest is binary: the prefix is read with a
//     generated value in place of the rest (prefixOpensCredential; the
//     sweep of anywhere.go calls it too, for runs whose first bytes only
//     are text).
//   - (4) the output of a command that reads a secret (kubectl get secret
//     with a data accessor, oc extract, docker/podman secret inspect,
//     vault kv get -field, aws secretsmanager, gcloud secrets versions
//     access, az keyvault secret show, security -w, pass show) is the
//     secret; what echo X | base64 -d decodes to a generated token or
//     user:password is one, as is its printed output; a decoding call's
//     literal assigned to a secret's name is one even when it decodes to
//     binary (findSecretCommandOutput, findNamedDecodeCalls).
//   - (5) a query parameter's value is judged percent-decoded, twice when
//     it is encoded twice, and a URL nested in a parameter has its own
//     parameters judged (findPercentQueryValues).
//   - (6) an XML value holding entities is judged decoded under the name
//     its tag, its attributes, its parent or a preceding sibling
//     (<name>DEPLOY_PASSWORD</name>) give it (findNamedEntities).
//   - (7) a TOTP/HOTP seed in base32 after an otpauth URI's secret=, a
//     name or call of TOTP/MFA/2FA, oathtool -b, AWS's Base32StringSeed,
//     ~/.google_authenticator's first line (findTOTPSeeds).
//
// Hooked into the core by builtinRules (rules.go), after encoded5Rules;
// every rule is gated by literal anchors, most of them anchors the
// scanner already had (basic , b64, base64, ", 0x", \x, the decoding
// calls' names, ey =, %3d), so that they add few positions to the
// prefilter's.
func encoded6Rules() []*Rule {
	return []*Rule{
		{ID: "basic-auth", Anchors: []string{"basic "}, Fold: true, Priority: prioContext,
			find: findAuthSchemeValues, emits: []string{"basic-auth"}},
		{ID: "encoded-secret", Anchors: []string{"xoauth2", "oauthbearer", "mechanism=", `"plain" "`, "auth plain", "authenticate plain", "UGFzc3dvcmQ6"}, Fold: true, Priority: prioContext,
			find: findSASLResponses, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{", 0x", "byte[]", "bytearrayof(", "[u8; ", "[uint8]", "buffer.from([", `\x`, "unhex(", "hextoraw(", "'hex')", "(hex)", "(x'", " x'", ",x'", "#define ", "ey ="}, Fold: true, Priority: prioContext,
			find: findNamedKeyBytes, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: decodeCallAnchors, Fold: true, Priority: prioContext,
			find: findNamedDecodeCalls, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{">>> ", "openssl rand", "randombytes(", "en_hex(", "en_urlsafe("}, Fold: true, Priority: prioContext,
			find: findPrintedKeys, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"b64", "base64", "tials_file", "t_json"}, Fold: true, Priority: prioContext,
			find: findCredentialBlobs, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: secretCommandAnchors, Fold: true, Priority: prioContext,
			find: findSecretCommandOutput, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"%2b", "%2f", "%25", "%3d", "?access=", "&access="}, Fold: true, Priority: prioContext,
			find: findPercentQueryValues, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"&amp;", "&lt;", "&gt;", "&#", "&apos;"}, Priority: prioContext,
			find: findNamedEntities, emits: []string{"encoded-secret"}},
		{ID: "encoded-secret", Anchors: []string{"otp", "mfa", "2fa_", "_2fa", "ofactor", "o_factor", "oathtool", "base32", "google_authenticator", "p key:"}, Fold: true, Priority: prioContext,
			find: findTOTPSeeds, emits: []string{"encoded-secret"}},
	}
}

// ---- shared: names

// notSecretWords name what is no secret however it is written: an IV, a
// nonce, a salt, a digest, a public key or certificate, a magic number,
// a table, a test vector, an image or a file.
var notSecretWords = map[string]bool{"iv": true, "nonce": true, "salt": true, "public": true, "pub": true, "pubkey": true,
	"cert": true, "certificate": true, "crt": true, "ca": true, "digest": true, "hash": true, "checksum": true, "sha": true,
	"sha1": true, "sha256": true, "sha512": true, "md5": true, "crc": true, "magic": true, "sbox": true, "table": true,
	"test": true, "vector": true, "known": true, "hosts": true, "logo": true, "icon": true, "image": true, "img": true,
	"font": true, "readme": true, "manifest": true, "random": true, "id": true, "uuid": true, "fingerprint": true,
	"thumbprint": true, "png": true, "jpeg": true, "gif": true, "svg": true, "username": true, "user": true, "name": true,
	"namespace": true, "url": true, "host": true, "email": true, "login": true, "label": true}

// keyMaterialName: the words of a name say it holds a secret (the keyword
// rules' names, and key material's: key, seed, secret, hmac, psk,
// private, credential, service account, a file of credentials), and none
// says it is public.
func keyMaterialName(name string) bool {
	var arr [16]string
	words := appendWords(arr[:0], name)
	if len(words) == 0 {
		return false
	}
	trimmed := words
	for len(trimmed) > 1 && encodingQualifier[trimmed[len(trimmed)-1]] {
		trimmed = trimmed[:len(trimmed)-1]
	}
	for _, w := range trimmed {
		if notSecretWords[w] {
			return false
		}
	}
	if _, ok := classifyIdent(name); ok {
		return true
	}
	if _, ok := classifyIdent(strings.Join(trimmed, "_")); ok {
		return true
	}
	for i, w := range trimmed {
		if w == "key" && i > 0 && keyPrevDeny[trimmed[i-1]] {
			return false // cache_key, ssh key's file, a KMS key's id
		}
		switch w {
		case "key", "seed", "secret", "secrets", "hmac", "psk", "private", "privkey", "credential", "credentials",
			"creds", "password", "passwd", "token", "apikey", "kubeconfig", "netrc", "npmrc", "pgpass", "keystore", "pat":
			return true
		case "account":
			if i > 0 && trimmed[i-1] == "service" {
				return true
			}
		case "serviceaccount":
			return true
		}
		if strings.HasSuffix(w, "key") && len(w) > 3 && !strings.HasSuffix(w, "monkey") && !strings.HasSuffix(w, "turkey") {
			return true // aeskey, hmackey, signkey
		}
		if strings.HasSuffix(w, "secret") || strings.HasSuffix(w, "password") || strings.HasSuffix(w, "token") {
			return true
		}
	}
	return false
}

// secretWordName: name is a secret's by the keyword rules' reading
// (classifyIdent, its encoding qualifiers dropped: jwtSecret,
// TOKEN_SECRET, SECRET_KEY, password), not merely key material's (key,
// seed, psk: the names test vectors are given too); a decoding call's
// literal is judged by it.
func secretWordName(name string) bool {
	var arr [16]string
	words := appendWords(arr[:0], name)
	for len(words) > 1 && encodingQualifier[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	for _, w := range words {
		if notSecretWords[w] {
			return false
		}
	}
	_, ok := classifyIdent(strings.Join(words, "_"))
	return ok
}

// encodingQualifier: the words after a name that say how its value is
// written or stored, not what it is.
var encodingQualifier = map[string]bool{"b64": true, "base64": true, "b64url": true, "base64url": true, "url": true,
	"json": true, "file": true, "encoded": true, "enc": true, "hex": true, "bytes": true, "data": true, "content": true,
	"raw": true, "blob": true, "string": true, "value": true, "str": true}

// assignedName: the name a literal starting at s is assigned to on its
// line (or on the line before, when the literal starts its line: a C
// array's body): the left-hand side of = := : -> (its first element, its
// last identifier, type annotations and [N] dropped), a #define's name;
// also the names of the calls between the operator and the literal
// (new SecretKeySpec(…)). "" when there is none.
func assignedName(text string, s int) (string, string) {
	ls := nearLineStart(text, s)
	line := text[ls:s]
	if strings.TrimSpace(line) == "" {
		if ls > 0 {
			ps := nearLineStart(text, ls-1)
			line = text[ps:ls-1] + " " + line
		}
	}
	if len(line) > 300 {
		line = line[len(line)-300:]
	}
	if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "#define ") {
		f := strings.Fields(t)
		if len(f) >= 2 {
			return f[1], ""
		}
	}
	// the assignment operator nearest the literal
	op := -1
	for i := len(line) - 1; i >= 0; i-- {
		c := line[i]
		if c == '=' && (i+1 >= len(line) || line[i+1] != '=') && (i == 0 || !strings.ContainsRune("=!<>", rune(line[i-1]))) {
			op = i
			break
		}
	}
	if op < 0 {
		// a log's label: "… key (hex): ", "secret: "
		if k := strings.LastIndexByte(line, ':'); k > 0 {
			lhs := strings.TrimSpace(line[:k])
			lhs = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(lhs, "(hex)"), "(base64)")), " in hex")
			return lastIdent(lhs), ""
		}
		return "", ""
	}
	lhs, rhs := line[:op], line[op+1:]
	lhs = strings.TrimRight(lhs, ":+.?| \t") // := += .= ?=
	if k := strings.IndexByte(lhs, ':'); k > 0 && !strings.Contains(lhs, "::") && !strings.ContainsAny(strings.TrimSpace(dropBrackets(lhs[k+1:])), " \t") {
		lhs = lhs[:k] // name: TYPE = (a log's "time: words =" is no type)
	}
	if k := strings.IndexByte(lhs, ','); k > 0 {
		lhs = lhs[:k] // key, _ :=
	}
	// (the parenthesis of a tuple or a call, a type's brackets)
	if k := strings.LastIndexAny(lhs, "({;"); k >= 0 {
		lhs = lhs[k+1:]
	}
	return lastIdent(lhs), rhs
}

// nearLineStart: the start of the line holding i, or i-400 when the line
// starts further back (a minified file's line is read no further).
func nearLineStart(text string, i int) int {
	lo := max(0, i-400)
	return lo + strings.LastIndexByte(text[lo:i], '\n') + 1
}

// dropBrackets: s with its [...] groups and their contents dropped.
func dropBrackets(s string) string {
	for {
		i := strings.LastIndexByte(s, '[')
		j := strings.LastIndexByte(s, ']')
		if i < 0 || j < i {
			return s
		}
		s = s[:i] + " " + s[j+1:]
	}
}

// lastIdent: the last identifier of s (brackets and their contents
// dropped: aes_key[32], byte[] KEY).
func lastIdent(s string) string {
	s = strings.TrimRight(dropBrackets(s), " \t*&")
	e := len(s)
	st := e
	for st > 0 && (isAlnum(s[st-1]) || s[st-1] == '_' || s[st-1] == '.' || s[st-1] == '-') {
		st--
	}
	return strings.Trim(s[st:e], ".-")
}

// namedKey: the literal at s is assigned to a name (or passed to a call)
// that holds key material, or a quoted sibling value of its SQL statement
// names a secret (VALUES ('smtp_password', 0x…), WHERE k = 'api_key').
func namedKey(text string, s, e int) bool {
	name, rhs := assignedName(text, s)
	if name != "" {
		if keyMaterialName(name) {
			return true
		}
		var arr [16]string
		for _, w := range appendWords(arr[:0], name) {
			if notSecretWords[w] {
				return false
			}
		}
	}
	for _, call := range []string{"secretkeyspec(", "hmac", "signingkey", "secretkey(", "newcipher(", "aesgcm(", "fernet("} {
		if strings.Contains(lowerASCII(rhs), call) {
			return true
		}
	}
	return sqlSiblingNamesSecret(text, s, e)
}

// sqlSiblingNamesSecret: the literal at [s, e) stands in a SQL statement
// (VALUES, SET, WHERE on its line) one of whose quoted strings is a
// secret's name.
func sqlSiblingNamesSecret(text string, s, e int) bool {
	lo, hi := max(0, s-300), min(len(text), e+300)
	ls := lo + strings.LastIndexByte(text[lo:s], '\n') + 1
	le := strings.IndexByte(text[e:hi], '\n')
	if le < 0 {
		le = hi
	} else {
		le += e
	}
	line := text[ls:le]
	low := lowerASCII(line)
	if !strings.Contains(low, "values") && !strings.Contains(low, " set ") && !strings.Contains(low, "where") {
		return false
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '\'' {
			continue
		}
		j := strings.IndexByte(line[i+1:], '\'')
		if j < 0 {
			break
		}
		v := line[i+1 : i+1+j]
		if ls+i+1 != s && len(v) >= 3 && len(v) <= 64 && !strings.ContainsAny(v, " \t") && keyMaterialName(v) {
			return true
		}
		i += j + 1
	}
	return false
}

// ---- (1) an auth scheme's value by its position

// findAuthSchemeValues: the token after Basic in a header the line names
// an Authorization (Authorization:, Proxy-Authorization:, git's
// extraheader in any case, a HAR's {"name": "Authorization", "value":
// "Basic …"}), whatever it decodes to: binary after "user:" is a
// password too (basic-auth's own check wants printable user:pass).
func findAuthSchemeValues(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		if !strings.Contains(lowerASCII(linePrefix(text, p)), "authoriz") {
			continue
		}
		s := p + len("basic ")
		for s < len(text) && text[s] == ' ' {
			s++
		}
		e := b64RunEnd(text, s)
		if e-s < 12 || e < len(text) && (isB64URLOrDot(text[e]) || text[e] == '$' || text[e] == '{') {
			continue
		}
		if schemeValueCredential(text[s:e]) {
			emit(s, e, "basic-auth")
		}
	}
}

// schemeValueCredential: v, the base64 an auth scheme carries, is a
// credential unless it decodes to text that says it is none: user: with
// an empty password, a placeholder, a short word.
func schemeValueCredential(v string) bool {
	if emptyPlaceholder(v) || encodedPlaceholder(v) || entropy(v) < 2.5 {
		return false
	}
	b, ok := decodeB64(v)
	if !ok {
		return len(v) >= 16 && classOf(v).kinds() >= 2
	}
	if !printableText(b) {
		return len(b) >= 8 && !misalignedText(v)
	}
	d := string(b)
	if i := strings.IndexByte(d, ':'); i >= 0 {
		pw := d[i+1:]
		return pw != "" && plausibleValue(pw, kindPassword, true)
	}
	return len(d) >= 12 && plausibleValue(d, kindToken, true)
}

// misalignedText: v decodes to binary only because it is a piece of a
// longer base64 text cut off its 4-character grid, or a text with a
// character changed (a test of malformed headers rotates and breaks
// "YWxhZGRpbjpvcGVu…"): read from its 1st to 4th character, it decodes to
// bytes three quarters of which are text. Random bytes are text one time
// in three from any offset.
func misalignedText(v string) bool {
	v = strings.TrimRight(v, "=")
	for k := 0; k <= 3 && len(v)-k >= 12; k++ {
		w := v[k:]
		b, _ := decodeB64(w[:len(w)/4*4])
		n := 0
		for _, c := range b {
			if c >= 0x20 && c < 0x7f {
				n++
			}
		}
		if len(b) >= 8 && 4*n >= 3*len(b) {
			return true
		}
	}
	return false
}

// findSASLResponses: a SASL mechanism's initial response on its line
// (AUTH XOAUTH2 …, AUTHENTICATE OAUTHBEARER …, XMPP's <auth
// mechanism='PLAIN'>…</auth>, ManageSieve's AUTHENTICATE "PLAIN" "…"),
// or the client's answer to SMTP's "Password:" challenge, whatever it
// decodes to; not a placeholder (user\0password) nor "=" (none).
func findSASLResponses(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos + h.alen)
		if text[h.pos] == 'U' || text[h.pos] == 'c' { // UGFzc3dvcmQ6: the next line's token
			if strings.HasPrefix(text[h.pos:], "UGFzc3dvcmQ6") || strings.HasPrefix(text[h.pos:], "cGFzc3dvcmQ6") {
				nl := strings.IndexByte(text[p:], '\n')
				if nl < 0 {
					continue
				}
				p += nl + 1
				for p < len(text) && (text[p] == ' ' || text[p] == 'C' && strings.HasPrefix(text[p:], "C: ")) {
					if text[p] == 'C' {
						p += 2
					}
					p++
				}
				s, e := saslToken(text, p)
				if s >= 0 && saslCredential(text[s:e], false) {
					emit(s, e, "encoded-secret")
				}
				continue
			}
		}
		if isFold(text[h.pos:p], "mechanism=") {
			// <auth … mechanism='PLAIN'>TOKEN</auth>
			gt := strings.IndexByte(text[p:min(len(text), p+40)], '>')
			if gt < 0 || !strings.Contains(lowerASCII(linePrefix(text, p)), "<auth") {
				continue
			}
			p += gt + 1
		}
		// past the blanks and quotes, on the same line
		for p < len(text) && (text[p] == ' ' || text[p] == '"' || text[p] == '\'') {
			p++
		}
		s, e := saslToken(text, p)
		if s >= 0 && saslCredential(text[s:e], true) {
			emit(s, e, "encoded-secret")
		}
	}
}

// saslToken: the base64 token starting at p, 12 bytes at least.
func saslToken(text string, p int) (int, int) {
	e := b64RunEnd(text, p)
	if e-p < 12 || e < len(text) && isAlnum(text[e]) {
		return -1, -1
	}
	return p, e
}

// saslCredential: a SASL response v is a credential: what it decodes to
// is binary, or text that is not a placeholder (PLAIN's authzid\0user\0
// password judged by its password).
func saslCredential(v string, initial bool) bool {
	if emptyPlaceholder(v) || entropy(v) < 2.5 {
		return false
	}
	b, ok := decodeB64(v)
	if !ok {
		return false
	}
	if parts := bytes.Split(b, []byte{0}); len(parts) == 3 {
		pw := string(parts[2])
		return len(pw) >= 4 && (!printableText(parts[2]) || plausibleValue(pw, kindPassword, true))
	}
	if bytes.Contains(b, []byte("auth=")) || !printableText(b) {
		return len(b) >= 8
	}
	return plausibleValue(string(b), kindPassword, true) && !encodedPlaceholder(v)
}

// ---- (2) bytes and hex bound to a key's name

// findNamedKeyBytes: at each hit, the byte list, escaped byte string or
// hex literal there (16 bytes at least), reported when it is bound to a
// key's name (namedKey) and is not one repeated byte. Every span read is
// passed over by the hits after it (a table of 0x values is read once).
func findNamedKeyBytes(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		s, e, n := keyLiteralAt(text, p, int(h.alen))
		done = max(done, e, p+1)
		if s < 0 || n < 16 || !namedKey(text, s, e) {
			continue
		}
		if v := text[s:e]; entropy(v) < 2.5 {
			continue
		}
		emit(s, e, "encoded-secret")
	}
}

// keyLiteralAt: the literal of bytes at the hit at p: a list of numbers
// (0xHH or signed decimals, separated by commas, over lines too), a string
// of \xHH escapes (with the printable bytes a repr shows between them), or
// a run of hex digits (an even number, 0x allowed); its span and how many
// bytes it writes. s is -1 when there is none; e is then how far the text
// was read.
func keyLiteralAt(text string, p, alen int) (int, int, int) {
	hitText := lowerASCII(text[p:min(len(text), p+alen)])
	switch hitText {
	case "'hex')":
		// decode('…', 'hex'): the literal before
		lo := max(0, p-4000)
		k := strings.LastIndexByte(text[lo:p], '(')
		if k < 0 {
			return -1, p + alen, 0
		}
		s := lo + k + 1
		for s < p && (text[s] == '\'' || text[s] == ' ') {
			s++
		}
		n := hexRunLen(text, s)
		return s, s + n, n / 2
	case `\x`:
		return escapedBytesAt(text, p)
	case ", 0x":
		// one long 0x hex literal (MSSQL), or the list of 0x values
		// from its first element (back over the list's elements)
		if n := hexRunLen(text, p+4); n >= 32 {
			return p + 2, p + 4 + n, n / 2
		}
		st := p
		for st > 0 && p-st < 4000 && (isHex(text[st-1]) || strings.IndexByte("xX, \t\r\n", text[st-1]) >= 0) {
			st--
		}
		for st < p && !(text[st] == '0' && (text[st+1] == 'x' || text[st+1] == 'X')) {
			st++
		}
		return numberListFrom(text, st)
	}
	q := p + alen
	if hitText == "ey =" {
		// key = <hex>: the value right there, or nothing
		k := q
		for k < len(text) && k-q < 4 && (text[k] == ' ' || text[k] == '"' || text[k] == '\'' || text[k] == '[') {
			k++
		}
		if n := hexRunLen(text, k); n >= 32 && (k+n >= len(text) || !isAlnum(text[k+n])) {
			return k, k + n, n / 2
		}
		return -1, q, 0
	}
	// after an opener: the first literal within 80 bytes on its line,
	// or at the start of the next line (a C array's body)
	for k := q; k < len(text) && k-q < 80; k++ {
		c := text[k]
		prev := text[k-1]
		switch {
		case c == '\n':
			k++
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && (text[k] == '0' || text[k] == '-' || isDigit(text[k])) {
				return numberListFrom(text, k)
			}
			return -1, k, 0
		case c == '\\' && k+1 < len(text) && text[k+1] == 'x':
			return escapedBytesAt(text, k)
		case c == '0' && k+1 < len(text) && (text[k+1] == 'x' || text[k+1] == 'X') && !isAlnum(prev):
			if n := hexRunLen(text, k+2); n >= 32 {
				return k, k + 2 + n, n / 2
			}
			return numberListFrom(text, k)
		case (c == '-' || isDigit(c)) && openerBefore(text, q, k):
			return numberListFrom(text, k)
		case isHex(c) && !isAlnum(prev) && prev != '_':
			if n := hexRunLen(text, k); n >= 32 && (k+n >= len(text) || !isAlnum(text[k+n])) {
				return k, k + n, n / 2
			}
		}
	}
	return -1, q, 0
}

// openerBefore: the last byte before k (blanks passed over, not before
// the anchor's last byte at q-1)
// opens a list: { ( [.
func openerBefore(text string, q, k int) bool {
	j := k - 1
	for j > q && (text[j] == ' ' || text[j] == '\t') {
		j--
	}
	return j >= q-1 && strings.IndexByte("{([", text[j]) >= 0
}

// hexRunLen: the length of the run of hex digits at i, made even.
func hexRunLen(text string, i int) int {
	n := 0
	for i+n < len(text) && n < 16000 && isHex(text[i+n]) {
		n++
	}
	return n &^ 1
}

// numberListFrom: the comma-separated list of byte values (0xHH, or
// decimals from -128 to 255) starting at p: its span and length (-1 and
// how far it was read when a value is not a byte).
func numberListFrom(text string, p int) (int, int, int) {
	i, n, e := p, 0, p
	for i < len(text) && i-p < 16000 {
		j := i
		if j < len(text) && text[j] == '-' {
			j++
		}
		base := 10
		if j+1 < len(text) && text[j] == '0' && (text[j+1] == 'x' || text[j+1] == 'X') {
			j += 2
			base = 16
		}
		k := j
		for k < len(text) && (base == 16 && isHex(text[k]) || base == 10 && isDigit(text[k])) {
			k++
		}
		if k == j || k-j > 4 {
			return -1, max(k, p+1), 0
		}
		v, err := strconv.ParseInt(text[j:k], base, 32)
		if err != nil || v > 255 || text[i] == '-' && (base == 16 || v > 128) {
			return -1, k, 0
		}
		n++
		e = k
		// the separator: blanks, one comma, blanks and newlines
		i = k
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) || text[i] != ',' {
			break
		}
		i++
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
	}
	return p, e, n
}

// escapedBytesAt: the quoted string of \xHH escapes holding p (Python's
// b'…' repr, Rust's b"…", C's "…"): its body's span and its byte count.
func escapedBytesAt(text string, p int) (int, int, int) {
	s := p
	for s > 0 && p-s < 400 && text[s-1] != '\'' && text[s-1] != '"' && text[s-1] != '\n' {
		s--
	}
	// the escapes run on from p whatever is found: read once
	e := p
	for e+3 < len(text) && e-p < 16000 && text[e] == '\\' {
		if text[e+1] == 'x' && isHex(text[e+2]) && isHex(text[e+3]) {
			e += 4
			continue
		}
		e += 2
	}
	if s == 0 || text[s-1] == '\n' || p-s >= 400 {
		return -1, max(e, p+1), 0
	}
	q := text[s-1]
	n, esc := 0, 0
	e = s
	for e < len(text) && e-s < 16000 && text[e] != q && text[e] != '\n' {
		if text[e] == '\\' && e+1 < len(text) {
			if text[e+1] == 'x' && e+3 < len(text) && isHex(text[e+2]) && isHex(text[e+3]) {
				e += 4
				esc++
			} else {
				e += 2
			}
		} else {
			e++
		}
		n++
	}
	if e >= len(text) || text[e] != q || esc < 8 {
		return -1, max(e, p+1), 0
	}
	return s, e, n
}

// findNamedDecodeCalls: the literal given to a decoding call (base64 or
// hex: b64decode, FromBase64String, getDecoder().decode, DecodeString,
// Buffer.from, decode64, fromhex, hex2bin …) assigned to a secret's
// name: reported when it decodes to binary (key material) or to text the
// built-in rules find a secret in under that name.
func findNamedDecodeCalls(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos + h.alen)
		q := p
		for q < len(text) && q-p < 120 && text[q] != '"' && text[q] != '\'' && text[q] != '\n' && text[q] != ')' {
			q++
		}
		if q >= len(text) || (text[q] != '"' && text[q] != '\'') {
			continue
		}
		s := q + 1
		e := s
		for e < len(text) && e-s < 16000 && (isB64(text[e]) || text[e] == '-' || text[e] == '_') {
			e++
		}
		for e < len(text) && text[e] == '=' {
			e++
		}
		if e-s < 16 || e >= len(text) || text[e] != text[q] {
			continue
		}
		name, _ := assignedName(text, int(h.pos))
		if name == "" || !secretWordName(name) {
			continue
		}
		v := text[s:e]
		var b []byte
		var ok bool
		if allHex(v) && len(v)%2 == 0 {
			b, _ = hex.DecodeString(v)
			ok = b != nil
		} else {
			b, ok = decodeB64(v)
		}
		if !ok || len(b) < 8 {
			continue
		}
		if !printableText(b) {
			emit(s, e, "encoded-secret")
			continue
		}
		d := string(b)
		if !strings.ContainsAny(d, " \t\n") && plausibleValue(d, kindPassword, true) && (classOf(d).kinds() >= 2 || len(d) >= 16) {
			emit(s, e, "encoded-secret")
		}
	}
}

// findPrintedKeys: a value printed as a key: the output line of a REPL
// expression that names key material (>>> key, >>> password.encode().hex())
// or generates a secret (secrets.token_hex, os.urandom, randomBytes), and
// the output of openssl rand -hex|-base64.
func findPrintedKeys(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		le := strings.IndexByte(text[p:], '\n')
		if le < 0 {
			continue
		}
		cmd := lowerASCII(text[nearLineStart(text, p) : p+le])
		if !printsKey(cmd) {
			continue
		}
		s := p + le + 1
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			e = len(text)
		} else {
			e += s
		}
		v := strings.TrimRight(text[s:e], "\r ")
		off := 0
		for _, pre := range []string{"b'", "b\"", "'", "\""} {
			if strings.HasPrefix(v, pre) && len(v) > len(pre)+1 && v[len(v)-1] == pre[len(pre)-1] {
				off, v = len(pre), v[len(pre):len(v)-1]
				break
			}
		}
		if len(v) < 16 || strings.ContainsAny(v, " \t") || strings.HasPrefix(v, ">>>") || strings.HasPrefix(v, "$ ") || entropy(v) < 3 {
			continue
		}
		emit(s+off, s+off+len(v), "encoded-secret")
	}
}

// printsKey: a command or REPL line whose output is key material.
func printsKey(cmd string) bool {
	for _, g := range []string{"token_hex(", "token_urlsafe(", "token_bytes(", "urandom(", "randombytes(", "generate_key(", "get_random_bytes(", "openssl rand "} {
		if strings.Contains(cmd, g) {
			return true
		}
	}
	i := strings.Index(cmd, ">>> ")
	if i < 0 {
		return false
	}
	expr := strings.TrimSpace(cmd[i+4:])
	if strings.ContainsAny(expr, "=(") && !strings.HasSuffix(expr, ".hex()") && !strings.Contains(expr, ".encode()") {
		return false // a statement or a call other than the key's own encodings
	}
	id := expr
	if k := strings.IndexByte(id, '.'); k > 0 {
		id = id[:k]
	}
	return keyMaterialName(id)
}

// ---- (3) credential blobs

// findCredentialBlobs: a base64 value under a name whose last words say
// it is encoded (*_B64, *_BASE64, *Base64, *_B64URL, SecretString
// (base64), *_CREDENTIALS_FILE, SERVICE_ACCOUNT_JSON): a secret whatever
// it decodes to when the rest of the name says credential
// (keyMaterialName); else judged by what it decodes to, its prefix when
// the rest is binary (prefixOpensCredential).
func findCredentialBlobs(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		// the name holding the hit, and what follows it
		ns := p
		for ns > 0 && (isTokenByte(text[ns-1]) || text[ns-1] == '.') {
			ns--
		}
		ne := p + int(h.alen)
		for ne < len(text) && isTokenByte(text[ne]) {
			ne++
		}
		name := text[ns:ne]
		i := ne
		if ns > 1 && text[ns-1] == '(' && ne < len(text) && text[ne] == ')' {
			// SecretString (base64): the name before the label
			name, i = lastIdent(strings.TrimRight(text[nearLineStart(text, ns):ns-1], " ")), ne+1
		}
		i, ok := valueAfterName(text, i)
		if !ok {
			continue
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		j := b64RunEnd(text, i)
		if j-i < 24 {
			continue
		}
		// a value glued past its padding is one value (SSH_KEY_B64: …=…)
		for j < len(text) && j-i < 16000 && (isB64(text[j]) || text[j] == '=' || text[j] == '-' || text[j] == '_') {
			j++
		}
		done = j
		if j < len(text) && isTokenByte(text[j]) {
			continue
		}
		if credentialBlob(name, linePrefix(text, i), text[i:j]) {
			emit(i, j, "encoded-secret")
		}
	}
}

// valueAfterName: from the end of a name at i, past its closing quote,
// blanks, its separator (= : :=) and the blanks after it: where its value
// starts; false when no separator follows (encoded.go's encoded names
// read them so too).
func valueAfterName(text string, i int) (int, bool) {
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	i = skipBlanks(text, i)
	switch {
	case strings.HasPrefix(text[i:], ":="):
		i += 2
	case i < len(text) && (text[i] == '=' || text[i] == ':'):
		i++
	default:
		return i, false
	}
	return skipBlanks(text, i), true
}

// credentialBlob: v under name (pre: its line up to v) holds a credential.
func credentialBlob(name, pre, v string) bool {
	if emptyPlaceholder(v) || entropy(v) < 3 {
		return false
	}
	b, _ := decodeB64(strings.TrimRight(v, "="))
	if b == nil {
		b, _ = decodeB64(v[:len(v)/4*4])
	}
	head := printablePrefix(b)
	if publicBlob(head) {
		return false
	}
	if keyMaterialName(name) {
		if _, ok := classifyIdent(name); ok {
			return false // MASTER_KEY_B64=…: the keyword rules' (their id kept)
		}
		return !(printableText(b) && encodedPlaceholder(v))
	}
	if printableText(b) {
		d := string(b)
		return holdsSecret(pre, d, "") || !strings.ContainsAny(strings.TrimSpace(d), " \t\n") && strongValue(strings.TrimSpace(d)) ||
			decodedCredential(d) || plainAssignmentPassword(d)
	}
	return prefixOpensCredential(plainScanner(), pre, head)
}

// publicBlob: decoded text that opens a public object (a certificate, a
// public key, an image or font header is not text).
func publicBlob(head string) bool {
	for _, p := range []string{"-----BEGIN CERTIFICATE", "-----BEGIN PUBLIC KEY", "-----BEGIN X509", "-----BEGIN PGP PUBLIC",
		"ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-", "-----BEGIN OPENSSH PUBLIC"} {
		if strings.HasPrefix(head, p) {
			return true
		}
	}
	return false
}

// printablePrefix: the leading bytes of b that are text (a partial rune
// dropped).
func printablePrefix(b []byte) string {
	n := 0
	for n < len(b) && (b[n] >= 0x20 && b[n] < 0x7f || b[n] == '\n' || b[n] == '\r' || b[n] == '\t') {
		n++
	}
	return string(b[:n])
}

// generatedFill stands for the rest of a value whose prefix only is text:
// a generated value of 40 characters (the length of an AWS secret key).
const generatedFill = "Zq7Kx2Lm9Pw4Rt8Vb3NcYh6Jd5Fs1Gk0Ua8Ie2Ow"

// prefixOpensCredential: head, the text a blob's first bytes decode to
// before binary bytes, opens a credential: with a generated value in
// place of the rest (closed as a string, or as a URL's authority), the
// built-in rules find a secret in it or in head itself; or it opens a
// private key's armor.
func prefixOpensCredential(sc *Scanner, pre, head string) bool {
	if len(head) < 6 {
		return false
	}
	if strings.Contains(head, "PRIVATE KEY-----") && strings.Contains(head, "-----BEGIN") {
		return true
	}
	for _, tail := range []string{generatedFill + "\"\n", generatedFill + "\n", generatedFill + "@db.internal:5432/app\n"} {
		view := pre + head + tail
		for _, f := range sc.Scan(view) {
			if f.End > len(pre) && f.Start < len(pre)+len(head)+len(generatedFill) {
				return true
			}
		}
	}
	return false
}

// plainAssignmentPassword: decoded text holds a NAME=VALUE line whose name
// is a password's and whose value is one (three kinds of characters, 8 or
// more), dots included (jdbc.password=eLW3w7tITolmp.YW, which the
// keyword rules take for a file name).
func plainAssignmentPassword(d string) bool {
	for _, l := range strings.Split(d, "\n") {
		k := strings.IndexByte(l, '=')
		if k <= 0 {
			continue
		}
		name, v := strings.TrimSpace(l[:k]), strings.TrimSpace(l[k+1:])
		if kind, ok := classifyIdent(name); ok && kind == kindPassword && len(v) >= 8 && classOf(v).kinds() >= 3 &&
			!strings.ContainsAny(v, " /") && plausibleValue(strings.ReplaceAll(v, ".", "_"), kindPassword, true) {
			return true
		}
	}
	return false
}

// binaryTailCredential: a base64 run v (not hex, not percent-encoding)
// whose first bytes decode to text and the rest to binary: its text
// prefix opens a credential (prefixOpensCredential). The sweep
// (anywhere.go) asks it for runs whose whole does not decode to text.
func binaryTailCredential(sc *Scanner, v, pre string) bool {
	if sc == nil || len(v) < 24 || runKind(v) == '%' || runKind(v) == 'x' || runKind(v) == '2' {
		return false
	}
	var buf [96]byte
	// the first 8 bytes text, or nothing more is decoded
	if b, _ := decodeB64To(buf[:0], v[:12]); len(b) < 9 || len(printablePrefix(b)) < 8 {
		return false
	}
	w := v[:min(len(v), 128)/4*4]
	b, _ := decodeB64To(buf[:0], w)
	head := printablePrefix(b)
	if len(head) < 8 || len(head) == len(b) && len(w) == len(v) {
		return false
	}
	return !publicBlob(head) && prefixOpensCredential(sc, pre, head)
}

// ---- (4) the output of a command that reads a secret

// secretCommandAnchors: commands whose output is a secret's value, and
// base64's decoding and encoding in a pipe; each cut to start past the
// trigrams secret-dense text is full of ("sec", "key", "pas", "fin":
// "secret inspect" is found by its .Spec.Data or --showsecret, "az
// keyvault secret show" by "vault secret show").
var secretCommandAnchors = []string{"kubectl", " oc extract", " oc get secret", "showsecret", ".spec.data", "vault kv get", "vault read",
	"et-secret-value", "versions access", "vault secret show", "d-generic-password", "d-internet-password",
	"$ pass show", "| base64", "|base64", "base64 -d <<<", "base64 --decode <<<"}

// findSecretCommandOutput: after a command that prints a secret's value
// (secretCommand), the first line of its output when it is one token;
// what echo/printf X | base64 -d decodes (X, and the printed output) when
// it is a generated token or user:password; what echo X | base64 encodes
// under a secret's name.
func findSecretCommandOutput(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		ls := nearLineStart(text, p)
		le := strings.IndexByte(text[p:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += p
		}
		done = le
		cmd := text[ls:le]
		lc := lowerASCII(cmd)
		decodes := strings.Contains(lc, "base64 -d") || strings.Contains(lc, "base64 --decode") || strings.Contains(lc, "base64 -D")
		// the literal piped into base64
		if strings.Contains(lc, "| base64") || strings.Contains(lc, "|base64") || strings.Contains(lc, "base64 -d <<<") || strings.Contains(lc, "base64 --decode <<<") {
			if s, e, ok := pipedLiteral(cmd); ok {
				v := cmd[s:e]
				switch {
				case decodes && (decodedSecretToken(v) || binaryTailCredential(plainScanner(), v, "")):
					emit(ls+s, ls+e, "encoded-secret")
				case !decodes:
					if name, _ := assignedName(text, ls+s); (name != "" && keyMaterialName(name)) || strongValue(v) {
						if plausibleValue(v, kindPassword, true) {
							emit(ls+s, ls+e, "encoded-secret")
						}
					}
				}
			}
		}
		// the output: the next line, one token
		s, e := outputToken(text, le)
		if s < 0 {
			continue
		}
		v := text[s:e]
		switch {
		case secretCommand(lc):
			if secretOutput(lc, v, decodes) {
				emit(s, e, "encoded-secret")
			}
		case decodes && (decodedCredential(v) || strongValue(v) || plausibleValue(v, kindPassword, true) && classOf(v).kinds() >= 3 && len(v) >= 12):
			emit(s, e, "encoded-secret")
			if ps, pe, ok := pipedLiteral(cmd); ok && pe-ps >= 12 {
				emit(ls+ps, ls+pe, "encoded-secret") // the same secret, encoded
			}
		}
	}
}

// pipedLiteral: the literal of echo/printf X | base64 … or base64 -d
// <<< X in cmd (quoted or not).
func pipedLiteral(cmd string) (int, int, bool) {
	i := -1
	for _, w := range []string{"echo -n ", "echo ", "printf '%s' ", "printf \"%s\" ", "printf ", "<<< "} {
		if k := strings.Index(cmd, w); k >= 0 {
			i = k + len(w)
			break
		}
	}
	if i < 0 {
		return -1, -1, false
	}
	for i < len(cmd) && cmd[i] == ' ' {
		i++
	}
	if i < len(cmd) && (cmd[i] == '\'' || cmd[i] == '"') {
		q := cmd[i]
		j := strings.IndexByte(cmd[i+1:], q)
		if j < 8 {
			return -1, -1, false
		}
		return i + 1, i + 1 + j, true
	}
	j := i
	for j < len(cmd) && cmd[j] != ' ' && cmd[j] != '|' && cmd[j] != '"' && cmd[j] != '\'' {
		j++
	}
	if j-i < 8 || cmd[i] == '$' {
		return -1, -1, false
	}
	return i, j, true
}

// decodedSecretToken: v is base64 of one generated token or of
// user:password.
func decodedSecretToken(v string) bool {
	b, ok := decodeB64(v)
	if !ok || !printableText(b) {
		return false
	}
	d := strings.TrimRight(string(b), "\r\n")
	if strings.ContainsAny(d, " \t\n") {
		return false
	}
	return decodedCredential(d) || strongValue(d) || len(d) >= 12 && classOf(d).kinds() >= 3 && plausibleValue(d, kindPassword, true)
}

// outputToken: the first line after the command line ending at le, when
// it is one token (quotes around it dropped) and not a prompt.
func outputToken(text string, le int) (int, int) {
	if le >= len(text) {
		return -1, -1
	}
	s := le + 1
	e := strings.IndexByte(text[s:], '\n')
	if e < 0 {
		e = len(text)
	} else {
		e += s
	}
	for e > s && (text[e-1] == '\r' || text[e-1] == ' ') {
		e--
	}
	if e-s >= 2 && text[s] == '"' && text[e-1] == '"' {
		s, e = s+1, e-1
	}
	v := text[s:e]
	if len(v) < 8 || strings.ContainsAny(v, " \t") || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "#") || strings.HasPrefix(v, ">") {
		// oc extract --to=- prints "# KEY" first
		if strings.HasPrefix(v, "# ") && !strings.ContainsAny(v[2:], " \t") {
			return outputToken(text, e)
		}
		return -1, -1
	}
	return s, e
}

// secretCommand: cmd prints a secret's value.
func secretCommand(cmd string) bool {
	switch {
	case strings.Contains(cmd, "kubectl") || strings.Contains(cmd, "oc get secret"):
		return strings.Contains(cmd, "secret") && (strings.Contains(cmd, ".data") || strings.Contains(cmd, "jsonpath") && strings.Contains(cmd, "data"))
	case strings.Contains(cmd, "secret inspect"):
		return strings.Contains(cmd, "data") || strings.Contains(cmd, "--showsecret")
	case strings.Contains(cmd, "oc extract"), strings.Contains(cmd, "vault kv get"), strings.Contains(cmd, "vault read"):
		return strings.Contains(cmd, "-field") || strings.Contains(cmd, "--keys") || strings.Contains(cmd, "--to=-")
	case strings.Contains(cmd, "get-secret-value"), strings.Contains(cmd, "secrets versions access"),
		strings.Contains(cmd, "keyvault secret show"), strings.Contains(cmd, "pass show"):
		return true
	case strings.Contains(cmd, "find-generic-password") || strings.Contains(cmd, "find-internet-password"):
		return strings.Contains(cmd, " -w")
	}
	return false
}

// secretOutput: v, printed by the secret-reading cmd, is the secret: not
// when the key it reads is public (ca.crt, namespace, username, a name),
// nor when, base64, it decodes to a certificate or a short word.
func secretOutput(cmd, v string, decoded bool) bool {
	for _, k := range []string{"ca.crt", `ca\.crt`, "tls.crt", `tls\.crt`, ".namespace", "username", "-field=user", "metadata", ".id}}", "=url", "=host"} {
		if strings.Contains(cmd, k) {
			return false
		}
	}
	if emptyPlaceholder(v) || isPlaceholderWord(v) || hasPlaceholderPart(v) {
		return false
	}
	if !decoded && strings.Contains(cmd, "kubectl") || strings.Contains(cmd, "secret inspect") && !strings.Contains(cmd, "--showsecret") {
		if b, ok := decodeB64(v); ok && printableText(b) {
			d := string(b)
			return len(d) >= 6 && !publicBlob(d) && !strings.ContainsAny(strings.TrimSpace(d), " \t")
		}
	}
	return entropy(v) >= 3
}

// ---- (5) percent-encoding in query strings

// findPercentQueryValues: the query parameter (NAME=VALUE after ? & # or
// at a form body's start) holding each escape, its value percent-decoded
// (twice when it holds %25): reported over the value when its name names
// a secret and the decoded value is one; a URL nested in the value has
// its own parameters judged the same way, reported over the bytes that
// wrote the secret.
func findPercentQueryValues(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		if text[p] != '%' {
			p += 1 // ?access= &access=: the name's first byte
		}
		// the parameter holding p
		vs := p
		for vs > 0 && p-vs < 4000 && isURLByte(text[vs-1]) && text[vs-1] != '=' && text[vs-1] != '&' && text[vs-1] != '?' {
			vs--
		}
		if vs == 0 || text[vs-1] != '=' {
			if text[p] == '%' {
				continue
			}
			vs = p + strings.IndexByte(text[p:], '=') + 1
		}
		ns := vs - 1
		for ns > 0 && (isTokenByte(text[ns-1]) || text[ns-1] == '.') {
			ns--
		}
		ve := vs
		for ve < len(text) && ve-vs < 4000 && isURLByte(text[ve]) && text[ve] != '&' && text[ve] != '#' {
			ve++
		}
		done = ve
		judgeQueryValue(text[ns:vs-1], text, vs, ve, nil, 0, emit)
	}
}

// judgeQueryValue: the value text[vs:ve] of the parameter name (src maps
// a decoded text's offsets to the original's, nil at the top level).
func judgeQueryValue(name, text string, vs, ve int, src []int, depth int, emit func(s, e int, id string)) {
	at := func(i int) int {
		if src == nil {
			return i
		}
		return src[i]
	}
	v := text[vs:ve]
	plain := v
	for n := 0; n < 3 && strings.IndexByte(plain, '%') >= 0; n++ {
		d, _ := unpercent(plain)
		if d == "" {
			break
		}
		plain = d
	}
	if queryNameSecret(name) && !strings.ContainsAny(plain, "?&") && !strings.Contains(plain, "://") && queryValueSecret(name, plain) {
		emit(at(vs), at(ve), "encoded-secret")
		return
	}
	// a URL in the value (a webhook's, whose secret is a path segment):
	// scanned decoded; the whole value is reported (the URL is the
	// credential: its host and ids lead to the secret's owner)
	if d, _ := unpercent(v); (strings.HasPrefix(d, "https://") || strings.HasPrefix(d, "http://")) && len(plainScanner().Scan(d)) > 0 {
		emit(at(vs), at(ve), "encoded-secret")
		return
	}
	// a URL (or a JDBC URL) nested in the value: its own parameters
	if depth > 0 || !strings.Contains(v, "%3") && !strings.Contains(v, "%2") {
		return
	}
	d, m := unpercent(v)
	if d == "" {
		return
	}
	q := strings.IndexAny(d, "?;")
	if q < 0 {
		return
	}
	sub := make([]int, len(m))
	for i := range m {
		sub[i] = at(vs + m[i])
	}
	for i := q + 1; i < len(d); {
		j := strings.IndexAny(d[i:], "&;")
		if j < 0 {
			j = len(d) - i
		}
		if k := strings.IndexByte(d[i:i+j], '='); k > 0 {
			judgeQueryValue(d[i:i+k], d, i+k+1, i+j, sub, depth+1, emit)
		}
		i += j + 1
	}
}

// queryNameSecret: a query parameter's name that carries a credential.
func queryNameSecret(name string) bool {
	switch lowerASCII(name) {
	case "key", "apikey", "api_key", "access", "access_token", "auth", "token", "sig", "signature", "code", "secret",
		"client_secret", "password", "pass", "pwd", "x-amz-security-token", "x-amz-signature":
		return true
	}
	_, ok := classifyIdent(name)
	return ok
}

// queryValueSecret: the decoded value of a credential's parameter is one.
func queryValueSecret(name, v string) bool {
	ln := lowerASCII(name)
	if kind, ok := classifyIdent(name); ok && kind == kindPassword {
		if strings.Count(v, "/") == 1 && v[0] == '/' {
			v = v[1:] // %2F… decoded: a password's first byte, not a path
		}
		return plausibleValue(v, kindPassword, true) && classOf(v).kinds() >= 2
	}
	if ln == "code" && !strings.Contains(v, "/") {
		return false // an authorization code is the generic rules' (with its state)
	}
	c := classOf(v)
	return len(v) >= 20 && !emptyPlaceholder(v) && !hasPlaceholderPart(v) && c.digit > 0 && c.lower+c.upper > 0 && entropy(v) >= 3.5
}

// ---- (6) entities in a value named as a secret

// findNamedEntities: the XML element text or attribute value holding an
// entity, decoded and judged as a password under the name its tag, its
// attributes (name=, key=, type=), its parent or a preceding sibling
// element (<name>…</name>, <Name>…</Name>, <key>…</key> within four
// lines) gives it.
func findNamedEntities(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		vs, ve, attr, ok := xmlValueAround(text, p)
		if !ok {
			continue
		}
		done = ve
		v := text[vs:ve]
		d, _ := unescapeRefs(v)
		if d == "" || len(d) < 8 || strings.ContainsAny(d, "\n") {
			continue
		}
		if !plausibleValue(d, kindPassword, true) || classOf(d).kinds() < 3 {
			continue
		}
		if xmlNameSecret(text, vs, attr) {
			emit(vs, ve, "encoded-secret")
		}
	}
}

// xmlValueAround: the element text (between > and <) or the quoted
// attribute value holding p; attr says which.
func xmlValueAround(text string, p int) (int, int, bool, bool) {
	lo := max(0, p-300)
	hi := min(len(text), p+300)
	gt := strings.LastIndexByte(text[lo:p], '>')
	lt := strings.LastIndexByte(text[lo:p], '<')
	switch {
	case gt >= 0 && gt > lt:
		vs := lo + gt + 1
		ve := strings.IndexByte(text[p:hi], '<')
		if ve < 0 || strings.Contains(text[vs:p+ve], "\n") {
			return 0, 0, false, false
		}
		return vs, p + ve, false, true
	case lt >= 0:
		q := strings.LastIndexByte(text[lo+lt:p], '"')
		if q <= 0 || text[lo+lt+q-1] != '=' {
			return 0, 0, false, false
		}
		vs := lo + lt + q + 1
		ve := strings.IndexByte(text[p:hi], '"')
		if ve < 0 {
			return 0, 0, false, false
		}
		return vs, p + ve, true, true
	}
	return 0, 0, false, false
}

// xmlNameSecret: the value at vs is named as a password or secret: for an
// attribute, by its own name or the tag's name=/key= (or type="password");
// for element text, by its tag, the tag's attributes, a preceding
// sibling's text within four lines, or its parent's tag.
func xmlNameSecret(text string, vs int, attr bool) bool {
	ts := strings.LastIndexByte(text[max(0, vs-400):vs], '<')
	if ts >= 0 {
		ts += max(0, vs-400)
	}
	if ts < 0 {
		return false
	}
	tag := text[ts:vs]
	if attr {
		a := tag[:strings.LastIndexByte(tag, '=')]
		if keyMaterialName(lastIdent(a)) {
			return true
		}
		if strings.Contains(lowerASCII(tag), `type="password"`) {
			return true
		}
	}
	for _, n := range xmlNames(tag) {
		if keyMaterialName(n) {
			return true
		}
	}
	if attr {
		return false
	}
	// siblings and the parent, up to four lines above
	lo := vs
	for n := 0; n < 4 && lo > 0; n++ {
		lo = nearLineStart(text, lo-1)
		if lo <= 0 {
			lo = 0
			break
		}
	}
	block := text[lo:ts]
	for i := 0; i < len(block); {
		k := strings.IndexByte(block[i:], '>')
		if k < 0 {
			break
		}
		e := strings.IndexByte(block[i+k:], '<')
		if e < 0 {
			e = len(block) - i - k
		}
		inner := strings.TrimSpace(block[i+k+1 : i+k+e])
		open := block[strings.LastIndexByte(block[:i+k], '<')+1 : i+k]
		if inner != "" && !strings.ContainsAny(inner, " \t") && len(inner) <= 64 {
			lt := lowerASCII(open)
			if lt == "name" || lt == "key" || lt == "id" || lt == "parametername" {
				if keyMaterialName(inner) {
					return true
				}
			}
		}
		if inner == "" && !strings.HasPrefix(open, "/") && len(open) <= 64 {
			for _, n := range xmlNames("<" + open) {
				if keyMaterialName(n) {
					return true
				}
			}
		}
		i += k + 1
	}
	return false
}

// xmlNames: a tag's name and its name=/key= attributes' values.
func xmlNames(tag string) []string {
	tag = strings.TrimPrefix(tag, "<")
	var out []string
	e := 0
	for e < len(tag) && (isAlnum(tag[e]) || tag[e] == '_' || tag[e] == '-' || tag[e] == '.' || tag[e] == ':') {
		e++
	}
	if e > 0 {
		n := tag[:e]
		if k := strings.LastIndexByte(n, '.'); k >= 0 {
			n = n[k+1:] // hudson.model.PasswordParameterDefinition: its last part
		}
		if !strings.HasSuffix(lowerASCII(n), "definition") {
			out = append(out, n)
		}
	}
	for _, a := range []string{` name="`, ` key="`, ` Name="`, ` Key="`} {
		if k := strings.Index(tag, a); k >= 0 {
			r := tag[k+len(a):]
			if j := strings.IndexByte(r, '"'); j > 0 {
				out = append(out, r[:j])
			}
		}
	}
	return out
}

// ---- (7) TOTP seeds

// findTOTPSeeds: a base32 seed (RFC 4648's alphabet, 16 characters or
// more, upper or lower case, also in groups of four) after an otpauth
// URI's secret=, or within 160 bytes after a TOTP/HOTP/MFA/2FA name or
// call, oathtool's -b, Base32StringSeed, Google's "setup key", and on
// the first line of ~/.google_authenticator.
func findTOTPSeeds(text string, hits []hit, emit func(s, e int, id string)) {
	done := 0
	for _, h := range hits {
		p := int(h.pos)
		if p < done {
			continue
		}
		a := lowerASCII(text[p : p+int(h.alen)])
		i := p + int(h.alen)
		if a == "otp" && len(text)-p >= 10 && isFold(text[p:p+10], "otpauth://") {
			a, i = "otpauth://", p+10
		}
		if a == "otpauth://" {
			le := i
			for le < len(text) && le-i < 2000 && isURLByte(text[le]) {
				le++
			}
			k := strings.Index(lowerASCII(text[i:le]), "secret=")
			if k < 0 {
				continue
			}
			s := i + k + len("secret=")
			e := s
			for e < le && text[e] != '&' {
				e++
			}
			done = e
			if totpSeed(text[s:e]) {
				emit(s, e, "encoded-secret")
			}
			continue
		}
		if a == "p key:" && (p < 4 || !isFold(text[p-4:p], "setu")) {
			continue // Google's "Your setup key:" only
		}
		if a == "google_authenticator" {
			nl := strings.IndexByte(text[i:], '\n')
			if nl < 0 {
				continue
			}
			s := i + nl + 1
			e := s
			for e < len(text) && text[e] != '\n' && text[e] != '\r' {
				e++
			}
			if totpSeed(text[s:e]) {
				emit(s, e, "encoded-secret")
			}
			continue
		}
		// a TOTP word is a name's or a call's: the seed follows within
		// 160 bytes, on the same line, after a separator or a quote
		hi := min(len(text), i+160)
		if nl := strings.IndexByte(text[i:hi], '\n'); nl >= 0 && a != "p key:" {
			hi = i + nl
		}
		for k := i; k < hi; k++ {
			c := text[k]
			if !(isUpper(c) || isLower(c) || c >= '2' && c <= '7') || k > 0 && (isAlnum(text[k-1]) || text[k-1] == '_' || text[k-1] == '.' || text[k-1] == '-') {
				continue
			}
			e := k
			for e < hi && (isUpper(text[e]) || isLower(text[e]) || isDigit(text[e]) || text[e] == '=' ||
				text[e] == ' ' && e+1 < hi && e > k && (e-k+1)%5 == 0 && isB32Char(text[e+1])) {
				e++
			}
			if e-k >= 16 && (e >= len(text) || !isTokenByte(text[e])) && totpSeed(text[k:e]) {
				emit(k, e, "encoded-secret")
				done = e
				break
			}
			k = e
		}
	}
}

func isB32Char(c byte) bool { return isUpper(c) || isLower(c) || c >= '2' && c <= '7' }

// totpSeed: v is a base32 seed: one case, RFC 4648's alphabet (blanks
// between groups of four allowed), 16 characters or more, decoding to 10
// bytes or more, not one repeated run nor a word.
func totpSeed(v string) bool {
	w := strings.ReplaceAll(strings.TrimRight(v, "="), " ", "")
	if len(w) < 16 || len(w) > 128 {
		return false
	}
	up := strings.ToUpper(w)
	if up != w && strings.ToLower(w) != w {
		return false
	}
	for i := 0; i < len(up); i++ {
		if c := up[i]; !(isUpper(c) || c >= '2' && c <= '7') {
			return false
		}
	}
	if emptyPlaceholder(w) || hasPlaceholderPart(strings.ToLower(w)) || entropy(up) < 3 || !strings.ContainsAny(up, "234567") || sequentialValue(up) {
		return false
	}
	pad := strings.Repeat("=", (8-len(up)%8)%8)
	b, err := base32.StdEncoding.DecodeString(up + pad)
	return err == nil && len(b) >= 10
}
