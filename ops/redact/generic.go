package redact

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Keyword-context rules: KEY=value, "key": "value", key: value, --flag value,
// "the password is X", and credentials in URLs. Written as code rather than
// regexps: they run on every keyword hit, and the parsing is easier to keep
// precise by hand.

var assignmentKeywords = []string{
	"pass", "pwd", "secret", "token", "auth", "credential", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "_key", "-key", "presharedkey", " key ", "crumb",
	"_private", "signature", "_sas", "creds", "_pat", "hmac",
	// camelCase names ending in Key (hmacKey, EncryptionKey), anchored on
	// the end of the name and its separator: "key" alone starts too many
	// words, and a trigram starting "Key" passes the prefilter everywhere
	// (not ey": a quote is escaped in the raw line the prefilter reads)
	"ey=", "ey:",
}

// weakLastWords: a name's last word that names a secret only when its
// value looks generated (strongValue): STRIPE_PRIVATE, webhook_signature,
// AZURE_STORAGE_SAS, db_creds, ADO_PAT, SIGNING_HMAC.
var weakLastWords = map[string]bool{"private": true, "signature": true, "sas": true, "cred": true, "creds": true, "pat": true, "hmac": true}

var assignmentIDs = [...]string{
	kindPassword: "generic-password",
	kindToken:    "generic-token",
	kindAPIKey:   "generic-api-key",
	kindSecret:   "generic-secret",
}

func isIdentByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// appendWords appends the words of id to words: an identifier split into
// lower-case words at _ - . , camelCase humps and letter/digit changes.
// The words are
// ASCII letters and digits only, so they are cut from one lower-cased copy
// of id rather than lower-cased one by one.
func appendWords(words []string, id string) []string {
	lid := lowerASCII(id)
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			words = append(words, lid[start:i])
		}
		start = -1
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 {
			p := id[i-1]
			if isUpper(c) && isLower(p) || isDigit(c) != isDigit(p) ||
				(isUpper(c) && isUpper(p) && i+1 < len(id) && isLower(id[i+1]) && i-start > 1) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(id))
	return words
}

// lowerASCII lower-cases the ASCII letters of s (s itself when it has none).
func lowerASCII(s string) string {
	k := 0
	for k < len(s) && !isUpper(s[k]) {
		k++
	}
	if k == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:k])
	for i := k; i < len(s); i++ {
		b.WriteByte(lowerTab[s[i]])
	}
	return b.String()
}

// lowerASCIIIn is lowerASCII(s) made in buf when s has an upper-case letter
// and fits: a name lower-cased to be looked up or cut into words needs no
// string of its own (it was a quarter of the scan's allocations on the
// secrets bench). The result shares buf's bytes: it is good as long as buf
// is and holds them (a local array of the caller, used once). Not for
// appendWords: its words may go into a slice on the heap, and the array
// with them.
func lowerASCIIIn(buf []byte, s string) string {
	k := 0
	for k < len(s) && !isUpper(s[k]) {
		k++
	}
	if k == len(s) {
		return s
	}
	if len(s) > len(buf) {
		return lowerASCII(s)
	}
	b := buf[:len(s)]
	copy(b, s[:k])
	for i := k; i < len(s); i++ {
		b[i] = lowerTab[s[i]]
	}
	return unsafe.String(&b[0], len(b))
}

// isFold reports whether s is lower (already lower case) in any ASCII
// case: lowerASCII(s) == lower without the copy. For a lower of ASCII
// letters with no i or k it is also strings.ToLower(s) == lower (U+0130
// and the Kelvin sign are the only runes whose lower case is ASCII).
func isFold(s, lower string) bool {
	return len(s) == len(lower) && hasPrefixFold(s, lower)
}

var tokenPrefixDeny = map[string]bool{
	"next": true, "page": true, "pagination": true, "continuation": true, "cursor": true, "cancel": true,
	"cancellation": true, "sync": true, "eos": true, "bos": true, "pad": true, "unk": true, "sep": true,
	"cls": true, "mask": true, "special": true, "start": true, "end": true, "stop": true, "max": true,
	"min": true, "num": true, "total": true, "count": true, "input": true, "output": true, "prompt": true,
	"completion": true, "cache": true, "thinking": true, "reasoning": true, "design": true, "lexer": true,
	"parse": true, "parser": true, "syntax": true, "last": true, "first": true, "csrf": true, "xsrf": true, "authenticity": true, "antiforgery": true, "new": false, "user": false,
	"css": true, "color": true, "theme": true,
	// request tokens that only name an attempt or a position: idempotency
	// tokens (AWS IdempotencyToken), WAF's ChangeToken, MongoDB's change
	// stream resumeToken, a state or WebDAV lock token
	"idempotency": true, "change": true, "resume": true, "lock": true,
}

var keyPrevAllow = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "signing": true, "encryption": true,
	"master": true, "client": true, "auth": true, "app": true, "admin": true, "service": true,
	"account": true, "license": true, "webhook": true, "session": true, "subscription": true,
	"storage": true, "shared": true, "sas": true, "hmac": true, "jwt": true, "crypt": true, "cipher": true,
	"aes": true, "decryption": true, "write": true, "read": true, "deploy": true, "ingest": true,
	"ingestion": true, "publish": true, "upload": true, "openai": true, "anthropic": true, "stripe": true, "sendgrid": true, "mailgun": true,
	"gemini": true, "google": true, "groq": true, "mistral": true, "cohere": true, "twilio": true,
	"preshared": true,
}

var keyPrevDeny = map[string]bool{
	"public": true, "pub": true, "primary": true, "foreign": true, "sort": true, "partition": true,
	"cache": true, "idempotency": true, "ssh": true, "gpg": true, "kms": true, "dedup": true, "lookup": true,
	"row": true, "unique": true, "hot": true, "object": true, "map": true, "dict": true, "hash": true,
	"group": true, "routing": true, "shard": true, "join": true, "react": true, "list": true, "i18n": true,
	"translation": true, "storage_": true, "s3": true, "file": true, "path": true, "name": true, "id": true,
	"websocket": true, "socket": true, // Sec-WebSocket-Key: RFC 6455's handshake nonce, sent in the clear
}

var tokenRunPrefix = map[string]bool{"secret": true, "private": true, "personal": true, "session": true, "oauth": true}

// keyPrevWeak: words before "key" that name no thing of their own, so that
// THE_key or this-key is no secret's name even with a random value.
var keyPrevWeak = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true, "my": true, "your": true, "our": true,
	"its": true, "new": true, "old": true, "some": true, "any": true, "each": true, "every": true,
	"cache": true, "etag": true, "commit": true, "build": true, "task": true, "job": true, "node": true,
	"record": true, "table": true, "column": true, "field": true, "index": true, "item": true, "entry": true,
	"msg": true, "message": true, "event": true, "request": true, "trace": true, "span": true, "run": true,
	"test": true, "mock": true, "fake": true, "dummy": true, "sample": true, "example": true, "demo": true,
	"blob": true, "bucket": true, "prefix": true, "suffix": true, "version": true, "content": true,
	"registry": true, "signature": true, "sig": true, "checksum": true, "digest": true, "sha": true, "md5": true,
	"host": true, "rsa": true, "ecdsa": true, "ed25519": true, "dsa": true, "pgp": true, "ssl": true, "tls": true,
	"user": true, "state": true, "store": true, "query": true, "param": true, "config": true, "setting": true,
}

// weakKeyIdent: NAME_key / name-key / nameKEY for a name the lists do not
// know (box-key, beebole_key, azure_search_key): a secret's name only if
// its value is a random key (strongValue), which the caller checks.
func weakKeyIdent(ident string) bool {
	var arr [12]string
	words := trimQualifiers(appendWords(arr[:0], ident))
	if publicKeyName(words) { // longtail.go
		return false
	}
	if len(words) >= 2 && words[len(words)-1] == "salt" && isUpperEnv(ident) {
		return true // AUTH_SALT, NONCE_SALT: wp-config's secret salts (a random value only)
	}
	if len(words) >= 2 && weakLastWords[words[len(words)-1]] && !keyPrevWeak[words[len(words)-2]] {
		return true
	}
	if len(words) < 2 || words[len(words)-1] != "key" {
		return false
	}
	prev := words[len(words)-2]
	return !keyPrevDeny[prev] && !keyPrevWeak[prev] && !isDigit(prev[0])
}

// weakNotPublic: weakKeyIdent(ident) && !publicIdent(ident) (kept by name: weakKeys).
func weakNotPublic(ident string) bool { return weakKeyIdent(ident) && !publicIdent(ident) }

// strongValue: a value that only a generated key looks like: long, letters
// and digits, not a date, a path, a placeholder or one repeated run.
func strongValue(v string) bool {
	if len(v) < 16 || len(v) > 300 || emptyPlaceholder(v) || hasPlaceholderPart(v) || softPlaceholderSet.in(v) {
		return false
	}
	if strings.ContainsAny(v, ":/\\.@") || isEnvName(v) {
		return false // a time, a path, a URL, a host, an address, a name
	}
	c := classOf(v)
	if c.digit == 0 || c.lower+c.upper == 0 || c.digit*10 < len(v) {
		return false
	}
	return entropy(v) >= 3.0
}

// namesAKey: v is an identifier that itself names a key, a token or a
// secret (testRSA2048PrivateKey, decryptionKey1024, hmac_secret_ref): a
// reference to one in code, not its value.
func namesAKey(v string) bool {
	if len(v) == 0 || !isAlpha(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '_' {
			return false
		}
	}
	if !hasSecretNoun(v) {
		return false
	}
	if _, ok := classifyIdent(v); ok {
		return true
	}
	var arr [12]string
	if w := appendWords(arr[:0], v); len(w) > 1 && secretNouns[w[len(w)-1]] {
		return true // hexPKCS8TestPKCS1Key
	}
	return weakKeyIdent(v)
}

// hasSecretNoun: v holds key, token, secret, pass or credential in any
// case (a check without allocation, before splitting v into words).
func hasSecretNoun(v string) bool {
	for i := 0; i+3 <= len(v); i++ {
		c := v[i] | 0x20
		if !secretNounFirst[c] {
			continue // most bytes start none of them
		}
		for _, w := range secretNounWords {
			if c == w[0] && hasFoldAt(v, i, w) {
				return true
			}
		}
	}
	return false
}

var secretNounWords = [...]string{"key", "token", "secret", "pass", "credential"}

// secretNounFirst: the first bytes of secretNounWords.
var secretNounFirst = func() (t [256]bool) {
	for _, w := range secretNounWords {
		t[w[0]] = true
	}
	return
}()

// hasFoldAt: v[i:] starts with the lower-case ASCII word w, in any case.
func hasFoldAt(v string, i int, w string) bool {
	if i+len(w) > len(v) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if v[i+k]|0x20 != w[k] {
			return false
		}
	}
	return true
}

var secretNouns = map[string]bool{"key": true, "token": true, "secret": true, "password": true, "passwd": true, "credential": true, "credentials": true}

// randomBase64: a generated key in base64 (d6Fm…/nN3B…=), which
// strongValue turns down for its '/': letters of both cases and digits,
// nothing but base64, few slashes, none doubled or leading (not a path),
// and the entropy of random bytes.
func randomBase64(v string) bool {
	if len(v) < 20 || len(v) > 300 || v[0] == '/' || strings.Contains(v, "//") {
		return false
	}
	t := strings.TrimRight(v, "=")
	slashes := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '/' {
			slashes++
		} else if !isAlnum(c) && c != '+' {
			return false
		}
	}
	c := classOf(t)
	return slashes*8 <= len(t) && c.upper > 0 && c.lower > 0 && c.digit > 0 && entropy(t) >= 4.0
}

var runTogether = []struct {
	s    string
	kind int
}{{"password", kindPassword}, {"passwd", kindPassword}, {"passphrase", kindPassword},
	{"secret", kindSecret}, {"apikey", kindAPIKey}}

// trailingQualifier: words after a secret's name that say which one it is
// (API_KEY_PROD, apiKeyLive, SECRET_TOKEN_STAGING, SECRET_KEY_BASE,
// password_b64) without making it something else.
var trailingQualifier = map[string]bool{
	"value": true, "b64": true, "base64": true, "plain": true, "plaintext": true, "raw": true, "base": true,
	"prod": true, "production": true, "live": true, "dev": true, "development": true, "staging": true, "stage": true,
	"stg": true, "test": true, "testing": true, "sandbox": true, "local": true, "qa": true, "uat": true, "preprod": true,
	"default": true, "primary": true, "secondary": true, "backup": true, "old": true, "legacy": true, "current": true,
	"v": true, "env": true, "str": true, "string": true, "hex": true, "encoded": true, "b": true,
}

// trimQualifiers drops the words after a secret's name that say which
// one it is or how it is written (MASTER_KEY_B64, API_KEY_PROD, TOKEN_2),
// keeping at least one word: every test of the name reads its last word.
func trimQualifiers(words []string) []string {
	for len(words) > 1 {
		w := words[len(words)-1]
		if !isDigit(w[0]) && !trailingQualifier[w] {
			break
		}
		words = words[:len(words)-1]
	}
	return words
}

// classifyIdent decides whether an identifier names a secret, and which kind.
// The answer depends on the name alone, and a session names the same few
// again and again (DB_PASSWORD, AWS_SECRET_ACCESS_KEY on every line of a
// config): it is kept in identKinds, and a name found there is not cut into
// words again (that was 7 % of the scan of the secrets texts).
func classifyIdent(ident string) (int, bool) {
	k := identKinds.of(ident, func(ident string) identKind {
		kind, ok := classifyIdentWords(ident)
		return identKind{kind, ok}
	})
	return k.kind, k.ok
}

type identKind struct {
	kind int
	ok   bool
}

var (
	identKinds identTable[identKind]
	// weakKeys: weakKeyIdent and not publicIdent, by name (findAssignmentsLate)
	weakKeys identTable[bool]
)

// identTable keeps what a function of a name alone said of the names it
// was asked about: each name has one slot (by its hash), a later name of
// that slot takes it. A slot's entry is replaced whole, never changed:
// the scan's goroutines read it without a lock.
type identTable[T any] struct {
	slots [1024]atomic.Pointer[identEntry[T]]
}

type identEntry[T any] struct {
	ident string
	v     T
}

// maxKeptIdent: longer names are decided each time (a name is a few words).
const maxKeptIdent = 64

var identSeed = maphash.MakeSeed()

// of returns decide(ident), kept or decided now.
func (t *identTable[T]) of(ident string, decide func(string) T) T {
	if len(ident) > maxKeptIdent {
		return decide(ident)
	}
	slot := &t.slots[maphash.String(identSeed, ident)&uint64(len(t.slots)-1)]
	if e := slot.Load(); e != nil && e.ident == ident {
		return e.v
	}
	v := decide(ident)
	slot.Store(&identEntry[T]{strings.Clone(ident), v})
	return v
}

// classifyIdentWords is classifyIdent deciding from the words of the name.
func classifyIdentWords(ident string) (int, bool) {
	var arr [12]string
	words := trimQualifiers(appendWords(arr[:0], ident))
	if len(words) == 0 || publicKeyName(words) || publicWords(words) { // longtail.go, public.go: STRIPE_PUBLISHABLE_KEY, RECAPTCHA_SITE_KEY
		return 0, false
	}
	last := words[len(words)-1]
	prev := ""
	if len(words) >= 2 {
		prev = words[len(words)-2]
	}
	// run-together names: PGPASSWORD, MYSQLPASSWORD, CLIENTSECRET, XAPIKEY
	for _, sfx := range runTogether {
		if len(last) > len(sfx.s)+1 && strings.HasSuffix(last, sfx.s) && !strings.HasPrefix(last, "no") {
			return sfx.kind, true
		}
	}
	// SECRETTOKEN, privatetoken: a run-together name of a token
	if len(last) > 5 && strings.HasSuffix(last, "token") && tokenRunPrefix[last[:len(last)-5]] {
		return kindToken, true
	}
	if last == "token" || last == "key" || last == "secret" {
		for _, w := range words[:len(words)-1] {
			if w == "password" || w == "passwd" {
				return kindPassword, true // DB_PASSWORD_TOKEN: a password, however short
			}
		}
	}
	switch last {
	case "password", "passwd", "passphrase", "pwd", "pass":
		if (last == "pass" || last == "pwd") && prev == "" && !strings.HasPrefix(ident, "-") {
			return 0, false // PASS: (test output), pwd (shell)
		}
		if prev == "forgot" || prev == "reset" || prev == "show" || prev == "toggle" {
			return 0, false
		}
		return kindPassword, true
	case "secret":
		return kindSecret, true
	case "token", "authtoken", "accesstoken", "refreshtoken", "apitoken", "bearertoken":
		if tokenPrefixDeny[prev] {
			return 0, false
		}
		return kindToken, true
	case "auth":
		if prev == "" || prev == "basic" || prev == "http" || prev == "proxy" || prev == "npm" || prev == "registry" {
			return kindToken, true
		}
		return 0, false
	case "apikey", "secretkey", "accesskey", "signingkey", "masterkey":
		return kindAPIKey, true
	case "crumb":
		if prev == "jenkins" {
			return kindToken, true // Jenkins-Crumb: the CSRF token of a Jenkins session
		}
	case "privatekey", "credential", "credentials":
		return kindSecret, true
	case "key":
		if keyPrevAllow[prev] {
			if prev == "private" || prev == "secret" {
				return kindSecret, true
			}
			return kindAPIKey, true
		}
		if prev != "" && !keyPrevDeny[prev] && isUpperEnv(ident) {
			return kindAPIKey, true
		}
	}
	return 0, false
}

func isUpperEnv(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isUpper(c) || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

// findAssignments is the generic rule: a value assigned to a name that
// names a secret.
func findAssignments(text string, hits []hit, emit func(s, e int, id string)) {
	findAssignmentsLate(text, hits, emit, func(st, en int, a lateAssignment) {
		if a.stands(text, st, en) {
			emit(st, en, a.id())
		}
	})
}

// lateAssignment is what the generic rule's last test of a value,
// text[s:e], needs (lateAssignment.stands): Scan leaves it to resolve,
// which runs it only on a candidate that no finding already taken
// overlaps. On the secrets bench five in six of the rule's candidates are
// the values of provider keys (GITHUB_TOKEN=ghp_…) that the provider's
// rule reports: their tests were a sixth of the scan. A candidate that
// fails the test is as if it had never been emitted: resolve takes a
// candidate only when it overlaps none taken, so one never taken changes
// nothing for the others.
type lateAssignment struct {
	l, r      int32 // the identifier, text[l:r]
	kind      int8
	quoted    bool
	plausible bool // plausibleValue is known to be true
}

func (a lateAssignment) id() string { return assignmentIDs[a.kind] }

// stands is the generic rule's last test of the value text[s:e] of the
// identifier text[a.l:a.r].
func (a lateAssignment) stands(text string, s, e int) bool {
	v, kind := text[s:e], int(a.kind)
	if kind != kindPassword && namesAKey(v) {
		return false // PrivateKey: testRSA2048PrivateKey, "decryptionKey": "decryptionKey1024"
	}
	l, r := int(a.l), int(a.r)
	if !a.plausible && !plausibleValue(judgedInQuotes(v, a.quoted), kind, a.quoted) &&
		!(kind == kindPassword && (envPassword(text, l, r, text[l:r], v, a.quoted) || propertiesPassword(text, l, r, text[l:r], v, a.quoted) || connStringPassword(text, l, s, e))) {
		return false
	}
	return !publicByContext(text, l, r, s, e)
}

// findAssignmentsLate: findAssignments, with the last test of each value
// left to later (lateAssignment).
func findAssignmentsLate(text string, hits []hit, emit func(s, e int, id string), later func(s, e int, a lateAssignment)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		l := p
		for l > 0 && isIdentByte(text[l-1]) {
			l--
		}
		r := p + int(h.alen)
		for r > p && !isIdentByte(text[r-1]) {
			r-- // an anchor ending in its separator (Key:, Key=)
		}
		for r < len(text) && isIdentByte(text[r]) {
			r++
		}
		lastEnd = r
		// strip trailing dots (prose) from the identifier
		for r > l && text[r-1] == '.' {
			r--
		}
		// $name: a variable being used is not followed by a separator, so
		// parseValue finds nothing; "$DB_PASSWORD": "…" and $x = … are kept
		if h.alen == 5 && text[p] == ' ' {
			// "<name> key <value>": a key named in prose or a log line
			// (clarifai access key dkHL…, campayn key 9f3c…)
			if pk, ps, pe := proseKey(text, p); ps > 0 {
				emit(ps, pe, assignmentIDs[pk])
				lastEnd = pe
			}
			continue
		}
		ident := text[l:r]
		if arnResource(text, l) || encryptedDataKey(text, l) { // public.go: arn:…:secret:NAME, a SealedSecret's encryptedData
			continue
		}
		if l >= 2 && text[l-2] == '$' && text[l-1] == '{' && r < len(text) && (text[r] == '?' || strings.HasPrefix(text[r:], ":?")) {
			continue // ${DB_PASSWORD:?missing}: the shell's error message
		}
		kind, ok := classifyIdent(ident)
		if !ok && shortPasswordName(text, l, r, ident) {
			kind, ok = kindPassword, true
		}
		weak := false
		if !ok && weakKeys.of(ident, weakNotPublic) { // public.go: RECAPTCHA_SITE_KEY, ALGOLIA_SEARCH_API_KEY
			kind, ok, weak = kindAPIKey, true, true
		}
		if !ok {
			// dd-apikey-<key>, datadog-secrettoken-<key>: the value glued on with a dash
			if k, ge := gluedValue(text, p+int(h.alen), r); k > 0 {
				if kd, ok2 := classifyIdent(text[l:k]); ok2 && plausibleValue(text[k+1:ge], kd, true) {
					emit(k+1, ge, assignmentIDs[kd])
				}
			}
			continue
		}
		s, e, quoted, prose := parseValue(text, l, r, ident, kind)
		plausible := false // plausibleValue of text[s:e] is known to be true
		if !weak && (s < 0 || !prose) {
			// name: DB_PASSWORD / value: … (a secret named in one field,
			// its value in the next; parseValue took nothing, or the next
			// field's name: "DB_PASSWORD", "value"). Looked for first: most
			// names are in no such pair, and the value's own test can
			// then wait (lateAssignment).
			ns, ne, nq := nameValuePair(text, l, r)
			if ns < 0 {
				ns, ne, nq = hclVariableDefault(text, l, r)
			}
			if ns >= 0 {
				if s >= 0 && plausibleValue(judgedInQuotes(text[s:e], quoted), kind, quoted) {
					plausible = true
				} else {
					if plausibleValue(judgedInQuotes(text[ns:ne], nq), kind, nq) {
						emit(ns, ne, assignmentIDs[kind])
					}
					continue
				}
			}
		}
		if s < 0 {
			// APP_TOKEN 9f3c…, clarifai SECRET dkHL…: a random key after a blank
			if s, e = spacedValue(text, r); s < 0 || kind != kindPassword && namesAKey(text[s:e]) || !plausibleValue(text[s:e], kind, true) {
				continue
			}
			emit(s, e, assignmentIDs[kind])
			continue
		}
		if prose && !plausibleProse(text[s:e]) {
			continue
		}
		v := text[s:e]
		if weak && (!strongValue(v) && !randomBase64(v) || signatureDigest(v)) { // signatureDigest: general7.go
			continue
		}
		later(s, e, lateAssignment{l: int32(l), r: int32(r), kind: int8(kind), quoted: quoted, plausible: plausible})
	}
}

// nameFields and valueFields name the two fields of a name/value pair:
// Kubernetes and ECS env entries ({name, value}), Postman and config
// lists ({key, value}), CloudFormation parameters (ParameterKey,
// ParameterValue), Terraform's helm set blocks, aws ssm put-parameter
// (--name, --value).
var nameFields = map[string]bool{"name": true, "key": true, "parameterkey": true, "--name": true, "-name": true}
var valueFields = map[string]bool{"value": true, "parametervalue": true, "--value": true, "-value": true}

// nameValuePair: the identifier text[l:r] (within a value such as
// /prod/api/token) is the value of a name field, and the next field,
// within 100 bytes and one line break, is a value field: it returns the
// value of that field, or -1.
func nameValuePair(text string, l, r int) (int, int, bool) {
	// the whole value the identifier sits in
	a := l
	for a > 0 && l-a < 120 && !isSpace(text[a-1]) && strings.IndexByte("\"'`=:,{[(", text[a-1]) < 0 {
		a--
	}
	// back: [quote] blanks separator blanks [quote] FIELD
	i := a
	if i > 0 && (text[i-1] == '"' || text[i-1] == '\'') {
		i--
	}
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	flag := false
	switch {
	case j > 0 && (text[j-1] == ':' || text[j-1] == '='):
		j--
		for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
	case j < i:
		flag = true // --name VALUE
	default:
		return -1, -1, false
	}
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
	}
	f := j
	for f > 0 && j-f < 20 && (isAlnum(text[f-1]) || text[f-1] == '-' || text[f-1] == '_') {
		f--
	}
	name := lowerASCII(text[f:j])
	if !nameFields[name] || flag != strings.HasPrefix(name, "-") {
		return -1, -1, false
	}
	if f > 0 && (isAlnum(text[f-1]) || text[f-1] == '_') {
		return -1, -1, false
	}
	// forward: past the closing quote, separators and at most one line
	// break, the value field (the end of the value the identifier sits in
	// is looked for only now: the name field before it is seldom there,
	// and the walk over a key's value, 120 bytes, was most of this test)
	b := r
	for b < len(text) && b-r < 120 && !isSpace(text[b]) && strings.IndexByte("\"'`,}])", text[b]) < 0 {
		b++
	}
	k := b
	if k < len(text) && (text[k] == '"' || text[k] == '\'') {
		k++
	}
	lines := 0
	for k < len(text) && k-b < 100 && (isSpace(text[k]) || text[k] == ',' || text[k] == '"' || text[k] == '\'') {
		if text[k] == '\n' {
			lines++
			if lines > 1 {
				return -1, -1, false
			}
		}
		if text[k] == '"' || text[k] == '\'' {
			if k+1 < len(text) && isAlpha(text[k+1]) {
				k++
				break
			}
			return -1, -1, false
		}
		k++
	}
	vl := k
	for k < len(text) && k-vl < 20 && (isAlnum(text[k]) || text[k] == '-') {
		k++
	}
	var fbuf [20]byte // the field's name lower-cased, to look up
	if !valueFields[lowerASCIIIn(fbuf[:], text[vl:k])] {
		return -1, -1, false
	}
	s, e, quoted, prose := parseValue(text, vl, k, text[vl:k], kindSecret)
	if s < 0 || prose {
		return -1, -1, false
	}
	return s, e, quoted
}

// proseKey: the word before " key " at p names the key (access key, api
// key, campayn key) and a random key follows on the same line.
func proseKey(text string, p int) (int, int, int) {
	a := p
	for a > 0 && isAlnum(text[a-1]) {
		a--
	}
	if a == p || p-a > 40 {
		return 0, -1, -1
	}
	name := text[a:p] + "_key"
	kind, ok := classifyIdent(name)
	if !ok && !weakKeyIdent(name) {
		return 0, -1, -1
	}
	s, e := spacedValue(text, p+4)
	if s < 0 || !ok && (chain.IsUUID(text[s:e]) || !strongValue(text[s:e])) || !plausibleValue(text[s:e], kindAPIKey, true) {
		return 0, -1, -1
	}
	if !ok {
		kind = kindAPIKey
	}
	return kind, s, e
}

// gluedValue: in the identifier text[..r], a dash after the keyword that
// ends at ke, followed by a random key up to r (dd-apikey-dd52c2…). It
// returns the dash's index and the key's end, or 0.
func gluedValue(text string, ke, r int) (int, int) {
	for k := ke; k < r; k++ {
		if text[k] == '-' {
			if v := text[k+1 : r]; len(v) >= 20 && !strings.ContainsAny(v, "-.") && strongValue(v) && entropy(v) >= 3.3 {
				return k, r
			}
			return 0, 0
		}
		if !isAlnum(text[k]) && text[k] != '_' {
			return 0, 0
		}
	}
	return 0, 0
}

// spacedValue: the identifier at text[..r] is followed by blanks and a
// random key on the same line (no separator: "bugsnag secret <uuid>",
// "API_TOKEN 9f3c…"); it returns the key's span, or -1.
func spacedValue(text string, r int) (int, int) {
	j := skipBlanks(text, r)
	if j == r || j >= len(text) || j-r > 8 {
		return -1, -1
	}
	k := j
	for k < len(text) && (isTokenByte(text[k]) || text[k] == '+' || text[k] == '/' || text[k] == '=') {
		k++
	}
	if k < len(text) && !(isSpace(text[k]) || strings.IndexByte("\"'`,;)]}", text[k]) >= 0) {
		return -1, -1
	}
	v := text[j:k]
	if chain.IsUUID(v) {
		return j, k
	}
	// a dash or a second underscore joins words: a resource's name
	// (secret my-app-5f4dcc3b, default-token-7xk2p), not a key
	if strings.IndexByte(v, '-') >= 0 || strings.Count(v, "_") > 1 {
		return -1, -1
	}
	if strongValue(v) && entropy(v) >= 3.3 {
		return j, k
	}
	return -1, -1
}

// connStringPassword: ;Password=#gets0m3; in a connection string, where a
// leading # or ! is part of the password, not a comment or a tag.
func connStringPassword(text string, l, s, e int) bool {
	if l == 0 || text[l-1] != ';' || e >= len(text) || text[e] != ';' || e-s < 7 {
		return false
	}
	return strings.IndexByte("#!*&@~", text[s]) >= 0 && plausibleValue(text[s+1:e], kindPassword, true)
}

// envPassword: an UPPER_CASE env name assigned a lower-case word with "="
// (REACT_APP_AUTH_PASSWORD=whiteduke): an .env file's password, though a
// word alone is no password elsewhere.
func envPassword(text string, l, r int, ident, v string, quoted bool) bool {
	if quoted || r >= len(text) || text[r] != '=' || !isUpperEnv(ident) {
		return false
	}
	return wordPassword(v)
}

// wordPassword: a lower-case word of 6 to 64 letters that is no
// placeholder and names no password (envPassword, propertiesPassword).
func wordPassword(v string) bool {
	if len(v) < 6 || len(v) > 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isLower(v[i]) {
			return false
		}
	}
	return !isPlaceholderWord(v) && !strings.Contains(v, "pass") && !strings.Contains(v, "secret")
}

// shortPasswordName: a bare "pwd" or "pass" names a password when a value
// is assigned to it right away (Uid=sa;Pwd=…; in a connection string,
// pass=… in an INI file) or when it is an XML element (<Pass>…</Pass>);
// not "pwd" the shell command or "PASS: TestX" in test output.
func shortPasswordName(text string, l, r int, ident string) bool {
	if !isFold(ident, "pwd") && !isFold(ident, "pass") && !isFold(ident, "passw") {
		return false
	}
	if l > 0 && text[l-1] == '<' {
		return true
	}
	if r < len(text) && text[r] == '=' && (r+1 >= len(text) || text[r+1] != '=') {
		return true
	}
	// pwd = … / pwd: … opening a config line
	j := skipBlanks(text, r)
	return atLineStart(text, l) && j < len(text) && (j > r && text[j] == '=' || text[j] == ':') && (j+1 >= len(text) || text[j+1] != '=')
}

func skipBlanks(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// atLineStart: only blanks (and an "export ") stand between the start of
// the line and text[l]: an env, INI, YAML or properties line, where an
// unquoted value runs to the end of the line.
func atLineStart(text string, l int) bool {
	i := l
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i >= 7 && text[i-7:i] == "export " {
		i -= 7
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
			i--
		}
	}
	return i == 0 || text[i-1] == '\n'
}

// quoteAfterComma: rest is a comma, blanks and an opening quote.
func quoteAfterComma(rest string) bool {
	k := skipBlanks(rest, 1)
	return k < len(rest) && (rest[k] == '"' || rest[k] == '\'')
}

// typeThenAssign: text[j:] is a type name, a blank, then "=" (Go "token string = …",
// TypeScript/Kotlin "token: string = …"); it returns the index after "=".
func typeThenAssign(text string, j int) int {
	if strings.HasPrefix(text[j:], "&'static ") {
		j += len("&'static ") // Rust: const API_KEY: &'static str = …
	} else if j < len(text) && text[j] == '&' {
		j++ // const API_KEY: &str = …
	}
	k := j
	for k < len(text) && (isIdentByte(text[k]) || text[k] == '[' || text[k] == ']' || text[k] == '<' || text[k] == '>' || text[k] == '*') && k-j < 40 {
		k++
	}
	if k == j || !(isLower(text[j]) || isUpper(text[j]) || text[j] == '*' || text[j] == '[') {
		return -1
	}
	b := skipBlanks(text, k)
	if b > k && b < len(text) && text[b] == '=' && (b+1 >= len(text) || text[b+1] != '=') {
		return b + 1
	}
	return -1
}

// valueStops[valueStopsOf(lineMode, comma, query)] holds the bytes at
// which parseValue's unquoted value may end: a blank or a quote always; ,
// ; ) } ] but in a line's value; the separator ',' of CSV; & and # in a
// URL's query; a backslash, which ends it before the letter of an escape
// (\n, \"). One lookup a byte: the value's walk, eight tests a byte, was
// most of parseValue's time (5 % of the scan of the secrets bench).
var valueStops = func() (t [8][256]bool) {
	for f := range t {
		lineMode, comma, query := f&1 != 0, f&2 != 0, f&4 != 0
		for c := 0; c < 256; c++ {
			b := byte(c)
			t[f][c] = isSpace(b) || b == '"' || b == '\'' || b == '`' || b == '\\' ||
				!lineMode && (b == ',' || b == ';' || b == ')' || b == '}' || b == ']') ||
				comma && b == ',' || query && (b == '&' || b == '#')
		}
	}
	return
}()

func valueStopsOf(lineMode, comma, query bool) int {
	f := 0
	if lineMode {
		f |= 1
	}
	if comma {
		f |= 2
	}
	if query {
		f |= 4
	}
	return f
}

// parseValue finds the value assigned to the identifier text[l:r]. It
// returns s=-1 when there is no assignment. The shapes: KEY=value,
// KEY: value, KEY := / ::= / :::= / ?= / += / .= / => value, typed
// declarations, "key": "value", <key>value</key>, key="Password"
// value="…", YAML block scalars (key: |), CSV (key,value,), --flag value
// and "the password is X".
func parseValue(text string, l, r int, ident string, kind int) (s, e int, quoted, prose bool) {
	i := r
	// <apiToken>value</apiToken>, <Pass encoding="base64">value</Pass>
	if l > 0 && text[l-1] == '<' && i < len(text) && text[i] == ' ' {
		if k := strings.IndexByte(text[i:], '>'); k > 0 && k < 120 && !strings.ContainsAny(text[i:i+k], "<\n") && text[i+k-1] != '/' {
			i += k
		}
	}
	if l > 0 && text[l-1] == '<' && i < len(text) && text[i] == '>' {
		k := strings.IndexByte(text[i+1:], '<')
		if k >= 0 && k <= 600 && hasPrefixFold(text[i+1+k:], "<value>") && strings.TrimSpace(text[i+1:i+1+k]) == "" {
			return elementText(text, i+1+k+len("<value>")) // <Password><Value>…</Value> (general6.go)
		}
		return elementText(text, i+1)
	}
	identQuoted := false
	if ql := l; ql > 0 {
		if text[ql-1] == '$' && ql > 1 {
			ql-- // "$DB_PASSWORD": …
		}
		q := text[ql-1]
		if (q == '"' || q == '\'') && i < len(text) && text[i] == q {
			i++
			identQuoted = true
		} else if q == '"' && ql > 1 && text[ql-2] == '\\' && strings.HasPrefix(text[i:], `\"`) {
			i += 2
			identQuoted = true
		}
	}
	if i < len(text) && text[i] == ']' {
		i++
	}
	j := skipBlanks(text, i)
	rest := text[j:]
	prose = false
	flag := strings.HasPrefix(ident, "-")
	lineMode := atLineStart(text, l)
	sep := ""
	switch {
	case identQuoted && (strings.HasPrefix(rest, "value=") || strings.HasPrefix(rest, "value =")):
		// <add key="Password" value="…" />
		j += strings.IndexByte(rest, '=') + 1
		sep = "="
	case identQuoted && j == i && strings.HasPrefix(rest, ">") && namedByAttribute(text, l):
		// <property name="db.password">…</property> (general6.go)
		return elementText(text, j+1)
	case strings.HasPrefix(rest, ":::="):
		j += 4
	case strings.HasPrefix(rest, "::="):
		j += 3
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"), strings.HasPrefix(rest, "?="),
		strings.HasPrefix(rest, "+="), strings.HasPrefix(rest, ".="):
		j += 2
	case strings.HasPrefix(rest, "=="), strings.HasPrefix(rest, "=~"), strings.HasPrefix(rest, "::"):
		return -1, -1, false, false
	case strings.HasPrefix(rest, "="):
		j++
	case strings.HasPrefix(rest, ":"):
		j++
		sep = ":"
	case identQuoted && strings.HasPrefix(rest, ",") && quoteAfterComma(rest):
		// a call given the name, then the value: define('AUTH_KEY', '…'),
		// setenv("API_TOKEN", "…"), System.setProperty("db.password", "…")
		j++
	case j == i && strings.HasPrefix(rest, ",") && len(rest) > 1 && !isSpace(rest[1]):
		// CSV: apiToken,value,
		j++
		sep = ","
	case flag && j > i && !strings.HasPrefix(ident, "--no-"):
		// --password value
	case j > i && strings.HasPrefix(rest, "is "):
		j += 3
		prose = true
	case j > i:
		// var apiToken string = "…"
		if k := typeThenAssign(text, j); k > 0 {
			j = k
			break
		}
		return -1, -1, false, false
	default:
		return -1, -1, false, false
	}
	j = skipBlanks(text, j)
	if j >= len(text) {
		return -1, -1, false, false
	}
	if sep == ":" {
		if k := typeThenAssign(text, j); k > 0 {
			j = skipBlanks(text, k)
		} else if text[j] == '|' || text[j] == '>' {
			// YAML block scalar: the value is the next line
			k := j + 1
			for k < len(text) && (text[k] == '-' || text[k] == '+' || isDigit(text[k]) || text[k] == ' ') {
				k++
			}
			if k >= len(text) || text[k] != '\n' {
				return -1, -1, false, false
			}
			k++
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			a := k
			for k < len(text) && text[k] != '\n' && text[k] != '\r' {
				k++
			}
			b := k
			for b > a && isSpace(text[b-1]) {
				b--
			}
			if a == b {
				return -1, -1, false, false
			}
			return a, b, true, false
		}
	}
	if j >= len(text) {
		return -1, -1, false, false
	}
	query := l > 0 && (text[l-1] == '?' || text[l-1] == '&')
	// quoted value
	if strings.HasPrefix(text[j:], `\"`) {
		k := strings.Index(text[j+2:], `\"`)
		if k < 0 || k > 512 {
			return -1, -1, false, false
		}
		return j + 2, j + 2 + k, true, false
	}
	switch q := text[j]; q {
	case '"', '\'', '`':
		k := j + 1
		for k < len(text) && k-j < 520 {
			c := text[k]
			if c == '\n' {
				return -1, -1, false, false
			}
			if c == '\\' {
				k += 2
				continue
			}
			if c == q {
				return j + 1, k, true, false
			}
			k++
		}
		return -1, -1, false, false
	}
	k := j
	stop := &valueStops[valueStopsOf(lineMode, sep == ",", query)]
	for k < len(text) && k-j < 520 {
		c := text[k]
		if stop[c] {
			if c != '\\' {
				break
			}
			if k+1 < len(text) && strings.IndexByte(`ntr"'\`, text[k+1]) >= 0 {
				break
			}
		}
		k++
	}
	if lineMode && k > j && (text[k-1] == ';' || text[k-1] == ',') {
		k--
	}
	if prose {
		for k > j && strings.IndexByte(".:!?", text[k-1]) >= 0 {
			k--
		}
	}
	if k == j {
		return -1, -1, false, false
	}
	return j, k, false, prose
}

// URL credentials: scheme://user:password@host. Only the password is reported.

var schemeIDs = map[string]string{
	"postgres": "postgres-url-password", "postgresql": "postgres-url-password",
	"mysql": "mysql-url-password", "mariadb": "mysql-url-password", "mysql+pymysql": "mysql-url-password",
	"mongodb": "mongodb-url-password", "mongodb+srv": "mongodb-url-password",
	"redis": "redis-url-password", "rediss": "redis-url-password",
	"amqp": "amqp-url-password", "amqps": "amqp-url-password",
	"ftp": "ftp-url-password", "sftp": "ftp-url-password", "ftps": "ftp-url-password",
	"postgresql+psycopg2": "postgres-url-password", "postgresql+asyncpg": "postgres-url-password",
}

var urlRuleIDs = []string{
	"postgres-url-password", "mysql-url-password", "mongodb-url-password", "redis-url-password",
	"amqp-url-password", "ftp-url-password", "url-password",
}

// urlSecretMarkers: a URL path segment whose last word says the next
// segments hold a secret: webhooks (/hooks/T, /webhooks/ID/TOKEN,
// /build_hooks/ID, /IncomingWebhook/KEY), triggers, keys and tokens.
var urlSecretMarkers = map[string]bool{
	"hook": true, "hooks": true, "webhook": true, "webhooks": true, "incomingwebhook": true, "webhookb2": true,
	"trigger": true, "triggers": true, "key": true, "keys": true, "token": true, "tokens": true, "secret": true, "secrets": true,
}

// urlSecretParams: query parameters that carry a key or a signature
// without a name the keyword rules know: ?key= (Google APIs), ?code=
// (Azure Functions keys, OAuth codes), ?sig= / ?signature= and the
// X-Amz-/X-Goog- signatures of presigned URLs.
var urlSecretParams = map[string]bool{
	"key": true, "code": true, "sig": true, "signature": true, "x-amz-signature": true, "x-goog-signature": true,
}

func isURLEnd(c byte) bool {
	return isSpace(c) || strings.IndexByte("\"'`<>\\|)]}", c) >= 0
}

// urlPathSecrets reports the random segments of a URL's path that follow
// a marker segment (urlSecretMarkers, up to three segments on) and the
// values of its secret query parameters (urlSecretParams); k is the end
// of the URL's authority. A segment or value counts when it looks like a
// generated key (strongValue), not a UUID or a number.
func urlPathSecrets(text string, k int, emit func(s, e int, id string)) {
	after := 0 // segments left after a marker
	i := k
	for i < len(text) && i-k < 2000 && text[i] == '/' {
		a := i + 1
		b := a
		for b < len(text) && text[b] != '/' && text[b] != '?' && text[b] != '#' && !isURLEnd(text[b]) {
			b++
		}
		seg := text[a:b]
		if after > 0 && len(seg) >= 16 && !chain.IsUUID(seg) && strongValue(seg) {
			emit(a, b, "url-secret")
		}
		after--
		var arr [8]string
		if w := appendWords(arr[:0], seg); len(w) > 0 && len(seg) < 40 && urlSecretMarkers[w[len(w)-1]] {
			after = 3
		}
		i = b
	}
	if i >= len(text) || text[i] != '?' {
		return
	}
	for i < len(text) && (text[i] == '?' || text[i] == '&') && i-k < 4000 {
		a := i + 1
		eq := a
		for eq < len(text) && text[eq] != '=' && text[eq] != '&' && !isURLEnd(text[eq]) && eq-a < 40 {
			eq++
		}
		if eq >= len(text) || text[eq] != '=' {
			return
		}
		b := eq + 1
		for b < len(text) && text[b] != '&' && text[b] != '#' && !isURLEnd(text[b]) {
			b++
		}
		var pbuf [32]byte // the parameter's name lower-cased, to look up
		if urlSecretParams[lowerASCIIIn(pbuf[:], text[a:eq])] {
			if v := text[eq+1 : b]; len(v) >= 16 && !chain.IsUUID(v) && strongValue(strings.TrimSuffix(v, "%3D")) {
				emit(eq+1, b, "url-secret")
			}
		}
		i = b
	}
}

func isSchemeByte(c byte) bool { return isAlnum(c) || c == '+' || c == '.' || c == '-' }

func findURLCreds(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		b := p
		for b > 0 && p-b < 32 && isSchemeByte(text[b-1]) {
			b--
		}
		if b == p {
			continue
		}
		scheme := strings.ToLower(text[b:p])
		j := p + 3
		k := authorityEnd(text, j)
		auth := text[j:k]
		at := strings.LastIndexByte(auth, '@')
		if at < 0 || at == len(auth)-1 {
			continue
		}
		host := auth[at+1:]
		if !(isAlnum(host[0]) || host[0] == '[') {
			continue
		}
		ui := auth[:at]
		c := strings.IndexByte(ui, ':')
		if c < 0 {
			continue
		}
		user, pass := ui[:c], ui[c+1:]
		if !plausibleURLPassword(user, pass) {
			continue
		}
		id := schemeIDs[scheme]
		if id == "" {
			id = "url-password"
		}
		emit(j+c+1, j+at, id)
	}
}

// authorityEnd: the end of a URL's authority starting at j.
func authorityEnd(text string, j int) int {
	k := j
	for k < len(text) && k-j < 512 {
		c := text[k]
		if c == '/' || c == '?' || c == '#' || isSpace(c) || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>' || c == '\\' || c == ',' {
			break
		}
		k++
	}
	return k
}

// findURLSecrets reports the secrets in the path and query of every URL
// (urlPathSecrets); a rule of its own, below the vendors' URL rules.
func findURLSecrets(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		if p == 0 || !isSchemeByte(text[p-1]) {
			continue
		}
		urlPathSecrets(text, authorityEnd(text, p+3), emit)
	}
}

func plausibleURLPassword(user, pass string) bool {
	escaped := false // RFC 3986: a password's reserved characters are written %XX
	if strings.IndexByte(pass, '%') >= 0 {
		if d := percentDecoded(pass); d != pass {
			pass, escaped = d, pass[0] == '%'
		}
	}
	if len(pass) < 4 || len(pass) > 256 || pass == user {
		return false
	}
	if isPlaceholderWord(pass) {
		return false
	}
	switch pass[0] {
	case '$', '{', '<', '[', '*', '%':
		if !escaped || strings.HasPrefix(pass, "${") || strings.HasPrefix(pass, "{{") {
			return false // $PASS, %s; not %24 (a $ the password holds)
		}
	}
	for _, p := range []string{"${", "{{", "<", ">", "***", "xxx", "XXX", "...", "…", "your", "YOUR", "example", "EXAMPLE", "placeholder", "changeme", "CHANGEME", "redacted", "REDACTED", "$(", "%s", "password", "PASSWORD", "secret", "SECRET"} {
		if strings.Contains(pass, p) {
			return false
		}
	}
	c := classOf(pass)
	if c.lower+c.upper+c.other == 0 && len(pass) <= 5 {
		return false // a port
	}
	return true
}

// judgedInQuotes is a value as the checks judge it: in a value between
// quotes a lone '>' (no '<' in it) is a character of the secret like any
// other punctuation, not the end of a <placeholder> opened before the value
// (curl -u <user:pass>), so it is judged as '!' would be.
func judgedInQuotes(v string, quoted bool) string {
	if quoted && strings.IndexByte(v, '>') >= 0 && strings.IndexByte(v, '<') < 0 {
		return strings.ReplaceAll(v, ">", "!")
	}
	return v
}
