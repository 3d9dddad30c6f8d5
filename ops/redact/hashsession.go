package redact

import (
	_ "embed"
	"regexp"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Password hashes, password files and OAuth/session credentials, second
// round (issue 31): the two families the fourth blind set found weakest,
// each written as one principle per class (dev set
// testdata/dev-hashsession.txt):
//
//   - hash formats by their identifying prefix, read from a catalogue
//     (catalogue/hash-formats.txt): Modular Crypt Format ids the structural
//     rules lacked, hashcat's and John's tagged formats (Kerberos, DCC2,
//     macOS), MySQL 8's $A$005$, and the {SCHEME} prefixes of RFC 2307 and
//     its descendants (OpenLDAP, 389 DS, Dovecot, AIX, Atlassian), the
//     plaintext schemes included (hashCatalogueRules);
//   - hash formats by their structure where no prefix names them: SQL
//     Server's 0x0100/0x0200 headers, Oracle's S:/H:/T: verifiers, Django's
//     legacy sha1$/md5$, secretsdump's Kerberos keys and DPAPI/LSA secrets,
//     NetNTLMv1/v2 responses (the v2 blob's fixed header), Cisco PIX/ASA
//     "encrypted", FortiOS "ENC SH2/AK1";
//   - account lines: the second field of a shadow, passwd or
//     master.passwd line holds a hash whatever its format (DES, BSDi,
//     locked "!…") when it is not a marker (x, *, !, !!)
//     (findAccountLines);
//   - a digest under a name that says it is a password's hash
//     (password_hash, passwordDigest, hashed_password, crypted_password…),
//     as an assignment or as a query result's column, and a digest stored
//     beside its salt ({"value": …, "salt": …}, MongoDB's storedKey,
//     macOS's entropy) (findNamedDigests, findSaltedObjects);
//   - Redis ACL rules: #<sha256> and >password (findRedisACL);
//   - session cookies by a catalogue of the names sites and frameworks
//     give them, wherever a cookie is written: a Cookie header, a
//     Netscape cookies.txt line, a {name, value} object (HAR, Playwright,
//     Selenium, Puppeteer), cookies.set(name, value) (findCookieNames);
//     anti-forgery (CSRF/XSRF) and analytics cookies are not credentials
//     (antiForgeryName);
//   - OAuth tokens by the prefixes their issuers give them (Azure AD
//     refresh tokens 0.A/1.A, MSA EwB…, Instagram IGQV…, Firebase AMf-vB…,
//     Google authorization codes 4/0A…), JWE compact tokens (five parts:
//     Cognito refresh tokens, NextAuth sessions), and the code of a token
//     request written as JSON.
//
// Hooked into the core by builtinRules (rules.go); every rule is gated by
// literal anchors.
func hashSessionRules() []*Rule {
	rules := hashCatalogueRules()
	return append(rules,
		// SQL Server: 0x0100 + salt + SHA-1 (2005), 0x0200 + salt + SHA-512 (2012+)
		&Rule{ID: "password-hash", Anchors: []string{"0x0100", "0x0200"}, After: 150, Priority: prioPrefix,
			Re:       regexp.MustCompile(`0x0(?:100[0-9A-Fa-f]{48}|200[0-9A-Fa-f]{136})`),
			Boundary: isAlnum, Check: checkHash},
		&Rule{ID: "password-hash", Anchors: oracleAnchors, Priority: prioPrefix,
			find: findOracleVerifiers, emits: []string{"password-hash"}},
		// Django's legacy hashers: sha1$salt$hex, md5$salt$hex
		&Rule{ID: "password-hash", Anchors: []string{"sha1$", "md5$"}, After: 120, Priority: prioPrefix,
			Re:       regexp.MustCompile(`(?:sha1\$[0-9A-Za-z]{1,40}\$[0-9a-f]{40}|md5\$[0-9A-Za-z]{1,40}\$[0-9a-f]{32})`),
			Boundary: isAlnum, Check: checkHash},
		// secretsdump's Kerberos keys (user:aes256-cts-hmac-sha1-96:hex)
		&Rule{ID: "password-hash", Anchors: []string{"-cts-hmac-sha1-96:", "des-cbc-md5:", "rc4_hmac:"}, Before: 8, After: 70, Priority: prioPrefix,
			Re:       regexp.MustCompile(`(?:aes(?:128|256)-cts-hmac-sha1-96|des-cbc-md5|rc4_hmac):(?P<s>[0-9a-f]{16,64})`),
			Boundary: isAlnum, Check: checkHash},
		// secretsdump's LSA secrets: DPAPI keys and NL$KM
		&Rule{ID: "password-hash", Anchors: []string{"dpapi_machinekey:", "dpapi_userkey:", "NL$KM:"}, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`(?:dpapi_machinekey|dpapi_userkey|NL\$KM):(?P<s>(?:0x)?[0-9a-fA-F]{32,})`),
			Boundary: isAlnum, Check: checkHash},
		// NetNTLMv2: user::domain:challenge:NTProofStr:blob, the blob's
		// header 0101000000000000 (RespType, HiRespType, reserved)
		&Rule{ID: "ntlm-hash", Anchors: []string{":0101000000000000"}, Before: 200, After: 4000, Priority: prioPrefix,
			Re:       regexp.MustCompile(`[^\s:]+::[^\s:]*:(?P<s>[0-9a-fA-F]{16}:[0-9a-fA-F]{32}:0101000000000000[0-9a-fA-F]{16,})`),
			Boundary: isAlnum, Check: checkHash},
		// NetNTLMv1 as capture tools print it: user::domain:LM:NT:challenge
		&Rule{ID: "ntlm-hash", Anchors: []string{"ntlmv1", "netntlm"}, Fold: true, After: 400, Priority: prioPrefix,
			Re:       regexp.MustCompile(`[^\s:]+::[^\s:]*:(?P<s>[0-9a-fA-F]{48}:[0-9a-fA-F]{48}:[0-9a-fA-F]{16})`),
			Boundary: isAlnum, Check: checkHash},
		// Cisco PIX/ASA: password X encrypted (a 16-character PIX-MD5)
		&Rule{ID: "password-hash", Anchors: []string{" encrypted"}, Before: 40, After: 2, Priority: prioContext,
			Re:       regexp.MustCompile(`\bpassword (?P<s>[./0-9A-Za-z]{16}) encrypted\b`),
			Boundary: isAlnum, Check: checkHash},
		// FortiOS: set password ENC SH2… (SHA-256) / AK1… (SHA-1)
		&Rule{ID: "password-hash", Anchors: []string{"SH2", "AK1"}, Before: 4, After: 120, Priority: prioPrefix,
			Re:       regexp.MustCompile(`ENC (?P<s>(?:SH2|AK1)[A-Za-z0-9+/]{40,}={0,2})`),
			Boundary: isB64, Check: checkHash},
		&Rule{ID: "password-hash", Anchors: []string{":::", ":/bin/", ":/usr/", ":/sbin/", ":/home/"}, Priority: prioContext,
			find: findAccountLines, emits: []string{"password-hash"}},
		&Rule{ID: "password-hash", Anchors: namedDigestAnchors, Fold: true, Priority: prioContext,
			find: findNamedDigests, emits: []string{"password-hash", "generic-password"}},
		&Rule{ID: "password-hash", Anchors: saltAnchors, Priority: prioContext,
			find: findSaltedObjects, emits: []string{"password-hash"}},
		&Rule{ID: "password-hash", Anchors: []string{" on #", " on >", "+@", "~*", "setuser", "SETUSER"}, Priority: prioContext,
			find: findRedisACL, emits: []string{"password-hash", "generic-password"}},
		&Rule{ID: "session-cookie", Anchors: []string{"cookie"}, Fold: true, Priority: prioContext,
			find: findCookies, emits: []string{"session-cookie"}},
		// the frameworks' generic names in a {name, value} object or a YAML
		// list (anchors that general6.go's share: no new trigram)
		&Rule{ID: "session-cookie", Anchors: []string{"ssionid", "SSIONID", "HPSESSID", "_session", "_SESSION", ".sid"}, Priority: prioContext,
			find: findCookieNames, emits: []string{"session-cookie"}},
		&Rule{ID: "session-cookie", Anchors: []string{"\tTRUE\t", "\tFALSE\t"}, Priority: prioContext,
			find: findCookieJarLines, emits: []string{"session-cookie"}},
		// OAuth tokens by their issuers' prefixes
		tok("azure-ad-refresh-token", `[01]\.A[A-Za-z0-9_-]{150,}(?:\.[A-Za-z0-9_-]{20,})?`, "0.A", "1.A").after(6000).bound(isTokenDot).check(checkRandom(4.0, 3)),
		tok("microsoft-access-token", `EwB[A-Za-z0-9+/]{100,}={0,2}`, "EwB").after(6000).bound(isB64).check(checkRandom(4.0, 3)),
		tok("facebook-access-token", `IGQV[A-Za-z0-9_-]{100,}`, "IGQV").after(1000).bound(isTokenByte).check(checkRandom(4.0, 3)),
		tok("google-oauth-refresh-token", `AMf-vB[A-Za-z0-9_-]{100,}`, "AMf-vB").after(2000).bound(isTokenByte).check(checkRandom(4.0, 3)),
		tok("generic-token", `4/0A[A-Za-z0-9_-]{30,}`, "4/0A").after(400).bound(isTokenByte).check(checkRandom(4.0, 3)),
		// JWE compact serialization: five parts, the header names "enc"
		&Rule{ID: "jwt", Anchors: []string{"eyJ"}, Priority: prioPrefix,
			find: findJWE, emits: []string{"jwt"}},
		&Rule{ID: "generic-token", Anchors: []string{"authorization_code"}, Priority: prioContext,
			find: findJSONAuthCode, emits: []string{"generic-token"}},
		// Docker's identitytoken, a registry's OAuth refresh token
		&Rule{ID: "generic-token", Anchors: []string{"tytoken", "rytoken"}, Fold: true, Before: 10, After: 600, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:identitytoken|registrytoken)\\?["']?\s*[:=]\s*\\?["'](?P<s>[A-Za-z0-9._~+/=-]{20,})`),
			Check: checkRandom(3.5, 2)},
	)
}

func isTokenDot(c byte) bool { return isTokenByte(c) || c == '.' }

// ---- the hash-format catalogue

//go:embed catalogue/hash-formats.txt
var hashFormatsFile string

// hashFormat is one line of the catalogue: its regexp anchored at the
// prefix, and whether it keeps the password itself (a plaintext scheme).
type hashFormat struct {
	re    *regexp.Regexp
	plain bool
}

// hashFormats: the catalogue by prefix (a {SCHEME} in lower case, where
// AIX's {smd5} and OpenLDAP's {SMD5} share one), read once; mcfAnchors and schemeAnchors are the prefixes of each kind.
var hashFormats, mcfAnchors, schemeAnchors = func() (m map[string][]hashFormat, mcf, schemes []string) {
	m = map[string][]hashFormat{}
	for _, line := range strings.Split(hashFormatsFile, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			panic("hash-formats.txt: want PREFIX, BODY and SOURCE: " + line)
		}
		prefix, body := f[0], f[1]
		re := "^" + regexp.QuoteMeta(prefix)
		if prefix[0] == '{' {
			re = "^(?i:" + regexp.QuoteMeta(prefix) + ")"
			prefix = lowerASCII(prefix)
			if m[prefix] == nil {
				schemes = append(schemes, prefix)
			}
		} else if m[prefix] == nil {
			mcf = append(mcf, prefix)
		}
		m[prefix] = append(m[prefix], hashFormat{regexp.MustCompile(re + body), strings.Contains(body, "?P<s>")})
	}
	return
}()

// hashCatalogueRules: the catalogue's formats as two rules (the MCF and
// hashcat prefixes, case-sensitive; the {SCHEME}s, in any case), each hit
// matched against its own line's regexp.
func hashCatalogueRules() []*Rule {
	return []*Rule{
		{ID: "password-hash", Anchors: mcfAnchors, Priority: prioPrefix, find: findHashFormats, emits: []string{"password-hash"}},
		{ID: "password-hash", Anchors: schemeAnchors, Fold: true, Priority: prioPrefix, find: findHashFormats, emits: []string{"password-hash", "generic-password"}},
	}
}

func findHashFormats(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p, a := int(h.pos), int(h.alen)
		if p < lastEnd || p > 0 && isAlnum(text[p-1]) {
			continue
		}
		key := text[p : p+a]
		if key[0] == '{' {
			key = lowerASCII(key)
		}
		var f hashFormat
		var m []int
		for _, f = range hashFormats[key] {
			if m = f.re.FindStringSubmatchIndex(text[p:min(len(text), p+4000)]); m != nil {
				break
			}
		}
		if m == nil {
			continue
		}
		s, e := p+m[0], p+m[1]
		if e < len(text) && isAlnum(text[e]) {
			continue
		}
		if f.plain {
			s, e = p+m[2], p+m[3]
			if checkValue(kindPassword)(text, s, e) {
				emit(s, e, "generic-password")
				lastEnd = e
			}
			continue
		}
		if checkHash(text, s, e) {
			emit(s, e, "password-hash")
			lastEnd = e
		}
	}
}

// ---- Oracle's verifiers (sys.user$.spare4): S: 60 hex (11g), H: 32 hex,
// T: 160 hex (12c), alone or joined by ';'

var oracleAnchors = []string{" S:", "'S:", "\"S:", "|S:", "\tS:", "\nS:", ";T:", ";H:"}

func findOracleVerifiers(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos) + int(h.alen) - 2 // at the letter
		if p < lastEnd {
			continue
		}
		// back to the first verifier of the run (S:…;H:…;T:…)
		for p >= 3 && text[p-1] == ';' {
			q := p - 2
			for q >= 0 && isHex(text[q]) {
				q--
			}
			if q < 1 || text[q] != ':' || strings.IndexByte("STH", text[q-1]) < 0 {
				break
			}
			p = q - 1
		}
		if p > 0 && isAlnum(text[p-1]) {
			continue
		}
		s, e, good := p, p, false
		for e+2 < len(text) && strings.IndexByte("STH", text[e]) >= 0 && text[e+1] == ':' {
			q := e + 2
			for q < len(text) && isHex(text[q]) {
				q++
			}
			n := q - e - 2
			if !(text[e] == 'S' && n == 60 || text[e] == 'T' && n == 160 || text[e] == 'H' && n == 32) {
				break
			}
			good = good || text[e] != 'H'
			e = q
			if e+1 < len(text) && text[e] == ';' {
				e++
				continue
			}
			break
		}
		for e > s && text[e-1] == ';' {
			e--
		}
		if !good || e < len(text) && isAlnum(text[e]) || !checkHash(text, s, e) {
			continue
		}
		emit(s, e, "password-hash")
		lastEnd = e
	}
}

// ---- account lines

// findAccountLines: the password field of a shadow line (9 fields, the
// ones after it numbers or empty), a passwd line (7 fields: uid, gid,
// gecos, home, shell) or a BSD master.passwd line (10 fields) holds a hash
// whatever its format: DES (13 characters), BSDi (_ and 19), any $id$,
// behind the ! of a locked account. The markers (x, *, !, !!, *LK*, NP)
// are no hash.
func findAccountLines(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		ls, le := lineBounds(text, p)
		lastEnd = le
		line := strings.TrimRight(text[ls:le], "\r")
		if len(line) > 600 {
			continue
		}
		f := strings.Split(line, ":")
		if !accountLine(f) {
			continue
		}
		s := ls + len(f[0]) + 1
		v := f[1]
		for len(v) > 0 && v[0] == '!' {
			v, s = v[1:], s+1
		}
		if !accountHash(v) {
			continue
		}
		emit(s, s+len(v), "password-hash")
	}
}

func accountLine(f []string) bool {
	if len(f) < 7 || f[0] == "" || strings.TrimLeft(f[0], " \t") != f[0] {
		return false
	}
	for i := 0; i < len(f[0]); i++ {
		if c := f[0][i]; !isAlnum(c) && c != '_' && c != '-' && c != '.' && c != '$' {
			return false
		}
	}
	digits := func(s string, empty bool) bool {
		if s == "" {
			return empty
		}
		for i := 0; i < len(s); i++ {
			if !isDigit(s[i]) {
				return false
			}
		}
		return true
	}
	switch len(f) {
	case 9: // shadow
		for _, x := range f[2:8] {
			if !digits(x, true) {
				return false
			}
		}
		return true
	case 7: // passwd
		return digits(f[2], false) && digits(f[3], false) && strings.HasPrefix(f[5], "/")
	case 10: // master.passwd
		return digits(f[2], false) && digits(f[3], false) && strings.HasPrefix(f[8], "/")
	}
	return false
}

// accountHash: a crypt(3) hash, not a marker.
func accountHash(v string) bool {
	switch {
	case len(v) == 13 && onlyCryptChars(v):
	case len(v) == 20 && v[0] == '_' && onlyCryptChars(v[1:]):
	case len(v) >= 20 && v[0] == '$':
	default:
		return false
	}
	return entropy(v) >= 3.0 && classOf(v).kinds() >= 2
}

func onlyCryptChars(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '.' && c != '/' {
			return false
		}
	}
	return true
}

// ---- digests under a name that says "password hash"

// (fold: lower case; past the common first trigrams of the names: the
// prefilter passes every position an anchor's first three bytes start, and
// "has", "cry", "pas…" "sel" start many words; the name is read back from
// the hit)
var namedDigestAnchors = []string{"d_hash", "dhash", "d-hash", "d_digest", "ddigest", "s_hash", "shash", "w_hash", "d_pass", "dpass",
	"n_string", "password |", "password,", "password\t", "password from"}

// passwordHashName: the words name a password's hash (password_hash,
// passwordDigest, hashed_password, encrypted_password), or a column that
// holds one (authentication_string, spare4).
func passwordHashName(ident string) (hashNamed bool, ok bool) {
	var arr [12]string
	words := appendWords(arr[:0], ident)
	pw, hs := false, false
	for _, w := range words {
		switch w {
		case "password", "passwd", "pass", "pw", "pwd":
			pw = true
		case "hash", "hashed", "digest", "crypted", "encrypted", "enc":
			hs = true
		case "spare4":
			return true, true
		case "authentication":
			hs, pw = true, true
		}
	}
	if pw && hs {
		return true, true
	}
	return false, pw && len(words) == 1
}

// findNamedDigests: a digest under a name that says it is a password's
// hash, as an assignment (password_hash = "…", "passwordDigest": "…") or
// as a query result's column (a | table's header, a select list followed
// by its rows). A bare digest elsewhere (a checksum, a commit, an ETag) is
// not one. A column named only "password" holds a password: reported when
// its cell looks generated.
func findNamedDigests(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		for p < len(text) && !isIdentByte(text[p]) {
			p++ // ", password": the name starts after the separator
		}
		if p+4 < len(text) && hasPrefixFold(text[p:], "select") {
			p += len("select")
			for p < len(text) && !isIdentByte(text[p]) {
				p++
			}
		}
		l, r := p, p
		for l > 0 && isIdentByte(text[l-1]) {
			l--
		}
		for r < len(text) && isIdentByte(text[r]) {
			r++
		}
		lastEnd = r
		hashNamed, ok := passwordHashName(text[l:r])
		if !ok {
			continue
		}
		if hashNamed {
			if s, e, _, prose := parseValue(text, l, r, text[l:r], kindSecret); s >= 0 && !prose && looksDigest(text[s:e]) && !encryptedByKeyService(text, l, r, s, e) {
				emit(s, e, "password-hash")
				lastEnd = e
				continue
			}
		}
		for _, c := range columnCells(text, l, r) {
			v := text[c[0]:c[1]]
			switch {
			case looksDigest(v):
				emit(c[0], c[1], "password-hash")
			case !hashNamed && strongValue(v):
				emit(c[0], c[1], "generic-password")
			default:
				continue
			}
			lastEnd = max(lastEnd, c[1])
		}
	}
}

// columnCells: when text[l:r] names a column of a query result (a header
// of a | or blank-separated table, or an item of a select list on its
// line), the cells of that column in the rows that follow (up to 20).
func columnCells(text string, l, r int) [][2]int {
	ls := strings.LastIndexByte(text[:l], '\n') + 1
	le := lineEnd(text, r)
	line := text[ls:le]
	col, pipes := -1, false
	if i := indexFold(line, "select "); i >= 0 && i < l-ls {
		if j := indexFold(line[r-ls:], " from "); j >= 0 {
			list := line[i+len("select ") : l-ls]
			col = strings.Count(list, ",")
		}
	} else if strings.Count(line, "|") >= 2 || strings.Count(line, "\t") >= 1 || strings.Contains(line, "  ") {
		pipes = strings.Contains(line, "|")
		hdr := splitCells(line, ls, pipes)
		for k, c := range hdr {
			if c[0] == l && c[1] == r {
				col = k
			}
		}
	}
	if col < 0 {
		return nil
	}
	var out [][2]int
	for n, p := 0, le+1; n < 20 && p < len(text); n++ {
		e := lineEnd(text, p)
		row := text[p:e]
		t := strings.TrimSpace(row)
		if t == "" || strings.HasPrefix(t, "(") || strings.HasSuffix(t, ">") && !strings.Contains(t, "|") {
			break // end of the result, a row count, a prompt
		}
		if strings.Trim(t, "+-|=: ") == "" {
			p = e + 1
			continue // a rule under the header
		}
		cells := splitCells(row, p, pipes || strings.Contains(row, "|"))
		if col < len(cells) {
			out = append(out, cells[col])
		}
		p = e + 1
	}
	return out
}

// lineEnd: the end of the line holding text[p] (lineBounds' end).
func lineEnd(text string, p int) int {
	if i := strings.IndexByte(text[p:], '\n'); i >= 0 {
		return p + i
	}
	return len(text)
}

// splitCells: the cells of a table row, by | or by runs of blanks, as
// offsets into text (off is where row starts), trimmed.
func splitCells(row string, off int, pipes bool) [][2]int {
	var out [][2]int
	i := 0
	for i < len(row) {
		if pipes {
			j := strings.IndexByte(row[i:], '|')
			if j < 0 {
				j = len(row) - i
			}
			s, e := i, i+j
			for s < e && (row[s] == ' ' || row[s] == '\t') {
				s++
			}
			for e > s && (row[e-1] == ' ' || row[e-1] == '\t' || row[e-1] == '\r') {
				e--
			}
			if !(i == 0 && s == e) { // a leading |
				out = append(out, [2]int{off + s, off + e})
			}
			i += j + 1
			continue
		}
		for i < len(row) && (row[i] == ' ' || row[i] == '\t' || row[i] == '\r') {
			i++
		}
		s := i
		for i < len(row) && row[i] != ' ' && row[i] != '\t' && row[i] != '\r' {
			i++
		}
		if i > s {
			out = append(out, [2]int{off + s, off + i})
		}
	}
	if pipes && len(out) > 0 && out[len(out)-1][0] == out[len(out)-1][1] {
		out = out[:len(out)-1] // a trailing |
	}
	return out
}

func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}

// looksDigest: a hash as a store writes it: hex of 16 bytes or more (0x
// allowed), base64 of 16 bytes or more, or a tagged format ($id$…,
// {SCHEME}…); random, not a placeholder.
func looksDigest(v string) bool {
	if len(v) < 20 || len(v) > 4096 || emptyPlaceholder(v) || hasPlaceholderPart(v) {
		return false
	}
	if v[0] == '$' || v[0] == '{' {
		return entropy(v) >= 3.5
	}
	h := strings.TrimPrefix(v, "0x")
	if len(h) >= 32 && allHex(h) {
		return entropy(h) >= 3.0 && classOf(h).kinds() >= 2
	}
	b := strings.TrimRight(v, "=")
	if len(b) < 22 || len(v)-len(b) > 2 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if !isB64(b[i]) {
			return false
		}
	}
	return entropy(b) >= 4.0 && classOf(b).kinds() >= 3
}

// ---- a digest stored beside its salt

var saltAnchors = []string{`salt":`, `salt" :`, `salt\":`, `salt\\\":`, "py</key>"}

var saltedValue = regexp.MustCompile(`\\*"(?:value|hash|hashedPassword|passwordHash|password_hash|storedKey|serverKey|digest|password|entropy)\\*"\s*:\s*\\*"([^"\\]{20,})\\*"`)
var plistEntropy = regexp.MustCompile(`<key>entropy</key>\s*<data>\s*([A-Za-z0-9+/=\s]{40,})</data>`)

// findSaltedObjects: in the object that holds a "salt" (Keycloak's
// secret_data, Firebase Auth's export, MongoDB's SCRAM credentials, a
// macOS ShadowHashData plist), the digest beside it.
func findSaltedObjects(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		if p >= 5 && strings.HasPrefix(text[p-5:], "entropy</key>") {
			p -= 5
			w := text[max(0, p-6):min(len(text), p+8000)]
			if m := plistEntropy.FindStringSubmatchIndex(w); m != nil {
				s, e := p-(p-max(0, p-6))+m[2], p-(p-max(0, p-6))+m[3]
				for e > s && (text[e-1] == ' ' || text[e-1] == '\n' || text[e-1] == '\t') {
					e--
				}
				if entropy(text[s:e]) >= 4.0 {
					emit(s, e, "password-hash")
					lastEnd = e
				}
			}
			continue
		}
		ob, cb := enclosingObject(text, p)
		if ob < 0 {
			continue
		}
		for _, m := range saltedValue.FindAllStringSubmatchIndex(text[ob:cb], -1) {
			s, e := ob+m[2], ob+m[3]
			if looksDigest(text[s:e]) {
				emit(s, e, "password-hash")
			}
		}
		lastEnd = cb
	}
}

// enclosingObject: the bounds of the {…} around p (within 1,500 bytes on
// either side), or -1.
func enclosingObject(text string, p int) (int, int) {
	depth, ob := 0, -1
	for i := p; i >= 0 && i >= p-1500; i-- {
		switch text[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				ob = i
			} else {
				depth--
			}
		}
		if ob >= 0 {
			break
		}
	}
	if ob < 0 {
		return -1, -1
	}
	depth = 0
	for i := p; i < len(text) && i < p+1500; i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return ob, i + 1
			}
			depth--
		}
	}
	return -1, -1
}

// ---- Redis ACL rules

// findRedisACL: in a Redis ACL rule (an aclfile's "user NAME …" line or
// ACL SETUSER), the passwords it sets (>pass, <pass) and their SHA-256
// (#hex).
func findRedisACL(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		ls, le := lineBounds(text, p)
		lastEnd = le
		line := text[ls:le]
		t := strings.TrimLeft(line, " \t")
		off := ls + len(line) - len(t)
		switch {
		case strings.HasPrefix(t, "user "):
		case indexFold(t, "acl setuser ") >= 0:
			k := indexFold(t, "acl setuser ")
			off += k + len("acl setuser ")
			t = t[k+len("acl setuser "):]
		default:
			continue
		}
		f := splitCells(t, off, false)
		if len(f) < 3 {
			continue
		}
		for _, c := range f[2:] {
			v := text[c[0]:c[1]]
			switch {
			case len(v) == 65 && v[0] == '#' && allHex(v[1:]):
				if checkHash(text, c[0]+1, c[1]) {
					emit(c[0]+1, c[1], "password-hash")
				}
			case len(v) > 1 && (v[0] == '>' || v[0] == '<'):
				if checkCLIPassword(text, c[0]+1, c[1]) {
					emit(c[0]+1, c[1], "generic-password")
				}
			}
		}
	}
}

// ---- session cookies by name

//go:embed catalogue/session-cookies.txt
var sessionCookiesFile string

type cookieGlob struct{ pre, suf string } // pre*suf, or an exact name when suf == "\x00"

var cookieGlobs = func() (globs []cookieGlob) {
	for _, line := range strings.Split(sessionCookiesFile, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		pre, suf, star := strings.Cut(name, "*")
		if !star {
			suf = "\x00"
		}
		globs = append(globs, cookieGlob{pre, suf})
	}
	return
}()

// catalogueCookie: the name is one of the catalogue's.
func catalogueCookie(name string) bool {
	for _, g := range cookieGlobs {
		if g.suf == "\x00" {
			if name == g.pre {
				return true
			}
		} else if len(name) > len(g.pre)+len(g.suf) && strings.HasPrefix(name, g.pre) && strings.HasSuffix(name, g.suf) {
			return true
		}
	}
	return false
}

// credentialCookie: a cookie that logs its holder in: a catalogue name, or
// a name of a session, an auth ticket or a token that is not an
// anti-forgery or analytics cookie.
func credentialCookie(name string) bool {
	if catalogueCookie(name) {
		return true
	}
	if antiForgeryName(name) {
		return false
	}
	n := lowerASCII(name)
	for _, w := range []string{"sess", "sid", "auth", "token", "jwt", "remember", "login"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// antiForgeryName: a CSRF/XSRF token (a per-session nonce that logs no one
// in: gitleaks and the other public benchmarks do not count it) or an
// analytics or load-balancer cookie, whatever its name says.
func antiForgeryName(name string) bool {
	n := lowerASCII(name)
	for _, w := range []string{"csrf", "xsrf", "antiforgery", "requestverification", "authenticity"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, p := range []string{"_hj", "ai_session", "ai_user", "_dd_s", "awsalb", "_ga", "_gid", "__cf_bm", "_fbp", "optanon", "amplitude", "mp_", "ajs_", "_pk_ses", "_clsk"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// checkSessionCookieValue: the shared check of a session cookie's value in
// a Cookie header (structural.go): random, and its name not an
// anti-forgery or analytics cookie.
func checkSessionCookieValue(text string, s, e int) bool {
	if !randomShape(text[s:e], 3.5, 2) {
		return false
	}
	n := s
	if n > 0 && text[n-1] == '=' {
		n--
	}
	l := n
	for l > 0 && isCookieNameByte(text[l-1]) {
		l--
	}
	return !antiForgeryName(text[l:n])
}

var cookieValueField = regexp.MustCompile(`^["']?\s*(?:,|\))?[^{}\n]{0,80}?\bvalue\\?["']?\s*[:=]\s*\\?["']([^"'\\\s]{8,})\\?["']|^["']\s*,\s*["']([^"'\\\s]{8,})["']`)
var yamlCookieValue = regexp.MustCompile(`^\s*\n\s*value:\s*["']?([^\s"']{8,})`)

// findCookieNames: a session cookie's value after its generic name
// (sessionid, PHPSESSID, *_session, connect.sid) in a {"name": "NAME",
// "value": "…"} object (HAR, Playwright's storageState, Selenium,
// Puppeteer), a cookies.set("NAME", "…") call or a YAML name:/value:
// pair (name=value is general6.go's).
func findCookieNames(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		l, r := cookieNameAt(text, h)
		lastEnd = r
		name := strings.TrimSuffix(text[l:r], ":")
		r = l + len(name)
		if !credentialCookie(name) {
			continue
		}
		var s, e int
		switch {
		case l > 0 && (text[l-1] == '"' || text[l-1] == '\'') && r < len(text) && (text[r] == '"' || text[r] == '\''):
			m := cookieValueField.FindStringSubmatchIndex(text[r:min(len(text), r+4300)])
			if m == nil {
				continue
			}
			if m[2] >= 0 {
				s, e = r+m[2], r+m[3]
			} else {
				s, e = r+m[4], r+m[5]
			}
		case l >= 6 && strings.HasSuffix(strings.TrimRight(text[:l], " "), "name:"):
			m := yamlCookieValue.FindStringSubmatchIndex(text[r:min(len(text), r+4300)])
			if m == nil {
				continue
			}
			s, e = r+m[2], r+m[3]
		default:
			continue
		}
		v := text[s:e]
		if !cookieValueLooksIssued(v) {
			continue
		}
		emit(s, e, "session-cookie")
		lastEnd = e
	}
}

// findCookieJarLines: a Netscape cookies.txt line (curl -c, wget, browser
// exports): domain, subdomains, path, secure, expiry, name, value,
// separated by tabs; the value of a login cookie.
func findCookieJarLines(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		ls, le := lineBounds(text, p)
		lastEnd = le
		line := strings.TrimRight(text[ls:le], "\r")
		f := strings.Split(line, "\t")
		if len(f) != 7 || f[1] != "TRUE" && f[1] != "FALSE" || f[3] != "TRUE" && f[3] != "FALSE" || !strings.HasPrefix(f[2], "/") {
			continue
		}
		if !credentialCookie(f[5]) {
			continue
		}
		v := f[6]
		if len(v) < 12 || chain.IsUUID(v) || emptyPlaceholder(v) || !randomShape(v, 3.0, 2) {
			continue
		}
		s := ls + len(line) - len(v)
		emit(s, s+len(v), "session-cookie")
	}
}

// ---- OAuth

// findJWE: a JWE in compact serialization (RFC 7516 §7.1): five base64url
// parts, the encrypted key empty under "dir", the header naming "enc"
// (Cognito's refresh tokens, NextAuth's session token). The jwt rule
// reads three parts: this one the whole.
func findJWE(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd || p > 0 && isTokenByte(text[p-1]) {
			continue
		}
		// the header first: a JWT's (no "enc") is left at once. "enc" in
		// base64url at each of the three alignments: ImVuYy, lbmMi, ZW5j
		h0 := p
		for h0 < len(text) && h0-p < 400 && isTokenByte(text[h0]) {
			h0++
		}
		if h0-p < 20 || h0 >= len(text) || text[h0] != '.' {
			continue
		}
		if hd := text[p:h0]; !strings.Contains(hd, "ImVuYy") && !strings.Contains(hd, "lbmMi") && !strings.Contains(hd, "ZW5j") {
			continue
		}
		var seg [5][2]int
		q := p
		ok := true
		for k := 0; k < 5; k++ {
			s := q
			for q < len(text) && isTokenByte(text[q]) {
				q++
			}
			seg[k] = [2]int{s, q}
			if k < 4 {
				if q >= len(text) || text[q] != '.' {
					ok = false
					break
				}
				q++
			}
		}
		if !ok || q < len(text) && text[q] == '.' {
			continue
		}
		if seg[0][1]-seg[0][0] < 20 || seg[2][1]-seg[2][0] < 16 || seg[3][1]-seg[3][0] < 16 || seg[4][1]-seg[4][0] < 16 {
			continue
		}
		emit(p, q, "jwt")
		lastEnd = q
	}
}

var jsonCode = regexp.MustCompile(`\\?"code\\?"\s*:\s*\\?"([A-Za-z0-9._~+/=-]{16,})\\?"`)

// findJSONAuthCode: the authorization code of a token request written as
// JSON ({"grant_type": "authorization_code", "code": "…"}): "code" alone
// names too many things, the grant type says which.
func findJSONAuthCode(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		ob, cb := enclosingObject(text, p)
		if ob < 0 {
			continue
		}
		lastEnd = cb
		for _, m := range jsonCode.FindAllStringSubmatchIndex(text[ob:cb], -1) {
			s, e := ob+m[2], ob+m[3]
			if randomShape(text[s:e], 3.3, 2) {
				emit(s, e, "generic-token")
			}
		}
	}
}

// cookieValueLooksIssued: a login cookie's value as a server issues it:
// random, 12 bytes or more, not a UUID (a transcript's sessionId), not a
// placeholder or a deletion. Roblox's banner before its ticket
// (_|WARNING:-DO-NOT-SHARE-THIS…|_) is not judged.
func cookieValueLooksIssued(v string) bool {
	if strings.HasPrefix(v, "_|") {
		if k := strings.LastIndex(v, "|_"); k > 0 {
			v = v[k+2:]
		}
	}
	return len(v) >= 12 && !chain.IsUUID(v) && !emptyPlaceholder(v) && !hasPlaceholderPart(v) && randomShape(v, 3.0, 2)
}

var cookiePair = regexp.MustCompile(`\bname\\?["']?\s*[:=]\s*\\?["']([^"'\\\s]{1,128})\\?["'][^{}\n]{0,300}?\bvalue\\?["']?\s*[:=]\s*\\?["']([^"'\\\s]{8,})\\?["']`)
var cookieSetCall = regexp.MustCompile(`\.set\(\s*["']([^"'\s]{1,128})["']\s*,\s*["']([^"'\s]{8,})["']`)

// findCookies: at the word "cookie", the login cookies it introduces,
// judged by name (the catalogue, catalogue/session-cookies.txt, then a
// session, auth or token word that is no anti-forgery or analytics
// cookie): the pairs of a Cookie or Set-Cookie header, of
// document.cookie = "…" and of HAR's {"name": "cookie", "value": "…"};
// the {name, value} objects of a cookie collection ("cookies": [...],
// add_cookie({...}), page.setCookie(...), context.add_cookies([...])) and
// cookies.set(name, value) calls.
func findCookies(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos) + int(h.alen)
		if int(h.pos) < lastEnd {
			continue
		}
		q := p
		if q < len(text) && (text[q] == 's' || text[q] == 'S') {
			q++ // cookies
		}
		for q < len(text) && q < p+24 && strings.IndexByte("\"': =\\\t,", text[q]) >= 0 {
			q++
		}
		if strings.HasPrefix(text[q:], "value") { // HAR: {"name": "cookie", "value": "…"}
			q += len("value")
			for q < len(text) && strings.IndexByte("\"': =\\\t", text[q]) >= 0 {
				q++
			}
		}
		if q < len(text) && strings.IndexByte("[({", text[q]) < 0 {
			lastEnd = max(lastEnd, emitCookiePairs(text, q, emit))
			continue
		}
		end := min(len(text), q+16<<10)
		for _, re := range []*regexp.Regexp{cookiePair, cookieSetCall} {
			for _, m := range re.FindAllStringSubmatchIndex(text[q:end], -1) {
				if credentialCookie(text[q+m[2]:q+m[3]]) && cookieValueLooksIssued(text[q+m[4]:q+m[5]]) {
					emit(q+m[4], q+m[5], "session-cookie")
					lastEnd = max(lastEnd, q+m[5])
				}
			}
		}
	}
}

// emitCookiePairs: the name=value pairs of a cookie string from i (up to
// the end of its line or of its quotes), the values of login cookies
// emitted; returns where the string ends.
func emitCookiePairs(text string, i int, emit func(s, e int, id string)) int {
	for n := 0; n < 64 && i < len(text); n++ {
		for i < len(text) && (text[i] == ' ' || text[i] == ';') {
			i++
		}
		ns := i
		for i < len(text) && isCookieNameByte(text[i]) && text[i] != ':' {
			i++
		}
		if i >= len(text) || text[i] != '=' || i == ns {
			return i
		}
		name := text[ns:i]
		i++
		if i < len(text) && text[i] == '"' {
			i++
		}
		vs := i
		for i < len(text) && i-vs < 4096 && isCookieValueByte(text[i]) {
			i++
		}
		if credentialCookie(name) && cookieValueLooksIssued(text[vs:i]) {
			emit(vs, i, "session-cookie")
		}
		if i < len(text) && text[i] == '"' {
			i++
		}
		if i >= len(text) || text[i] != ';' && text[i] != ' ' {
			return i
		}
	}
	return i
}
