package redact

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"sync/atomic"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isB64(c byte) bool   { return isAlnum(c) || c == '+' || c == '/' }

// isTokenByte: bytes that can continue an API token.
func isTokenByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	if len(s) < len(plogpTab) {
		return entropyShort(s)
	}
	if len(s) < plogpLongMax {
		return entropyRow(s, plogpLong(len(s)))
	}
	var cnt [256]int
	for i := 0; i < len(s); i++ {
		cnt[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range cnt {
		if c > 0 {
			p := float64(c) / n
			h -= float64(p * math.Log2(p))
		}
	}
	return h
}

// plogpTab[n][c] is p*log2(p) for p = c/n: entropy takes its terms from
// the table for short strings (the secrets it is asked about) instead of
// calling math.Log2 for every distinct byte. The terms are the same floats,
// added in the same order (of the byte values), so the result is the same.
var plogpTab = func() (t [129][]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = make([]float64, n+1)
		for c := 1; c <= n; c++ {
			p := float64(c) / float64(n)
			t[n][c] = float64(p * math.Log2(p))
		}
	}
	return
}()

// plogpLongMax bounds the lengths whose rows of p*log2(p) are made when
// first asked for (plogpLong): the values the checks judge are at most 512
// bytes (plausibleValue), JWTs and PEM bodies among them.
const plogpLongMax = 1024

var plogpRows [plogpLongMax]atomic.Pointer[[]float64]

// plogpLong is plogpTab's row for n (len(plogpTab) <= n < plogpLongMax),
// made on first use: the same floats, computed the same way.
func plogpLong(n int) []float64 {
	if r := plogpRows[n].Load(); r != nil {
		return *r
	}
	row := make([]float64, n+1)
	for c := 1; c <= n; c++ {
		p := float64(c) / float64(n)
		row[c] = float64(p * math.Log2(p))
	}
	plogpRows[n].CompareAndSwap(nil, &row)
	return *plogpRows[n].Load()
}

func entropyShort(s string) float64 { return entropyRow(s, plogpTab[len(s)]) }

// entropyRow is entropy with the terms of row (row[c] = p*log2(p) for
// p = c/len(s)), added in the order of the byte values.
func entropyRow(s string, row []float64) float64 {
	if len(s) < 256 {
		return entropyRow8(s, row)
	}
	var cnt [256]uint16
	var seen [4]uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		cnt[c]++
		seen[c>>6] |= 1 << (c & 63)
	}
	h := 0.0
	for w, bitsw := range seen {
		for bitsw != 0 {
			b := bits.TrailingZeros64(bitsw)
			bitsw &= bitsw - 1
			h -= row[cnt[w<<6|b]]
		}
	}
	return h
}

// entropyRow8 is entropyRow for a string shorter than 256 bytes (every
// value the checks judge but the longest): its counts fit a byte, and the
// bytes present are found from the counts, 8 at a time, in the order of
// their values (a bitset of them, set as the bytes were counted, made a
// chain of dependent stores through one word for most strings).
func entropyRow8(s string, row []float64) float64 {
	var cnt [256]uint8
	for i := 0; i < len(s); i++ {
		cnt[s[i]]++
	}
	return entropyOfCounts(&cnt, row)
}

// entropyOfCounts is entropyRow8's sum, of the counts of the bytes.
func entropyOfCounts(cnt *[256]uint8, row []float64) float64 {
	h := 0.0
	for w := 0; w < len(cnt); w += 8 {
		x := binary.LittleEndian.Uint64(cnt[w : w+8])
		for x != 0 {
			sh := bits.TrailingZeros64(x) &^ 7
			h -= row[uint8(x>>sh)]
			x &^= 0xff << sh
		}
	}
	return h
}

type classes struct{ lower, upper, digit, other int }

// classTab: 0 lower, 1 upper, 2 digit, 3 other.
var classTab = func() (t [256]uint8) {
	for i := range t {
		switch b := byte(i); {
		case isLower(b):
			t[i] = 0
		case isUpper(b):
			t[i] = 1
		case isDigit(b):
			t[i] = 2
		default:
			t[i] = 3
		}
	}
	return
}()

func classOf(s string) classes {
	var n [4]int
	for i := 0; i < len(s); i++ {
		n[classTab[s[i]]]++
	}
	return classes{n[0], n[1], n[2], n[3]}
}

func (c classes) kinds() int {
	k := 0
	for _, v := range []int{c.lower, c.upper, c.digit, c.other} {
		if v > 0 {
			k++
		}
	}
	return k
}

var fakeMarkers = []string{
	"EXAMPLE", "example", "xxxxx", "XXXXX", "*****", "....", "0123456789", "abcdefgh", "ABCDEFGH",
	"...", "…", "<", ">", "${", "{{",
}

var fakeMarkerSet = newPartSet(fakeMarkers)

// tokenLooksReal is the default check for fixed-format tokens: not a
// placeholder and not obviously low-entropy.
func tokenLooksReal(sec string) bool {
	if fakeMarkerSet.in(sec) {
		return false
	}
	if len(sec) >= 16 && entropy(sec) < 3.0 {
		return false
	}
	return true
}

var emptyPlaceholderSet = newPartSet([]string{"xxxx", "XXXX", "****", "<", ">", "${", "{{", "...", "…"})

// emptyPlaceholder reports the obviously empty placeholders that are never
// reported, whatever the rule: xxxx…, ****, <…>, ${…}, {{…}}, "...", "…", and
// values that are (almost) all one repeated character.
func emptyPlaceholder(sec string) bool {
	if emptyPlaceholderSet.in(sec) {
		return true
	}
	if len(sec) < 8 {
		return false
	}
	run, best := 1, 1
	for i := 1; i < len(sec); i++ {
		if sec[i] == sec[i-1] {
			run++
			if run > best {
				best = run
			}
		} else {
			run = 1
		}
	}
	return best*2 >= len(sec)
}

// entropyAtLeast reports entropy(s) >= m. The entropy is at least the
// min-entropy, log2(n/most) (most: the count of the commonest byte of the
// n): when n > most*2^m by a margin that the floats' rounding cannot undo
// (a part in a million: the sum of the terms is off by less than 1e-13),
// the entropy is not summed. Most of the secrets judged are random tokens
// (an sk-ant- key's 93 bytes hold no byte more than 5 or 6 times), and the
// sum, a dependent chain of float additions per distinct byte, was most of
// the entropy's time: 6 % of the scan of the secrets bench's texts.
func entropyAtLeast(s string, m float64) bool {
	n := len(s)
	if n == 0 || n >= 256 {
		return entropy(s) >= m
	}
	var cnt [256]uint8
	most := uint8(0)
	for i := 0; i < n; i++ {
		c := cnt[s[i]] + 1
		cnt[s[i]] = c
		most = max(most, c)
	}
	if float64(n) > float64(most)*exp2Of(m)*(1+1e-6) {
		return true
	}
	// entropy's own sum (entropyRow8's, with its row)
	var row []float64
	if n < len(plogpTab) {
		row = plogpTab[n]
	} else {
		row = plogpLong(n)
	}
	return entropyOfCounts(&cnt, row) >= m
}

// exp2Of is math.Exp2(m), the thresholds the checks use most read from a
// table (math.Exp2 was a fifth of entropyAtLeast's time).
func exp2Of(m float64) float64 {
	switch m {
	case 3.0:
		return 8
	case 3.5:
		return exp2Of35
	case 4.0:
		return 16
	}
	return math.Exp2(m)
}

var exp2Of35 = math.Exp2(3.5)

// prefixLooksReal is the check for tokens with an unmistakable prefix (and
// for context rules): a fake-looking key (EXAMPLE, fake, 0123456789…) is
// still reported, since a user sharing a transcript would rather lose a fake
// key than leak a real one. Only empty placeholders and very low-entropy
// values are rejected.
func prefixLooksReal(sec string) bool {
	if emptyPlaceholder(sec) {
		return false
	}
	return len(sec) < 16 || entropyAtLeast(sec, 3.0)
}

// randomShape is prefixLooksReal(sec) && entropy(sec) >= minEntropy &&
// classOf(sec).kinds() >= minKinds with the entropy taken once (the checks
// of a secret-dense text spend a share of their time on it).
func randomShape(sec string, minEntropy float64, minKinds int) bool {
	if emptyPlaceholder(sec) {
		return false
	}
	need := minEntropy
	if len(sec) >= 16 {
		need = max(need, 3.0)
	}
	if !entropyAtLeast(sec, need) {
		return false
	}
	return classOf(sec).kinds() >= minKinds
}

func checkToken(text string, s, e int) bool { return prefixLooksReal(text[s:e]) }

// checkRandom: a token found by context or by a prefix: require a
// random-looking shape. Fake-looking values (EXAMPLE…) are accepted.
func checkRandom(minEntropy float64, minKinds int) func(string, int, int) bool {
	return func(text string, s, e int) bool { return randomShape(text[s:e], minEntropy, minKinds) }
}

// checkRandomStrict is checkRandom that also rejects EXAMPLE, 0123456789,
// abcdefgh…: for shapes whose prefix proves nothing (generic "sk-").
func checkRandomStrict(minEntropy float64, minKinds int) func(string, int, int) bool {
	return func(text string, s, e int) bool {
		sec := text[s:e]
		return !fakeMarkerSet.in(sec) && randomShape(sec, minEntropy, minKinds)
	}
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return s != ""
}

// checkBasic: the value of "Authorization: Basic X" must decode to user:pass.
func checkBasic(text string, s, e int) bool {
	v := text[s:e]
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
		if err != nil {
			// not base64 of user:pass, but a long random value after Basic is still a credential
			return len(v) >= 24 && entropy(v) >= 4 && classOf(v).kinds() >= 3
		}
	}
	i := strings.IndexByte(string(b), ':')
	if i <= 0 || i == len(b)-1 {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	pw := string(b[i+1:])
	if plausibleValue(pw, kindPassword, true) {
		return true
	}
	// a pass phrase of words ("open sesame"): the header is a credential
	return strings.Count(pw, " ") > 0 && len(pw) >= 8 && !hasPlaceholderPart(pw) && !isPlaceholderWord(pw)
}

// value kinds for the keyword-context rules
const (
	kindPassword = iota
	kindToken
	kindAPIKey
	kindSecret
)

var placeholderWords = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "undefined": true,
	"changeme": true, "change_me": true, "changeit": true, "password": true, "passwd": true, "secret": true,
	"token": true, "example": true, "placeholder": true, "redacted": true, "hidden": true, "masked": true,
	"dummy": true, "required": true, "optional": true, "string": true, "str": true, "bool": true,
	"boolean": true, "number": true, "int": true, "bytes": true, "object": true, "default": true,
	"empty": true, "test": true, "testing": true, "secret123": true, "password123": true, "password1": true,
	"pass123": true, "admin123": true, "123456": true, "1234567": true, "12345678": true, "123456789": true,
	"qwerty": true, "letmein": true, "hunter2": true, "sensitive": true, "notasecret": true,
	"postgres": true, "root": true, "admin": true, "mysql": true, "guest": true, "user": true,
	"yes": true, "no": true, "on": true, "off": true, "env": true, "file": true, "stdin": true,
	"prompt": true, "auto": true, "inherit": true, "keyring": true, "vault": true,
	"minioadmin": true, // MinIO's documented default user and password
	"pass":       true, // user:pass, the placeholder pair of docs and URLs
}

var placeholderParts = []string{
	"${", "{{", "}}", "***", "###", "xxx", "XXX", "...", "…", "your", "YOUR", "Your",
	"placeholder", "PLACEHOLDER", "changeme", "CHANGEME", "change_me", "change-me",
	"redacted", "REDACTED", "insert", "replace", "todo", "TODO", "getenv", "environ",
	"process.env", "secrets.", "vault:", "op://", "$(", "%(", "{}", "%2$",
	"_here", "-here", "HERE", "\\n",
	"@Microsoft.KeyVault(", // an Azure App Service Key Vault reference
}

var placeholderPartSet = newPartSet(placeholderParts)

// partSet answers "does v contain any of these strings" in one pass over
// v: a position is looked at further only when its two bytes start a part
// (a one-byte part starts every pair it begins).
type partSet struct {
	one     [256]bool     // bytes that are a whole part
	bi      [1024]uint64  // the pairs of bytes that start a part
	byFirst [256][]string // the longer parts, by first byte
}

func newPartSet(parts []string) *partSet {
	ps := &partSet{}
	for _, p := range parts {
		if len(p) == 1 {
			ps.one[p[0]] = true
			for c := range 256 {
				k := uint16(p[0])<<8 | uint16(c)
				ps.bi[k>>6] |= 1 << (k & 63)
			}
			continue
		}
		k := uint16(p[0])<<8 | uint16(p[1])
		ps.bi[k>>6] |= 1 << (k & 63)
		ps.byFirst[p[0]] = append(ps.byFirst[p[0]], p)
	}
	return ps
}

// in reports whether v contains one of the parts (strings.Contains of
// each). One test per position, on the set of pairs, which few pairs of a
// random value pass (testing the first byte alone let most letters through,
// on a branch the processor could not predict).
func (ps *partSet) in(v string) bool {
	if len(v) == 0 {
		return false
	}
	for i := 0; i+1 < len(v); i++ {
		if k := uint16(v[i])<<8 | uint16(v[i+1]); ps.bi[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		if ps.one[v[i]] {
			return true
		}
		for _, p := range ps.byFirst[v[i]] {
			if len(v)-i >= len(p) && v[i:i+len(p)] == p {
				return true
			}
		}
	}
	return ps.one[v[len(v)-1]]
}

// hasPlaceholderPart: v holds a placeholder part, or a <…> span (a lone
// '<' or '>' is just a character of a password).
func hasPlaceholderPart(v string) bool {
	if placeholderPartSet.in(v) {
		return true
	}
	if i := strings.IndexByte(v, '<'); i >= 0 && strings.IndexByte(v[i:], '>') > 0 {
		return true
	}
	// a format verb (%s, %v, %d) ends at a non-letter: "%vE" in s8%vEUv13 is not one
	for i := strings.IndexByte(v, '%'); i >= 0 && i+1 < len(v); {
		if strings.IndexByte("svdq", v[i+1]) >= 0 && (i+2 == len(v) || !isAlnum(v[i+2])) {
			return true
		}
		k := strings.IndexByte(v[i+1:], '%')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return v != "" && (v[0] == '<' || v[len(v)-1] == '>')
}

// softPlaceholderParts mark a value as fake unless it otherwise looks like a
// random key: AWS's documented wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is
// reported, "example-password" is not.
var softPlaceholderParts = []string{"example", "EXAMPLE", "Example", "dummy", "DUMMY", "fake", "FAKE", "sample", "SAMPLE"}

var softPlaceholderSet = newPartSet(softPlaceholderParts)

func looksRandomKey(v string) bool {
	return len(v) >= 20 && entropy(v) >= 3.8 && classOf(v).kinds() >= 3
}

// plausibleValue decides whether a value next to a secret keyword looks like
// a real secret rather than a placeholder, reference, type name or code.
func plausibleValue(v string, kind int, quoted bool) bool {
	minLen := 8
	if kind == kindPassword {
		minLen = 6
	}
	if len(v) < minLen || len(v) > 512 {
		return false
	}
	// one pass over v for its classes of characters and the punctuation
	// the checks below look for (they were a pass each): every check up
	// to the UUID's answers false, so the blank one may come first
	c, marks := valueProfile(v)
	if marks&markBlank != 0 {
		return false
	}
	if isPlaceholderWord(v) || sequentialValue(v) { // sequentialValue: general7.go
		return false
	}
	if hasPlaceholderPart(v) {
		return false
	}
	if softPlaceholderSet.in(v) && !looksRandomKey(v) {
		return false
	}
	if encodedPlaceholder(v) { // encoded5.go
		return false
	}
	if publicPrefix(v) { // public.go: pk_live_, phc_, sb_publishable_…
		return false
	}
	switch v[0] {
	case '%':
		return percentLedPassword(v, kind, quoted) // general6.go
	case '/':
		if !slashLedKey(v) { // general7.go
			return false
		}
	case '$', '{', '<', '[', '(', '\\':
		return false
	case '-', '.', ':', '=', '|', '>', ',':
		if !punctLedPassword(v) { // general6.go
			return false
		}
	case '\'', '"':
		if len(v) > 1 && (v[1] == '$' || v[1] == '%') {
			return false // a quoted reference inside the quotes: "'$DB_PASSWORD'"
		}
	case '@', '*', '!', '&', '#', '~':
		// YAML anchors/tags/comments, pointers, decorators... unless clearly random
		if len(v) < 10 || c.kinds() < 3 || entropy(v) < 3.3 || isIdentPath(v[1:]) || marks&markBrace != 0 {
			return false
		}
	}
	if len(v) > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && allHex(v[2:]) && len(v) <= 18 {
		return false // a numeric literal
	}
	if isEnvName(v) {
		return false // a reference to another variable: AUTH0_CLIENT_SECRET
	}
	if strings.HasPrefix(v, "arn:aws") {
		return false // an ARN names a resource or a policy
	}
	if nestedAssignment(v) {
		return false
	}
	if !quoted && (marks&markParen != 0 || marks&markBrace != 0 && !(kind == kindPassword && c.kinds() >= 4) || isLowerCamelIdent(v)) {
		return false // code (f(x), a[i], {…}); a password may hold a brace among all four kinds of characters
	}
	if !quoted {
		for _, k := range []string{"password", "passwd", "secret", "token", "apikey", "api_key", "credential"} {
			if strings.HasPrefix(v, k) {
				return false // a variable: password16, secretValue, token_str
			}
		}
	}
	if chain.IsUUID(v) {
		// a UUID named as a token or key (HEROKU_API_KEY, apikey: …,
		// CONSUL_HTTP_TOKEN=…, quoted or not: Consul, Nomad, Postmark) is one;
		// a password or a bare "auth" is not expected to be a UUID
		return kind != kindPassword
	}
	if marks&markIdentSep != 0 && isIdentPath(v) || looksLikePathOrURLFold(v) {
		return false
	}
	// runs of a single character (****, xxxxxx, 000000)
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	if same {
		return false
	}
	letters := c.lower + c.upper
	if c.digit == 0 && c.other == 0 {
		// letters only: words, type names, identifiers. Accept long random-looking
		// strings, and a quoted or mixed-case password (DrECIN) that is not a
		// CamelCase name.
		if kind == kindPassword && (quoted || c.upper > 0 && c.lower > 0) && !isCamelWords(v) && !(c.upper > 0 && c.lower == 0 && strings.Contains(v, "_")) {
			return true
		}
		return len(v) >= 20 && entropy(v) >= 3.5 && c.upper > 0 && c.lower > 0 && !isCamelWords(v)
	}
	if letters == 0 && c.other == 0 {
		// digits only: a PIN-like password, or a long numeric token
		return kind == kindPassword && len(v) >= 8 || len(v) >= 16 && entropy(v) >= 2.5
	}
	// identifiers like MY_SECRET_TOKEN, some-name, snake_case_words
	if c.digit == 0 && onlyIdentPunct(v) {
		return false
	}
	if kind != kindPassword && entropy(v) < 2.8 {
		return false
	}
	return true
}

// The marks of valueProfile: the bytes plausibleValue looks for.
const (
	markBlank    = 1 << iota // ' ', \t, \r, \n
	markParen                // ( ) [ ]
	markBrace                // { }
	markIdentSep             // . : > (isIdentPath needs one)
)

var markTab = func() (t [256]uint8) {
	for _, c := range " \t\r\n" {
		t[c] |= markBlank
	}
	for _, c := range "()[]" {
		t[c] |= markParen
	}
	for _, c := range "{}" {
		t[c] |= markBrace
	}
	for _, c := range ".:>" {
		t[c] |= markIdentSep
	}
	return
}()

// valueProfile is classOf(v) and the marks of the bytes of v, in one pass.
func valueProfile(v string) (classes, uint8) {
	var n [4]int
	var m uint8
	for i := 0; i < len(v); i++ {
		n[classTab[v[i]]]++
		m |= markTab[v[i]]
	}
	return classes{n[0], n[1], n[2], n[3]}, m
}

func onlyIdentPunct(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// isCamelWords: FooBarBaz / fooBarBaz — a type or variable name.
func isCamelWords(v string) bool {
	humps := 0
	for i := 1; i < len(v); i++ {
		if isUpper(v[i]) && isLower(v[i-1]) {
			humps++
		}
		if isUpper(v[i]) && isUpper(v[i-1]) {
			return false
		}
	}
	return humps >= 1 && humps*8 >= len(v)/2
}

// isIdentPath: a.b.c / a->b / a::b — a reference in code.
func isIdentPath(v string) bool {
	if !strings.ContainsAny(v, ".:>") {
		return false
	}
	// the parts between the separators . : - > (empty ones skipped), read
	// in place: two or more, each an identifier that does not start with a
	// digit and holds at most two (code identifiers are rarely mixed with
	// many digits)
	parts := 0
	for i := 0; i < len(v); {
		if identPathSep(v[i]) {
			i++
			continue
		}
		if isDigit(v[i]) {
			return false
		}
		digits := 0
		for ; i < len(v) && !identPathSep(v[i]); i++ {
			if c := v[i]; isDigit(c) {
				digits++
			} else if !isAlnum(c) && c != '_' {
				return false
			}
		}
		if digits > 2 {
			return false
		}
		parts++
	}
	return parts >= 2
}

func identPathSep(c byte) bool { return c == '.' || c == ':' || c == '-' || c == '>' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isPlaceholderWord is placeholderWords[strings.ToLower(v)], without
// making the lower-case string when v is ASCII.
func isPlaceholderWord(v string) bool {
	if !isASCII(v) {
		return placeholderWords[strings.ToLower(v)]
	}
	var buf [24]byte
	if len(v) > len(buf) {
		return false // longer than every word
	}
	for i := 0; i < len(v); i++ {
		buf[i] = lowerTab[v[i]]
	}
	return placeholderWords[string(buf[:len(v)])]
}

// looksLikePathOrURLFold is looksLikePathOrURL(strings.ToLower(v)).
func looksLikePathOrURLFold(v string) bool {
	if !isASCII(v) {
		return looksLikePathOrURL(strings.ToLower(v))
	}
	if v != "" && pathPrefixFirst[lowerTab[v[0]]] {
		for _, p := range pathPrefixes {
			if hasPrefixFold(v, p) {
				return true
			}
		}
	}
	if !dotInTail(v, pathSuffixMax) {
		return false // every suffix starts with its dot
	}
	for _, ext := range pathSuffixes {
		if len(v) >= len(ext) && hasPrefixFold(v[len(v)-len(ext):], ext) {
			return true
		}
	}
	return false
}

// pathPrefixFirst: the first bytes of pathPrefixes; pathSuffixMax: the
// length of the longest of pathSuffixes (each starts with a dot).
var pathPrefixFirst, pathSuffixMax = func() (t [256]bool, longest int) {
	for _, p := range pathPrefixes {
		t[p[0]] = true
	}
	for _, ext := range pathSuffixes {
		if ext[0] != '.' {
			panic("redact: a path suffix without its dot: " + ext)
		}
		longest = max(longest, len(ext))
	}
	return
}()

// dotInTail: one of the last n bytes of v is a dot.
func dotInTail(v string, n int) bool {
	return strings.IndexByte(v[max(0, len(v)-n):], '.') >= 0
}

var (
	pathPrefixes = []string{"http://", "https://", "file:", "./", "../", "~/", "c:\\"}
	pathSuffixes = []string{".txt", ".json", ".pem", ".key", ".yaml", ".yml", ".env", ".crt", ".p12", ".pfx", ".jks", ".toml", ".ini", ".cfg", ".conf", ".gpg", ".asc"}
)

func looksLikePathOrURL(lv string) bool {
	for _, p := range pathPrefixes {
		if strings.HasPrefix(lv, p) {
			return true
		}
	}
	for _, ext := range pathSuffixes {
		if strings.HasSuffix(lv, ext) {
			return true
		}
	}
	return false
}

// nestedAssignment: Name=value inside a value (connection-string fragments).
func nestedAssignment(v string) bool {
	i := strings.IndexByte(v, '=')
	if i < 4 || i == len(v)-1 {
		return false
	}
	for j := 0; j < i; j++ {
		if !(isAlnum(v[j]) || v[j] == '_') || isDigit(v[j]) {
			return false
		}
	}
	return true
}

// isLowerCamelIdent: testRSA2048PrivateKey, defaultPassword1 — a variable
// name in code rather than a secret.
func isLowerCamelIdent(v string) bool {
	if !isLower(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) {
			return false
		}
	}
	if classOf(v).upper == 0 {
		return false
	}
	var arr [12]string
	ws := appendWords(arr[:0], v)
	if len(ws) < 2 {
		return false
	}
	letters, short := 0, 0
	for _, w := range ws {
		if isDigit(w[0]) {
			continue
		}
		letters++
		if len(w) <= 2 {
			short++
		}
	}
	return letters >= 2 && short <= 1 && len(v)/len(ws) >= 3
}

// plausibleProse: "the password is X" — X must look like a password, not a word.
func plausibleProse(v string) bool {
	c := classOf(v)
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return false
		}
	}
	return len(v) >= 8 && c.digit > 0 && c.lower+c.upper > 0
}

// isEnvName: UPPER_SNAKE_CASE with at least two words, mostly letters.
func isEnvName(v string) bool {
	if !isUpper(v[0]) || !strings.Contains(v, "_") {
		return false
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			digits++
		case c == '_':
			if i+1 < len(v) && !isUpper(v[i+1]) {
				return false
			}
		case !isUpper(c):
			return false
		}
	}
	return digits <= 2
}

// checkAuthValue: the value of an Authorization header (after its scheme
// word), unless it is a placeholder or a variable.
func checkAuthValue(text string, s, e int) bool {
	v := text[s:e]
	if emptyPlaceholder(v) || isEnvName(v) || strings.HasPrefix(v, "$") || hasPlaceholderPart(v) {
		return false
	}
	c := classOf(v)
	if c.digit == 0 && c.other == 0 && (len(v) < 20 || isCamelWords(v)) {
		return false // a word: Authorization: Bearer, Basic, Negotiate
	}
	return entropy(v) >= 3 && c.kinds() >= 2
}

// checkDERPrivateKey: base64 of a DER private key (PKCS#1 or PKCS#8), which
// starts SEQUENCE, INTEGER 0; a certificate starts SEQUENCE, SEQUENCE.
func checkDERPrivateKey(text string, s, e int) bool {
	if e-s < 64 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(text[s : s+12])
	if err != nil || len(b) < 7 {
		return false
	}
	return b[0] == 0x30 && b[4] == 0x02 && b[5] == 0x01 && b[6] == 0x00
}

// all: every check passes.
func all(checks ...func(string, int, int) bool) func(string, int, int) bool {
	return func(text string, s, e int) bool {
		for _, c := range checks {
			if !c(text, s, e) {
				return false
			}
		}
		return true
	}
}

// body applies f to the secret without its first n bytes (its prefix).
func body(n int, f func(string) bool) func(string, int, int) bool {
	return func(text string, s, e int) bool { return e-s > n && f(text[s+n:e]) }
}

func mixedCase(v string) bool { c := classOf(v); return c.upper > 0 && c.lower > 0 }

// notAfter: the secret does not follow one of these bytes (a prefix after
// "." or "/" is part of a file name or a URL path: favicon.ico-…, /API-…).
func notAfter(bytes string) func(string, int, int) bool {
	return func(text string, s, e int) bool { return s == 0 || strings.IndexByte(bytes, text[s-1]) < 0 }
}

// notBefore: the secret is not followed by one of these bytes (a
// placeholder tail: xoxp-…-####).
func notBefore(bytes string) func(string, int, int) bool {
	return func(text string, s, e int) bool { return e == len(text) || strings.IndexByte(bytes, text[e]) < 0 }
}
