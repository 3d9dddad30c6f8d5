package redact

import (
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Keyword-context rules: KEY=value, "key": "value", key: value, --flag value,
// "the password is X", and credentials in URLs. Written as code rather than
// regexps: they run on every keyword hit, and the parsing is easier to keep
// precise by hand.

var assignmentKeywords = []string{
	"pass", "pwd", "secret", "token", "auth", "credential", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "_key", "-key", "presharedkey", " key ", "crumb",
}

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

var tokenPrefixDeny = map[string]bool{
	"next": true, "page": true, "pagination": true, "continuation": true, "cursor": true, "cancel": true,
	"cancellation": true, "sync": true, "eos": true, "bos": true, "pad": true, "unk": true, "sep": true,
	"cls": true, "mask": true, "special": true, "start": true, "end": true, "stop": true, "max": true,
	"min": true, "num": true, "total": true, "count": true, "input": true, "output": true, "prompt": true,
	"completion": true, "cache": true, "thinking": true, "reasoning": true, "design": true, "lexer": true,
	"parse": true, "parser": true, "syntax": true, "last": true, "first": true, "new": false, "user": false,
	"css": true, "color": true, "theme": true,
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
	words := appendWords(arr[:0], ident)
	if len(words) < 2 || words[len(words)-1] != "key" {
		return false
	}
	prev := words[len(words)-2]
	return !keyPrevDeny[prev] && !keyPrevWeak[prev] && !isDigit(prev[0])
}

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

var runTogether = []struct {
	s    string
	kind int
}{{"password", kindPassword}, {"passwd", kindPassword}, {"passphrase", kindPassword},
	{"secret", kindSecret}, {"apikey", kindAPIKey}}

// classifyIdent decides whether an identifier names a secret, and which kind.
func classifyIdent(ident string) (int, bool) {
	var arr [12]string
	words := appendWords(arr[:0], ident)
	for len(words) > 1 {
		w := words[len(words)-1]
		if isDigit(w[0]) || w == "value" || w == "b64" || w == "base64" || w == "plain" || w == "plaintext" || w == "raw" || w == "base" {
			words = words[:len(words)-1]
			continue
		}
		break
	}
	if len(words) == 0 {
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

func findAssignments(text string, hits []hit, emit func(s, e int, id string)) {
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
		kind, ok := classifyIdent(ident)
		if !ok && shortPasswordName(text, l, r, ident) {
			kind, ok = kindPassword, true
		}
		weak := false
		if !ok && weakKeyIdent(ident) {
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
		if s < 0 {
			// APP_TOKEN 9f3c…, clarifai SECRET dkHL…: a random key after a blank
			if s, e = spacedValue(text, r); s < 0 || !plausibleValue(text[s:e], kind, true) {
				continue
			}
			emit(s, e, assignmentIDs[kind])
			continue
		}
		if prose && !plausibleProse(text[s:e]) {
			continue
		}
		v := text[s:e]
		if weak && !strongValue(v) {
			continue
		}
		if plausibleValue(v, kind, quoted) || kind == kindPassword && (envPassword(text, l, r, ident, v, quoted) || connStringPassword(text, l, s, e)) {
			emit(s, e, assignmentIDs[kind])
		}
	}
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
	if quoted || r >= len(text) || text[r] != '=' || !isUpperEnv(ident) || len(v) < 6 || len(v) > 64 {
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
	w := strings.ToLower(ident)
	if w != "pwd" && w != "pass" && w != "passw" {
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

// typeThenAssign: text[j:] is a type name, a blank, then "=" (Go "token string = …",
// TypeScript/Kotlin "token: string = …"); it returns the index after "=".
func typeThenAssign(text string, j int) int {
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
		if k < 0 || k > 600 || !strings.HasPrefix(text[i+1+k:], "</") {
			return -1, -1, false, false
		}
		a, b := i+1, i+1+k
		for a < b && isSpace(text[a]) {
			a++
		}
		for b > a && isSpace(text[b-1]) {
			b--
		}
		if a == b {
			return -1, -1, false, false
		}
		return a, b, true, false
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
	for k < len(text) && k-j < 520 {
		c := text[k]
		if isSpace(c) || c == '"' || c == '\'' || c == '`' {
			break
		}
		if !lineMode && (c == ',' || c == ';' || c == ')' || c == '}' || c == ']') {
			break
		}
		if sep == "," && c == ',' {
			break
		}
		if c == '\\' && k+1 < len(text) && strings.IndexByte(`ntr"'\`, text[k+1]) >= 0 {
			break
		}
		if query && (c == '&' || c == '#') {
			break
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
		k := j
		for k < len(text) && k-j < 512 {
			c := text[k]
			if c == '/' || c == '?' || c == '#' || isSpace(c) || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>' || c == '\\' || c == ',' {
				break
			}
			k++
		}
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

func plausibleURLPassword(user, pass string) bool {
	if len(pass) < 4 || len(pass) > 256 || pass == user {
		return false
	}
	if placeholderWords[strings.ToLower(pass)] {
		return false
	}
	switch pass[0] {
	case '$', '{', '<', '[', '*', '%':
		return false
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
