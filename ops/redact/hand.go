package redact

import "strings"

// Hand-written matchers for the rules that run most often on text dense
// with secrets (a PEM block every few hundred bytes, a curl -u or an
// aws_secret_access_key on every other line). Each one returns exactly what
// its rule's regexp returns on the same window, groups included: the rule
// keeps its regexp, which the tests run beside the matcher
// (TestHandMatchersAgreeWithRegexp) and which still serves the unfiltered
// mode of the tests.

// pemClass is [ A-Z0-9]: the bytes of a PEM label.
var pemClass = func() (t [256]bool) {
	t[' '] = true
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	return
}()

// pemLabelEnd matches [ A-Z0-9]*PRIVATE KEY(?: BLOCK)?----- at win[i:] and
// returns the end of the match, or -1. The label is the whole run of
// [ A-Z0-9] (a '-' must follow it), so the run has to end with
// "PRIVATE KEY" or "PRIVATE KEY BLOCK".
func pemLabelEnd(win string, i int) int {
	j := i
	for j < len(win) && pemClass[win[j]] {
		j++
	}
	if !strings.HasPrefix(win[j:], "-----") {
		return -1
	}
	label := win[i:j]
	if strings.HasSuffix(label, "PRIVATE KEY") || strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return j + 5
	}
	return -1
}

// matchPEMBlock is the anchored
// -----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----:
// the header, then the first END line that completes the pattern.
func matchPEMBlock(win string) []int {
	if !strings.HasPrefix(win, "-----BEGIN") {
		return nil
	}
	h := pemLabelEnd(win, len("-----BEGIN"))
	if h < 0 {
		return nil
	}
	for off := h; ; {
		k := strings.Index(win[off:], "-----END")
		if k < 0 {
			return nil
		}
		if e := pemLabelEnd(win, off+k+len("-----END")); e >= 0 {
			return []int{0, e}
		}
		off += k + 1
	}
}

// matchPEMBody is the anchored
// -----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|[A-Za-z0-9+/=\s→])+:
// the header and as much of a body as follows it (a truncated block). The
// alternatives start with different bytes, so the greedy loop has one way
// to go.
func matchPEMBody(win string) []int {
	if !strings.HasPrefix(win, "-----BEGIN") {
		return nil
	}
	h := pemLabelEnd(win, len("-----BEGIN"))
	if h < 0 {
		return nil
	}
	j := h
	for j < len(win) {
		c := win[j]
		switch {
		case pemBodyClass[c]:
			j++
		case c == '\\' && j+1 < len(win) && (win[j+1] == 'n' || win[j+1] == 'r'):
			j += 2
		case c == 0xE2 && j+2 < len(win) && win[j+1] == 0x86 && win[j+2] == 0x92: // →
			j += 3
		default:
			if j == h {
				return nil
			}
			return []int{0, j}
		}
	}
	if j == h {
		return nil
	}
	return []int{0, j}
}

// pemBodyClass is [A-Za-z0-9+/=\s] (\s: \t \n \f \r and space).
var pemBodyClass = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isB64(byte(c)) || c == '=' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
	}
	return
}()

// isRESpace is \s of RE2: [\t\n\f\r ].
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// findCurlUser is FindAllStringSubmatchIndex of
// (?:^|[\s'"])(?:-u|--user)(?:[ \t]+|=)?["']?[^\s:"'$]*:(?P<s>[^\s"']+)
// on win. A match starts at a blank or a quote (or at the start of win),
// so the other bytes are passed over at once.
func findCurlUser(win string) [][]int {
	var out [][]int
	for i := 0; i < len(win); {
		if i > 0 && !curlUserStart[win[i]] {
			i++ // only the start of win, a blank or a quote starts a match
			continue
		}
		if m := curlUserAt(win, i); m != nil {
			out = append(out, m)
			i = m[1]
			continue
		}
		i++
	}
	return out
}

// curlUserStart: the bytes a match of findCurlUser starts at (after the
// start of its window): \s of RE2 and the quotes.
var curlUserStart = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\f\r'\"") {
		t[c] = true
	}
	return
}()

// curlUserAt is the match of findCurlUser's regexp that starts at i, or nil.
// Each part has one way to match: the blanks of [ \t]+ are all taken (a
// blank cannot start what follows), the user part runs to the first ':'
// (it cannot hold one), and the password to the first blank or quote.
func curlUserAt(win string, i int) []int {
	j := i
	switch c := win[i]; {
	case i == 0 && c == '-':
	case isRESpace(c) || c == '\'' || c == '"':
		j++
	default:
		return nil
	}
	switch {
	case strings.HasPrefix(win[j:], "-u"):
		j += 2
	case strings.HasPrefix(win[j:], "--user"):
		j += 6
	default:
		return nil
	}
	if j < len(win) && (win[j] == ' ' || win[j] == '\t') {
		for j < len(win) && (win[j] == ' ' || win[j] == '\t') {
			j++
		}
	} else if j < len(win) && win[j] == '=' {
		j++
	}
	if j < len(win) && (win[j] == '"' || win[j] == '\'') {
		j++
	}
	for j < len(win) && !isRESpace(win[j]) && win[j] != ':' && win[j] != '"' && win[j] != '\'' && win[j] != '$' {
		j++
	}
	if j >= len(win) || win[j] != ':' {
		return nil
	}
	j++
	s := j
	for j < len(win) && !isRESpace(win[j]) && win[j] != '"' && win[j] != '\'' {
		j++
	}
	if j == s {
		return nil
	}
	return []int{i, j, s, j}
}

// matchMySQL is the anchored
// (?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n|;&]*?[ \t]-p(?P<s>[^\s'"-][^\s'"]*):
// the program, a blank, then the first " -pX" before the command ends
// (a newline, |, ; or &).
func matchMySQL(win string) []int {
	if win == "" || win[0] != 'm' {
		return nil
	}
	j := -1
	for _, name := range [...]string{"mysql", "mysqldump", "mysqladmin", "mariadb"} {
		if len(win) > len(name) && win[:len(name)] == name && (win[len(name)] == ' ' || win[len(name)] == '\t') {
			j = len(name) + 1
			break
		}
	}
	if j < 0 {
		return nil
	}
	for k := j; k < len(win); k++ {
		c := win[k]
		if (c == ' ' || c == '\t') && k+3 < len(win) && win[k+1] == '-' && win[k+2] == 'p' {
			if d := win[k+3]; !isRESpace(d) && d != '\'' && d != '"' && d != '-' {
				s := k + 3
				e := s + 1
				for e < len(win) && !isRESpace(win[e]) && win[e] != '\'' && win[e] != '"' {
					e++
				}
				return []int{0, e, s, e}
			}
		}
		if c == '\n' || c == '|' || c == ';' || c == '&' {
			return nil
		}
	}
	return nil
}

// matchAWSKeyID is the anchored (?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}.
func matchAWSKeyID(win string) []int {
	if len(win) < 20 {
		return nil
	}
	switch win[:4] {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		if win[:3] != "A3T" || !isUpperDigit(win[3]) {
			return nil
		}
	}
	for k := 4; k < 20; k++ {
		if !isUpperDigit(win[k]) {
			return nil
		}
	}
	return []int{0, 20}
}

func isUpperDigit(c byte) bool { return isUpper(c) || isDigit(c) }

// findAuthorization reads the credentials of an Authorization header or
// field after each "authorization" hit: `authorization` [\\]["'] blanks
// [:=] blanks [\\]["'], then either SCHEME blanks [NAME=["']]VALUE (any
// scheme but those of ownRuleScheme, RFC 7235's auth-scheme and
// auth-param: Token, SSWS, Splunk, GenieKey, DeepL-Auth-Key, Token
// token=…) or VALUE alone. VALUE
// is 8 to 300 of [A-Za-z0-9._~+/:@-] and any '=' padding, not followed by
// a token byte, and must pass checkAuthValue; the value after a scheme is
// tried first.
func findAuthorization(text string, hits []hit, emit func(s, e int, id string)) {
	var sbuf [32]byte // the scheme lower-cased, to look up
	for _, h := range hits {
		i := int(h.pos) + int(h.alen)
		if i < len(text) && text[i] == '\\' {
			i++
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		i = skipBlanks(text, i)
		if i >= len(text) || text[i] != ':' && text[i] != '=' {
			continue
		}
		i = skipBlanks(text, i+1)
		if i < len(text) && text[i] == '\\' {
			i++
		}
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		b := i
		for b < len(text) && isAuthValueByte(text[b]) {
			b++
		}
		if b < len(text) && (text[b] == ' ' || text[b] == '\t') && b > i && isAlpha(text[i]) && isSchemeWord(text[i:b]) && !ownRuleScheme[lowerASCIIIn(sbuf[:], text[i:b])] {
			j := skipBlanks(text, b)
			k := j
			for k < len(text) && (isAlpha(text[k]) || text[k] == '_') {
				k++
			}
			if k > j && k < len(text) && text[k] == '=' {
				k++
				if k < len(text) && (text[k] == '"' || text[k] == '\'') {
					k++
				}
				if s, e := authValueAt(text, k); s >= 0 && checkAuthValue(text, s, e) {
					emit(s, e, "authorization-header")
					continue
				}
			}
			if s, e := authValueAt(text, j); s >= 0 && checkAuthValue(text, s, e) {
				emit(s, e, "authorization-header")
				continue
			}
		}
		if s, e := authValueAt(text, i); s >= 0 && checkAuthValue(text, s, e) {
			emit(s, e, "authorization-header")
		}
	}
}

// ownRuleScheme: schemes whose credentials other rules judge (basic-auth
// decodes Basic's user:pass, bearer-token checks Bearer's), or that carry
// no reusable secret (Digest's response, NTLM's handshake).
var ownRuleScheme = map[string]bool{"basic": true, "bearer": true, "digest": true, "ntlm": true}

func isAuthValueByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == ':' || c == '@' || c == '-'
}

func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }

// isSchemeWord: an auth scheme's shape, letters, digits and dashes.
func isSchemeWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) && w[i] != '-' {
			return false
		}
	}
	return true
}

// authValueAt: the credentials starting at i (8 to 300 value bytes, then
// '=' padding, not followed by a token byte), or -1.
func authValueAt(text string, i int) (int, int) {
	e := i
	for e < len(text) && isAuthValueByte(text[e]) {
		e++
	}
	if e-i < 8 || e-i > 300 {
		return -1, -1
	}
	for e < len(text) && text[e] == '=' {
		e++
	}
	if e < len(text) && isTokenByte(text[e]) {
		return -1, -1
	}
	return i, e
}

// matchAWSPair is the anchored regexp of the rule that takes an AWS secret
// access key right after its key id,
// (?:AKIA|ASIA)[A-Z0-9]{16}["'`]?[ \t]*[,:;|= \t][ \t]*["'`]?(?P<s>[A-Za-z0-9/+]{40}),
// its choices (a quote or none, how many blanks before the separator and
// after it) tried in the order the regexp engine tries them: on the
// secrets shape every key id is followed by a line break, and the engine
// was started for nothing at each one.
func matchAWSPair(win string) []int {
	if len(win) < 20 || win[:4] != "AKIA" && win[:4] != "ASIA" {
		return nil
	}
	for k := 4; k < 20; k++ {
		if !isUpperDigit(win[k]) {
			return nil
		}
	}
	// quoted(i): where the secret may start after an optional quote at i,
	// the quote taken first
	quoted := func(i int) (int, int) {
		if i < len(win) && (win[i] == '"' || win[i] == '\'' || win[i] == '`') {
			return i + 1, i
		}
		return i, -1
	}
	blanks := func(i int) int {
		for i < len(win) && (win[i] == ' ' || win[i] == '\t') {
			i++
		}
		return i
	}
	q1, q1b := quoted(20)
	for _, a := range [2]int{q1, q1b} {
		if a < 0 {
			break
		}
		for b := blanks(a); b >= a; b-- { // [ \t]* gives back a blank at a time
			if b >= len(win) || strings.IndexByte(",:;|= \t", win[b]) < 0 {
				continue
			}
			for d := blanks(b + 1); d >= b+1; d-- {
				e, eb := quoted(d)
				for _, st := range [2]int{e, eb} {
					if st >= 0 && st+40 <= len(win) && isB64Run(win[st:st+40]) {
						return []int{0, st + 40, st, st + 40}
					}
				}
			}
		}
	}
	return nil
}

func isB64Run(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isAlnum(c) || c == '/' || c == '+') {
			return false
		}
	}
	return true
}

// jwkNames are the private members of a JWK, in the order of the
// regexp's alternation.
var jwkNames = [...]string{"d", "p", "q", "dp", "dq", "qi", "k"}

// matchJWKMember is the anchored regexp of the JWK private-member rule,
// \\?"(?:d|p|q|dp|dq|qi|k)\\?"[ \t]*:[ \t]*\\?"(?P<s>[A-Za-z0-9_-]{16,})\\?".
// Every choice it has is decided by the next byte (a name is followed by
// its quote, the run by a byte outside its class), so a forward pass finds
// its match. The rule reads 6,000 bytes on either side of every "kty",
// which base64 holds by chance (the regexp, having no literal to look
// for, walked each of those windows in its slowest mode).
func matchJWKMember(win string) []int {
	quote := func(i int) int { // after \\?" at i, or -1
		if i < len(win) && win[i] == '\\' {
			i++
		}
		if i < len(win) && win[i] == '"' {
			return i + 1
		}
		return -1
	}
	i := quote(0)
	if i < 0 {
		return nil
	}
	named := -1
	for _, n := range jwkNames {
		if strings.HasPrefix(win[i:], n) {
			if named = quote(i + len(n)); named >= 0 {
				break
			}
		}
	}
	if named < 0 {
		return nil
	}
	i = named
	for i < len(win) && (win[i] == ' ' || win[i] == '\t') {
		i++
	}
	if i >= len(win) || win[i] != ':' {
		return nil
	}
	i++
	for i < len(win) && (win[i] == ' ' || win[i] == '\t') {
		i++
	}
	if i = quote(i); i < 0 {
		return nil
	}
	s := i
	for i < len(win) && (isAlnum(win[i]) || win[i] == '_' || win[i] == '-') {
		i++
	}
	e := i
	if e-s < 16 {
		return nil
	}
	if i = quote(i); i < 0 {
		return nil
	}
	return []int{0, i, s, e}
}
