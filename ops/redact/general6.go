package redact

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Rules that generalize, sixth round (issue 31): the families the second
// blind set found weakest, each written as one principle rather than one
// pattern per example (dev set testdata/dev-general6.txt):
//
//   - names the keyword rules did not reach: camelCase …Key names written
//     `signingKey = "…"` or `"encryptionKey": "…"`, and the directives
//     of config files whose value is a password without the word
//     (requirepass, masterauth, bindpw, rootpw, psk, *_pw), also written
//     `DIRECTIVE value` with a blank (findPasswordDirectives);
//   - session cookies by the name their framework gives them (Django,
//     Express, PHP, Java, ASP.NET, Rails, Laravel, NextAuth…), wherever
//     the cookie is written: a header, curl -b, document.cookie, a dict
//     (findSessionCookies); ASP.NET Core's data-protection payload (CfDJ8…);
//   - the OAuth parameters that carry a credential under a name that says
//     "code" or a protocol word rather than "secret" (RFC 8628's
//     device_code, RFC 7636's code_verifier, RFC 7523's client_assertion,
//     SAML's SAMLResponse, an authorization code in a callback's query)
//     (findOAuthParams);
//   - credentials passed to a call whose signature is (user, password):
//     login("u", "p"), auth=("u", "p"), HTTPBasicAuth, getConnection(url,
//     u, p), PasswordAuthentication (findCredentialCalls);
//   - a password named in prose in other languages than English (le mot de
//     passe est …, das Passwort lautet …, パスワードは …), and English prose
//     that sets one (password to …, api key is …) (findProsePasswords);
//   - hash forms beyond crypt(3)'s: WordPress 6.8's $wp$ bcrypt, Cisco's
//     type 7 (reversible) passwords.
//
// Hooked into the core by builtinRules (rules.go); every rule is gated by
// literal anchors, so a string without one costs nothing more.
func generalRules() []*Rule {
	return []*Rule{
		// camelCase names ending in Key before " = ", "": " or "': " (the
		// generic rule's anchors are ey= and ey:, glued to the name)
		{ID: "generic", Anchors: []string{"ey =", "ey :", `ey":`, `ey\":`, "ey':"}, Fold: true, Priority: prioGeneric,
			find: findAssignments, findLate: findAssignmentsLate, emits: assignmentIDs[:]},
		{ID: "generic-password", Anchors: directiveAnchors, Fold: true, Priority: prioGeneric,
			find: findPasswordDirectives, emits: []string{"generic-password"}},
		// .netrc's default entry: default login USER password PASS
		{ID: "netrc-password", Anchors: []string{"ult login", "ult\tlogin"}, Before: 4, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`\bdefault\s+login\s+\S+\s+(?:account\s+\S+\s+)?password\s+(?P<s>\S+)`),
			Check: checkValue(kindPassword)},
		{ID: "session-cookie", Anchors: sessionCookieAnchors, Priority: prioContext,
			find: findSessionCookies, emits: []string{"session-cookie"}},
		// ASP.NET Core data protection: the payload's magic header 09 F0 C9 F0
		// in base64url is CfDJ8 (auth cookies, antiforgery, TempData)
		tok("session-cookie", `CfDJ8[A-Za-z0-9_-]{60,}`, "CfDJ8").after(4000).bound(isTokenByte).check(checkRandom(4.0, 3)),
		{ID: "generic-token", Anchors: oauthParamAnchors, Fold: true, Priority: prioContext,
			find: findOAuthParams, emits: []string{"generic-token"}},
		{ID: "code-credentials-password", Anchors: credentialCallAnchors, Fold: true, Priority: prioContext,
			find: findCredentialCalls, emits: []string{"code-credentials-password"}},
		{ID: "generic-password", Anchors: proseAnchors, Fold: true, Priority: prioGeneric,
			find: findProsePasswords, emits: []string{"generic-password", "generic-api-key"}},
		// HTTPie: http -a USER:PASSWORD (anchored on the option: "http" is in
		// every URL; the command is read back from the hit)
		{ID: "curl-basic-auth", Anchors: []string{"-a ", "--auth ", "--auth="}, Before: 200, After: 200, Priority: prioContext,
			Re:    regexp.MustCompile(`\bhttps?[ \t](?:[^\n|;&]*?[ \t])?(?:-a|--auth)[ \t=]+["']?[^\s:"']+:(?P<s>[^\s"']+)`),
			Check: checkValue(kindPassword)},
		// WordPress 6.8+: bcrypt of the password's HMAC, written $wp$2y$…
		{ID: "password-hash", Anchors: []string{"$wp$2"}, After: 80, Priority: prioPrefix,
			Re: regexp.MustCompile(`\$wp\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}`), Boundary: isAlnum, Check: checkHash},
		// Cisco IOS type 7: a reversible encoding of the password (two
		// decimal digits of offset, then hex pairs)
		{ID: "password-hash", Anchors: cisco7Anchors, Before: 8, After: 120, Priority: prioContext,
			Re:       regexp.MustCompile(`(?:password|secret|key) 7 (?P<s>[0-9]{2}(?:[0-9A-F]{2}){3,})`),
			Boundary: isAlnum},
	}
}

// cisco7Anchors: the last letter of password, secret or key, the type,
// and the offset's first digit (anchored so: "key" and "password" start
// too many words)
var cisco7Anchors = func() (a []string) {
	for _, c := range "dty" {
		for d := '0'; d <= '5'; d++ {
			a = append(a, string(c)+" 7 "+string(d))
		}
	}
	return
}()

// ---- password directives

// directiveWords: the last word of a config directive whose value is a
// password though its name does not say so: Redis (requirepass,
// masterauth), OpenLDAP/nslcd (bindpw, rootpw), wpa_supplicant/hostapd
// (psk), and any *_pw name (ldap_bind_pw, ADMIN_PW).
var directiveWords = map[string]bool{"pw": true, "psk": true, "requirepass": true, "masterauth": true, "bindpw": true, "rootpw": true}

// (anchored past a common first trigram: uirepass, ndpw, otpw; the name
// is read back from the hit)
var directiveAnchors = []string{"uirepass", "masterauth", "ndpw", "otpw", "psk", "_pw", "pw =", "pw=", "pw:", "auth_pass",
	"pass: '", `pass: "`, `pass: \"`, "pass:'", `pass:"`, `pass:\"`, "pass = '", `pass = "`, `pass = \"`}

// findPasswordDirectives: at a directive's name (or any name of a password
// at the start of a line), its value: NAME=value, NAME: value, or, at the
// start of a line, NAME value as a config file writes it, the value being
// the line's last word.
func findPasswordDirectives(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		l, r := identAround(text, p, p) // general7.go
		lastEnd = r
		ident := text[l:r]
		var arr [12]string
		words := appendWords(arr[:0], ident)
		if len(words) == 0 {
			continue
		}
		_, named := classifyIdent(ident)
		bare := !named && isFold(ident, "pass") // pass: '…' in an object literal (nodemailer's auth)
		if !named && !bare && !directiveWords[words[len(words)-1]] {
			continue
		}
		s, e, quoted, prose := parseValue(text, l, r, ident, kindPassword)
		if bare && !quoted {
			continue // PASS: TestX (test output)
		}
		if s < 0 && atLineStart(text, l) {
			s, e, quoted = directiveValue(text, r)
		}
		if s < 0 || prose {
			continue
		}
		if plausibleValue(text[s:e], kindPassword, quoted) {
			emit(s, e, "generic-password")
			lastEnd = e
		}
	}
}

// directiveValue: after a directive's name at text[r], blanks and one
// value (quoted or a word) that ends the line (or a # comment follows).
func directiveValue(text string, r int) (int, int, bool) {
	j := skipBlanks(text, r)
	if j == r || j >= len(text) {
		return -1, -1, false
	}
	s, e, quoted := j, j, false
	if q := text[j]; q == '"' || q == '\'' {
		k := strings.IndexByte(text[j+1:], q)
		if k <= 0 || strings.IndexByte(text[j+1:j+1+k], '\n') >= 0 {
			return -1, -1, false
		}
		s, e, quoted = j+1, j+1+k, true
		j = e + 1
	} else {
		for e < len(text) && !isSpace(text[e]) {
			e++
		}
		j = e
	}
	j = skipBlanks(text, j)
	if j < len(text) && text[j] != '\n' && text[j] != '\r' && text[j] != '#' {
		return -1, -1, false
	}
	return s, e, quoted
}

// ---- session cookies

// sessionCookieAnchors: the session cookies of common frameworks, by the
// name they give them (case-sensitive: "sessionId" is a JSON field of
// every client transcript, "sessionid" Django's cookie).
// The anchors are the names' rarer parts (the prefilter passes every
// position whose first three bytes an anchor starts with: "ses", "con",
// "exp" start thousands of words); the whole name is read back from the
// hit.
var sessionCookieAnchors = []string{
	"ssionid", "SSIONID", "_SessionId", "HPSESSID", ".sid=", `.sid":`, `.sid\":`, "_session=", `_session":`, `_session\":`, "_SESSION=", "pNetCore.", ":sess=",
	"on-token=", `on-token":`, `on-token\":`, "k.session=", "mber_user_token=", "CAKEPHP=",
}

// findSessionCookies: a session cookie's value after its name, written
// name=value (a header, curl -b, document.cookie) or "name": "value" (a
// dict): a random value of 16 bytes or more, not a UUID (the id of a
// transcript), not a deletion (deleted, an empty value).
func findSessionCookies(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		_, r := cookieNameAt(text, h)
		lastEnd = r
		j := r
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			j++
		} else if j+1 < len(text) && text[j] == '\\' && text[j+1] == '"' {
			j += 2
		}
		j = skipBlanks(text, j)
		if j >= len(text) || text[j] != '=' && text[j] != ':' {
			continue
		}
		j = skipBlanks(text, j+1)
		if j+1 < len(text) && text[j] == '\\' && text[j+1] == '"' {
			j += 2
		} else if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			j++
		}
		e := j
		for e < len(text) && e-j < 4096 && isCookieValueByte(text[e]) {
			e++
		}
		v := text[j:e]
		if len(v) < 16 || chain.IsUUID(v) || emptyPlaceholder(v) || hasPlaceholderPart(v) || !randomShape(v, 3.0, 2) {
			continue
		}
		emit(j, e, "session-cookie")
		lastEnd = e
	}
}

// cookieNameAt: the whole cookie name around an anchor hit (the anchor's
// trailing =, " or : left out).
func cookieNameAt(text string, h hit) (int, int) {
	p := int(h.pos)
	l, r := p, p+int(h.alen)
	for r > p && (text[r-1] == '=' || text[r-1] == '"' || text[r-1] == ':') {
		r--
	}
	for l > 0 && isCookieNameByte(text[l-1]) {
		l--
	}
	for r < len(text) && isCookieNameByte(text[r]) {
		r++
	}
	return l, r
}

func isCookieNameByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == ':' }

// isCookieValueByte: RFC 6265's cookie-octet, less the backslash (a JSON
// escape ends the value).
func isCookieValueByte(c byte) bool {
	return c > 0x20 && c < 0x7f && c != '"' && c != ',' && c != ';' && c != '\\' && c != '\''
}

// ---- OAuth parameters

// (anchored on the names' rarer parts; the name is read back from the hit)
var oauthParamAnchors = []string{"ce_code", "cecode", "e_verifier", "t_assertion", "mlresponse", "token_hint", "?code=", "&code="}

// oauthParams: the parameters that carry a credential (lower case) and
// the least length of their value.
var oauthParams = map[string]int{
	"device_code": 20, "devicecode": 20, "code_verifier": 43, "codeverifier": 43, "client_assertion": 40,
	"samlresponse": 100, "id_token_hint": 40, "code": 16,
}

// findOAuthParams: the value of an OAuth parameter that carries a
// credential, in a form body or query (name=value), JSON or YAML
// ("name": "value") or an HTML form (name="SAMLResponse" value="…"). An
// authorization code (?code=) only in a query that also has state= or in
// a token request (grant_type=, redirect_uri=): "code" alone names too
// many things.
func findOAuthParams(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		l := p
		if text[l] == '?' || text[l] == '&' {
			l++
		} else {
			for l > 0 && (isAlnum(text[l-1]) || text[l-1] == '_') {
				l--
			}
		}
		r := l
		for r < len(text) && (isAlnum(text[r]) || text[r] == '_') {
			r++
		}
		name := lowerASCII(text[l:r])
		minLen, ok := oauthParams[name]
		if !ok {
			continue
		}
		j := r
		switch {
		case j < len(text) && text[j] == '=':
			j++
		case strings.HasPrefix(text[j:], `" value="`), strings.HasPrefix(text[j:], `' value='`):
			j += len(`" value="`)
		default:
			for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == '\\') {
				j++
			}
			j = skipBlanks(text, j)
			if j >= len(text) || text[j] != ':' {
				continue
			}
			j = skipBlanks(text, j+1)
			if j+1 < len(text) && text[j] == '\\' {
				j++
			}
			if j < len(text) && (text[j] == '"' || text[j] == '\'') {
				j++
			}
		}
		e := j
		for e < len(text) && e-j < 20000 && (isTokenByte(text[e]) || strings.IndexByte("._~+/=%", text[e]) >= 0) {
			e++
		}
		if name == "code" && !oauthCodeContext(text, p, e) {
			continue
		}
		v := text[j:e]
		if len(v) < minLen || emptyPlaceholder(v) || hasPlaceholderPart(v) || !randomShape(v, 3.3, 2) {
			continue
		}
		emit(j, e, "generic-token")
		lastEnd = e
	}
}

// oauthCodeContext: the line of a ?code= parameter is an OAuth callback
// or token request.
func oauthCodeContext(text string, p, e int) bool {
	a := strings.LastIndexByte(text[:p], '\n') + 1
	b := strings.IndexByte(text[e:], '\n')
	if b < 0 {
		b = len(text)
	} else {
		b += e
	}
	line := text[a:b]
	return strings.Contains(line, "state=") || strings.Contains(line, "grant_type=") || strings.Contains(line, "redirect_uri=")
}

// ---- credential calls

var credentialCallAnchors = []string{"ogin(", "auth=(", "auth = (", "basicauth(", "tconnection(", "passwordauthentication(",
	"passwordcredentials(", "creds = (", "credentials = ("}

// findCredentialCalls: a call (or tuple) whose arguments are a user and a
// password, written as literals: the password is the second argument
// (getConnection: the third, after the URL) and the argument before it is
// a literal too, so login(user, password) with variables is passed over.
func findCredentialCalls(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		open := strings.IndexByte(text[p:min(len(text), p+int(h.alen))], '(')
		if open < 0 {
			continue
		}
		pos := 1
		if hasPrefixFold(text[p:], "tconnection(") {
			pos = 2
		}
		type arg struct {
			s, e int
			lit  bool
		}
		var args []arg
		j := p + open + 1
		for len(args) <= pos && j < len(text) && j-p < 400 {
			j = skipSpace(text, j)
			if j >= len(text) {
				break
			}
			if q := text[j]; q == '"' || q == '\'' {
				k := j + 1
				for k < len(text) && text[k] != q && text[k] != '\n' {
					if text[k] == '\\' {
						k++
					}
					k++
				}
				if k >= len(text) || text[k] != q {
					break
				}
				args = append(args, arg{j + 1, k, true})
				j = k + 1
			} else {
				k := j
				for k < len(text) && text[k] != ',' && text[k] != ')' && text[k] != '\n' {
					k++
				}
				args = append(args, arg{j, k, false})
				j = k
			}
			j = skipSpace(text, j)
			if j >= len(text) || text[j] != ',' {
				break
			}
			j++
		}
		if len(args) <= pos || !args[pos].lit || !args[pos-1].lit {
			continue
		}
		a := args[pos]
		if v := text[a.s:a.e]; len(v) >= 6 && literalPassword(v) {
			emit(a.s, a.e, "code-credentials-password")
		}
	}
}

func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

// literalPassword: a password written as a literal in code: not a
// reference, a format verb, a placeholder or a word of one kind of letters.
func literalPassword(v string) bool {
	if !checkLiteralPassword(v, 0, len(v)) && !(v[0] == '%' && !strings.Contains(v, "%(") && !strings.Contains(v, "%s")) {
		return false
	}
	if isPlaceholderWord(v) || hasPlaceholderPart(v) || emptyPlaceholder(v) || isEnvName(v) || strings.ContainsAny(v, " \t") {
		return false
	}
	return classOf(v).kinds() >= 2
}

// ---- prose

// proseAnchors: the word for a password in other languages (the English
// "password is X" is the keyword rules'), and English phrasings that give
// one: "password to X", "password was X", "api key is X", "token is X".
// (some anchored past a common first trigram: traseña, enha, asło)
var proseAnchors = []string{
	"mot de passe", "traseña", "passwort", "enha", "wachtwoord", "パスワード", "密码", "密碼", "пароль",
	"asło", "lösenord", "asana", "adgangskode", "eslo", "jelszó", "şifre", "비밀번호", "mật khẩu",
	"password è", "password to", "password was", "key is", "token is", "token was",
	"secret is", "cookie is", "cookie was",
}

// proseWordHead: the letters a word anchored past its first trigram
// starts with (senha, heslo, hasło, salasana, contraseña).
var proseWordHead = map[string]string{"enha": "s", "eslo": "h", "asło": "h", "asana": "sal", "traseña": "con"}

// proseCopulas: what may stand between the word and the value.
var proseCopulas = []string{"est", "es", "ist", "lautet", "é", "è", "is", "was", "to", "era", "war", "je", "jest", "är", "on", "er", "è:", "は", "是", "为", "為", "は:", "=", ":", "：", "—", "-"}

// findProsePasswords: a password (or key, or token) named in a sentence:
// the word, at most one copula or colon, the value. The value must look
// generated or like a strong password (letters and digits or
// punctuation, not a word, a path or a name): prose says "the password
// is wrong" far more often than it gives one.
func findProsePasswords(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		anchor := text[p : p+int(h.alen)]
		// the anchor starts a word, or ends the head of one (s+enha)
		w := p - len(proseWordHead[lowerASCII(anchor)])
		if w < 0 || lowerASCII(text[w:p]) != proseWordHead[lowerASCII(anchor)] || w > 0 && isAlpha(text[w-1]) {
			continue
		}
		kind := kindPassword
		j := p + int(h.alen)
		if la := lowerASCII(anchor); strings.HasSuffix(la, " to") || strings.HasSuffix(la, " is") || strings.HasSuffix(la, " was") || strings.HasSuffix(la, " è") {
			if !strings.HasPrefix(la, "password") {
				kind = kindAPIKey
			}
		} else {
			// the rest of the word (Passworts, contraseñas) and up to one copula
			for j < len(text) && isAlpha(text[j]) {
				j++
			}
			j = skipBlanks(text, j)
			for _, c := range proseCopulas {
				// a copula of letters must end its word (es, not escrito)
				if strings.HasPrefix(text[j:], c) && (!isAlpha(c[0]) || j+len(c) >= len(text) || !isAlpha(text[j+len(c)])) {
					j += len(c)
					if j < len(text) && text[j] == ':' {
						j++
					}
					break
				}
			}
		}
		lastEnd = j
		j = skipBlanks(text, j)
		if j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == '`') {
			j++
		}
		e := j
		for e < len(text) && text[e] > 0x20 && text[e] < 0x7f && text[e] != '"' && text[e] != '\'' && text[e] != '`' {
			e++
		}
		for e > j && strings.IndexByte(".,;:!?)", text[e-1]) >= 0 {
			e--
		}
		if e == j || !proseSecretValue(text[j:e], kind) {
			continue
		}
		emit(j, e, assignmentIDs[kind])
		lastEnd = e
	}
}

// proseSecretValue: a value given in prose that is a secret: a generated
// key (strongValue, random base64), or a password of 8 characters or
// more with letters and digits or punctuation that is not a path, a URL,
// a name or a reference.
func proseSecretValue(v string, kind int) bool {
	if len(v) < 8 || len(v) > 200 || !plausibleProse(v) || looksLikePathOrURLFold(v) || isIdentPath(v) || isEnvName(v) {
		return false
	}
	if strings.ContainsAny(v[:1], "${<[(") || v[0] == '%' && (isAlpha(v[1]) || v[1] == '(') || emptyPlaceholder(v) || hasPlaceholderPart(v) || isPlaceholderWord(v) {
		return false // a reference, a format verb (%s, %(pw)s), a placeholder
	}
	if kind != kindPassword {
		return strongValue(v) || randomBase64(v)
	}
	c := classOf(v)
	return c.lower+c.upper > 0 && c.kinds() >= 3 && entropy(v) >= 2.8
}

// ---- checks used by rules elsewhere

// punctLedPassword: a value that starts with punctuation (:.cn.LAs…,
// -1_AD3…, >^6LT…) is a generated password, not a flag, a path, a
// reference or a symbol, when it holds all four kinds of characters and
// looks random (plausibleValue turns every other punctuation-led value
// down).
func punctLedPassword(v string) bool {
	if len(v) < 8 || len(v) > 128 || strings.HasPrefix(v, "--") || strings.HasPrefix(v, "-----") || strings.Contains(v, "//") {
		return false
	}
	c := classOf(v)
	return c.upper > 0 && c.lower > 0 && c.digit > 0 && c.other > 0 && entropy(v) >= 3.0 && !looksLikePathOrURLFold(v)
}

// ntlmNotEmpty: an LM:NT pair of a pwdump line holds a secret unless both
// are the hashes of the empty password (an account without one).
func ntlmNotEmpty(text string, s, e int) bool {
	v := strings.ToLower(text[s:e])
	lm, nt, _ := strings.Cut(v, ":")
	return !(lm == "aad3b435b51404eeaad3b435b51404ee" || lm == strings.Repeat("0", 32)) || nt != "31d6cfe0d16ae931b73c59d7e0c089c0"
}

// pgpassField: a .pgpass line has five fields; its password escapes a
// colon as \: — a password field with a bare colon is a line of another
// file (/etc/shadow's root:*:19694:0:99999:7:::).
func pgpassField(text string, s, e int) bool {
	v := text[s:e]
	for i := strings.IndexByte(v, ':'); i >= 0; i = strings.IndexByte(v, ':') {
		if i == 0 || v[i-1] != '\\' {
			return false
		}
		v = v[i+1:]
	}
	return checkValue(kindPassword)(text, s, e)
}

// namedByAttribute: the quoted name at text[l:] is the value of a name=
// or key= attribute (<property name="…">, <entry key="…">).
func namedByAttribute(text string, l int) bool {
	a := l - 1 // the opening quote
	return a >= 5 && hasPrefixFold(text[a-5:], "name=") || a >= 4 && hasPrefixFold(text[a-4:], "key=")
}

// elementText: the text of an XML element that starts at a and is closed
// right after it (…</x>), blanks trimmed; -1 when there is none.
func elementText(text string, a int) (s, e int, quoted, prose bool) {
	k := strings.IndexByte(text[a:], '<')
	if k <= 0 || k > 600 || !strings.HasPrefix(text[a+k:], "</") {
		return -1, -1, false, false
	}
	b := a + k
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

// percentLedPassword: a value that starts with a percent-encoded byte
// (%5E%23DrCy… in a form body or a query) is judged as it decodes; a
// format verb (%s, %(password)s) or a lone % is no value.
func percentLedPassword(v string, kind int, quoted bool) bool {
	if len(v) < 9 || !isHex(v[1]) || !isHex(v[2]) {
		return false
	}
	d, err := url.PathUnescape(v)
	if err != nil || d == "" || d[0] == '%' {
		return false
	}
	return plausibleValue(d, kind, quoted)
}
