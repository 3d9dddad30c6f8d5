package redact

import (
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Rules that generalize, seventh round (issue 31): the three families the
// newest blind set found just under 90% — generic assignments, logs and
// responses, chat/mail/webhooks — each written as one principle per class
// (dev set testdata/dev-general7.txt):
//
//   - a name meets its value through a form the keyword rules do not read:
//     R's `<-`, Kotlin's `"name" to "value"`, Clojure/EDN's `:name "value"`,
//     a tuple `{name, "value"}` / `("name", "value")`, Windows `setx NAME
//     value`, a builder or setter call `.apiKey("…")`, .NET Settings'
//     `<setting name="X"><value>…</value>`, Perl's $ENV{NAME} = '…',
//     `<Name value="…"/>`, YAML's !!str, a Markdown table's row, a log's
//     `apikey "…"` (findNameForms); a literal converted where it is
//     assigned ([]byte("…"), GetBytes("…"), String::from("…"))
//     (findConvertedLiterals);
//   - the key given as a literal to a signing or HMAC call: jwt.encode/
//     sign/decode/verify, hmac.new, createHmac, hash_hmac, HMAC256,
//     hmacShaKeyFor, SecretKeySpec, SignedString (findSigningKeys);
//   - a dump that splits the name from its value by its structure: PHP
//     var_dump, `"name": {… "value": "…"}` (Spring's /env, terraform
//     output -json), `Key  Value` tables (vault read, kv get, pulumi config,
//     az … keys list -o table), Consul/Nomad/Vault secret ids, the AWS
//     CLI's text rows, the registry's REG_SZ values (findStructuredDumps);
//   - a literal fed on standard input to a command that stores a secret
//     (docker secret create, gh secret set, gcloud secrets, vercel env
//     add) (findStoredFromStdin);
//   - a value a CI workflow command declares secret: ::add-mask::,
//     ::set-output name=TOKEN::, ##vso[task.setvariable …;issecret=true]
//     (findCIMaskedValues);
//   - a tool's message that hands over a generated credential: MySQL's
//     temporary password, Elasticsearch's and Jenkins' initial passwords,
//     vault operator init's unseal keys, Spring's generated password
//     (findHandedCredentials);
//   - the webhook URLs of chat and automation services whose secret is a
//     path segment or a host label (Lark/Feishu, WeCom, Make/Integromat,
//     Zapier catch hooks, Pipedream) and the notification URLs of apprise
//     and shoutrrr (discord://, tgram://, slack://…) (findServiceHooks);
//   - credentials passed to a messaging SDK's constructor: the secret after
//     a Twilio/Plivo account id, the single key of a service's client, a
//     Discord bot's run(token), and the integration keys named routing_key,
//     service_key, integration_key, a zuliprc's [api] key (findSDKKeys);
//   - mail clients' passwords: postfix sasl_passwd lines, fetchmail's
//     `with password`, offlineimap's remotepass/localpass, an msmtprc or
//     netrc-like `password VALUE` line, Google's 16-letter app passwords
//     (findMailPasswords);
//   - a secret's name in other languages (clave_api, mot_de_passe,
//     chiave_segreta, Kennwort, senha) and the short names $pwd and cred
//     (findForeignNames).
//
// Hooked into the core by builtinRules (rules.go); every rule is gated by
// literal anchors chosen past common first trigrams, and the name is read
// back from the hit.
func general7Rules() []*Rule {
	return []*Rule{
		{ID: "generic", Anchors: nameFormAnchors, Fold: true, Priority: prioGeneric,
			find: findNameForms, emits: assignmentIDs[:]},
		{ID: "generic-secret", Anchors: signingCallAnchors, Fold: true, Priority: prioContext,
			find: findSigningKeys, emits: []string{"generic-secret"}},
		{ID: "generic", Anchors: dumpAnchors, Priority: prioContext,
			find: findStructuredDumps, emits: append(assignmentIDs[:], "aws-secret-key")},
		{ID: "generic-password", Anchors: handedAnchors, Fold: true, Priority: prioContext,
			find: findHandedCredentials, emits: []string{"generic-password", "generic-token"}},
		{ID: "url-secret", Anchors: serviceHookAnchors, Fold: true, Priority: prioContext,
			find: findServiceHooks, emits: []string{"url-secret"}},
		{ID: "generic-api-key", Anchors: sdkAnchors, Fold: true, Priority: prioContext,
			find: findSDKKeys, emits: []string{"generic-api-key"}},
		{ID: "generic-password", Anchors: mailAnchors, Fold: true, Priority: prioContext,
			find: findMailPasswords, emits: []string{"generic-password"}},
		{ID: "generic", Anchors: foreignNameAnchors, Fold: true, Priority: prioGeneric,
			find: findForeignNames, emits: assignmentIDs[:]},
		{ID: "generic", Anchors: conversionAnchors, Fold: true, Priority: prioGeneric,
			find: findConvertedLiterals, emits: assignmentIDs[:]},
		{ID: "generic-secret", Anchors: secretStoreAnchors, Fold: true, Priority: prioContext,
			find: findStoredFromStdin, emits: []string{"generic-secret"}},
		{ID: "generic-secret", Anchors: ciMaskAnchors, Priority: prioContext,
			find: findCIMaskedValues, emits: []string{"generic-secret", "generic-api-key", "generic-token", "generic-password"}},
	}
}

// ---- shared readers

// literalAt: a string literal starting at text[j] (optionally b"…" or
// []byte("…")), its contents' span; -1 when there is none on the line.
func literalAt(text string, j int) (int, int) {
	if strings.HasPrefix(text[j:], "[]byte(") {
		j += len("[]byte(")
	}
	if j < len(text) && (text[j] == 'b' || text[j] == 'r') && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\'') {
		j++
	}
	if j >= len(text) {
		return -1, -1
	}
	q := text[j]
	if q != '"' && q != '\'' && q != '`' {
		return -1, -1
	}
	k := j + 1
	for k < len(text) && text[k] != q && text[k] != '\n' && k-j < 600 {
		if text[k] == '\\' && q != '`' {
			k++
		}
		k++
	}
	if k >= len(text) || text[k] != q {
		return -1, -1
	}
	return j + 1, k
}

// identBefore: the identifier that ends at text[r] (quotes and a leading
// ':' or '$' are not part of it).
func identBefore(text string, r int) (int, int) {
	l := r
	for l > 0 && isIdentByte(text[l-1]) {
		l--
	}
	return l, r
}

// identAround: the identifier that holds text[l:r], widened both ways.
func identAround(text string, l, r int) (int, int) {
	for l > 0 && isIdentByte(text[l-1]) {
		l--
	}
	for r < len(text) && isIdentByte(text[r]) {
		r++
	}
	return l, r
}

// lineBounds: the line around p.
func lineBounds(text string, p int) (int, int) {
	return strings.LastIndexByte(text[:p], '\n') + 1, lineEnd(text, p)
}

// generatedValue: a value a machine made (a key, a token, a generated
// password): long enough, random-looking, not a placeholder or a reference.
func generatedValue(v string, minLen int) bool {
	if len(v) < minLen || len(v) > 600 || emptyPlaceholder(v) || hasPlaceholderPart(v) || isPlaceholderWord(v) || isEnvName(v) {
		return false
	}
	if strings.ContainsAny(v[:1], "$%{<[(") || strings.Contains(v, "://") || strings.HasPrefix(v, "~/") {
		return false
	}
	if chain.IsUUID(v) {
		return true
	}
	// a name (FooBarBaz, fooBar2) is not; a key's humps come with digits
	return randomShape(v, 3.0, 2) && (classOf(v).digit >= 3 || !isCamelWords(v) && !isLowerCamelIdent(v))
}

// ---- name forms

// (anchored on the whole word: its trigram, "key", "sec", "tok", "pas",
// already passes the prefilter for the keyword rules, so these add no
// position to the ones it lets through; "oken", "ecr", "ssw" would add
// every token, secret and password of a secret-dense text)
var nameFormWords = []string{"key", "secret", "token", "password", "passwd"}

var nameFormAnchors = func() (a []string) {
	for _, w := range nameFormWords {
		for _, sep := range []string{`("`, `('`, `" to "`, `' to '`, `", "`, `', '`, `, "`, `, '`, ` <- `, `<-`, ` <<- `, ` "`,
			`} = '`, `} = "`, `}='`, `}="`, ` value="`, `: !!str `, ` | `} {
			a = append(a, w+sep)
		}
	}
	return append(a, "etx ", `zeas="`)
}()

// findNameForms: at a name that names a secret, a value met through one
// of the forms above.
func findNameForms(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		a := text[p : p+int(h.alen)]
		la := lowerASCII(a)
		switch {
		case la == "etx ":
			// setx NAME value | setx NAME "value"
			if p < 1 || !isFold(text[p-1:p], "s") || p >= 2 && isIdentByte(text[p-2]) {
				continue
			}
			l := skipBlanks(text, p+4)
			r := l
			for r < len(text) && isIdentByte(text[r]) {
				r++
			}
			kind, ok := classifyIdent(text[l:r])
			if !ok {
				continue
			}
			s, e, quoted := directiveValue(text, r)
			if s < 0 {
				// setx NAME value /M
				j := skipBlanks(text, r)
				if s, e = literalAt(text, j); s < 0 {
					continue
				}
				quoted = true
			}
			if plausibleValue(text[s:e], kind, quoted) {
				emit(s, e, assignmentIDs[kind])
				lastEnd = e
			}
			continue
		case la == `zeas="`:
			// <setting name="EncryptionKey" serializeAs="String"><value>…</value>
			ls, _ := lineBounds(text, p)
			n := strings.Index(lowerASCII(text[ls:p]), `name="`)
			if n < 0 {
				continue
			}
			ns := ls + n + len(`name="`)
			ne := strings.IndexByte(text[ns:p], '"')
			if ne < 0 {
				continue
			}
			kind, ok := classifyIdent(text[ns : ns+ne])
			if !ok {
				continue
			}
			k := strings.Index(lowerASCII(text[p:min(len(text), p+300)]), "<value>")
			if k < 0 {
				continue
			}
			s, e, quoted, _ := elementText(text, p+k+len("<value>"))
			if s >= 0 && plausibleValue(text[s:e], kind, quoted) {
				emit(s, e, assignmentIDs[kind])
				lastEnd = e
			}
			continue
		}
		// the name ends where the word the anchor ends does
		wl := 0
		for _, w := range nameFormWords {
			if strings.HasPrefix(la, w) {
				wl = len(w)
				break
			}
		}
		r := p + wl
		if r < len(text) && isIdentByte(text[r]) {
			continue
		}
		l, _ := identBefore(text, r)
		ident := text[l:r]
		kind, ok := classifyIdent(ident)
		if !ok {
			continue
		}
		sep := a[wl:]
		j := p + len(a) - 1 // the opening quote of the value, or …
		switch {
		case strings.HasPrefix(sep, "("):
			// .apiKey("…"), withClientSecret("…"), setToken('…'): a method
			// whose name is the secret's, one literal argument
			if d := strings.LastIndexByte(ident, '.'); d >= 0 {
				ident, l = ident[d+1:], l+d+1
			} else if l == 0 || text[l-1] != '.' && !hasPrefixFold(ident, "with") && !hasPrefixFold(ident, "set") {
				continue
			}
			if kind, ok = classifyIdent(ident); !ok {
				continue
			}
		case sep[0] == '}':
			// Perl's $ENV{API_KEY} = '…'
			if l == 0 || text[l-1] != '{' {
				continue
			}
		case sep == ` value="`:
			// <ApiKey value="…" />
			if l == 0 || text[l-1] != '<' {
				continue
			}
		case sep == `: !!str `:
			// YAML's explicit tag: secret: !!str …
			s, e, quoted := directiveValue(text, p+len(a)-1)
			if s >= 0 && plausibleValue(text[s:e], kind, quoted) {
				emit(s, e, assignmentIDs[kind])
				lastEnd = e
			}
			continue
		case strings.Contains(sep, "<-"):
			j = skipBlanks(text, p+wl+strings.Index(sep, "<-")+2)
			if l > 0 && text[l-1] == '"' {
				continue
			}
		case sep == ` | `:
			// a Markdown table's row: | api_key | value |
			if b := skipBackBlanks(text, l); b == 0 || text[b-1] != '|' {
				continue
			}
			s := skipBlanks(text, p+len(a))
			e := s
			for e < len(text) && text[e] != '|' && text[e] != '\n' {
				e++
			}
			if e >= len(text) || text[e] != '|' {
				continue
			}
			e = skipBackBlanks(text, e)
			if v := strings.Trim(text[s:e], "`"); v != "" && !strings.ContainsAny(v, " \t") && plausibleValue(v, kind, false) {
				s += strings.Index(text[s:e], v)
				emit(s, s+len(v), assignmentIDs[kind])
				lastEnd = s + len(v)
			}
			continue
		case strings.HasSuffix(sep, ` "`) && !strings.Contains(sep, ",") && !strings.Contains(sep, " to "):
			// Clojure/EDN :api-key "…"; a log's apikey "…" when the value
			// looks generated
			if l == 0 || text[l-1] != ':' {
				if s, e := literalAt(text, j); s < 0 || !generatedValue(text[s:e], 16) || strings.ContainsAny(text[s:e], " \t") {
					continue
				}
			}
		case strings.Contains(sep, " to "):
			// Kotlin "apiKey" to "…": the name is quoted
			if l == 0 || text[l-1] != sep[0] {
				continue
			}
		default:
			// {api_secret, "…"}, ("api_key", "…"), {:api_key, "…"}
			b := l
			if b > 0 && (text[b-1] == '"' || text[b-1] == '\'' || text[b-1] == ':') {
				b--
			}
			b = skipBackBlanks(text, b)
			if b == 0 || text[b-1] != '{' && text[b-1] != '(' && text[b-1] != '[' {
				continue
			}
			if b >= 2 && isIdentByte(text[b-2]) {
				// a call f("api_key", "…"): a getter's default (os.getenv)
				// is a literal secret too; any other call is left alone
				cs, _ := identBefore(text, b-1)
				callee := lowerASCII(text[cs : b-1])
				if !strings.HasSuffix(callee, "getenv") && !strings.HasSuffix(callee, "get") && !strings.HasSuffix(callee, "setdefault") {
					continue
				}
			}
		}
		s, e := literalAt(text, j)
		if s < 0 {
			continue
		}
		if sep[0] == '(' {
			// one argument: url.UserPassword("user", "pass") takes two
			if k := skipBlanks(text, e+1); k >= len(text) || text[k] != ')' {
				continue
			}
		}
		if v := text[s:e]; plausibleValue(v, kind, true) && !strings.ContainsAny(v, " \t") {
			emit(s, e, assignmentIDs[kind])
			lastEnd = e
		}
	}
}

func skipBackBlanks(text string, i int) int {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i
}

// ---- signing calls

var signingCallAnchors = []string{"jwt.encode(", "jwt.sign(", "jwt.decode(", "jwt.verify(", "hmac.new(", "createhmac(", "h_hmac(",
	"hmac.hexdigest(", "hmac.digest(", "hmacshakeyfor(", "hmac256(", "hmac384(", "hmac512(", "signedstring(", "secretkeyspec(",
	"hmac.new(sha", "jwt.encode!(", "jose.hs256"}

// findSigningKeys: the literal a signing or HMAC call is given as its
// key: every string argument of the call that looks generated (the
// algorithm's name, the payload's words and a claim's value do not).
func findSigningKeys(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		j := p + strings.IndexByte(text[p:p+int(h.alen)], '(') + 1
		if j <= p {
			j = p + int(h.alen)
		}
		depth := 0
		for j < len(text) && j-p < 400 && text[j] != '\n' {
			c := text[j]
			switch {
			case c == '(' || c == '{' || c == '[':
				depth++
			case c == ')' || c == '}' || c == ']':
				if depth == 0 {
					j = len(text)
					continue
				}
				depth--
			case c == '"' || c == '\'' || c == 'b' && j+1 < len(text) && (text[j+1] == '"' || text[j+1] == '\'') && (j == 0 || !isIdentByte(text[j-1])):
				s, e := literalAt(text, j)
				if s < 0 {
					j = len(text)
					continue
				}
				// a key, not a claim: not inside a {…} payload
				if depth == 0 || text[max(0, s-2)] != ':' && text[max(0, s-3)] != ':' {
					if v := text[s:e]; generatedValue(v, 16) && !strings.ContainsAny(v, " \t") {
						emit(s, e, "generic-secret")
					}
				}
				j = e + 1
				continue
			}
			j++
		}
	}
}

// ---- structured dumps

var dumpAnchors = []string{`"]=>`, `"value": "`, `"value":"`, "Key    ", "KEY    ", "KeyName    ", "SecretID:", "Secret ID ", "secret_id ",
	"secret_id:", "secret_id=", "CREDENTIALS\t", "ACCESSKEY\t", "EG_SZ ", "EG_EXPAND_SZ "}

// findStructuredDumps: a dump's name and value, split by its structure.
func findStructuredDumps(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		a := text[p : p+int(h.alen)]
		switch {
		case a == `"]=>`:
			// PHP var_dump: ["api_key"]=>\n  string(32) "…"
			q := strings.LastIndexByte(text[max(0, p-80):p], '"')
			if q < 0 {
				continue
			}
			ns := max(0, p-80) + q + 1
			kind, ok := classifyIdent(text[ns:p])
			if !ok {
				continue
			}
			j := skipSpace(text, p+len(a))
			if !strings.HasPrefix(text[j:], "string(") {
				continue
			}
			k := strings.IndexByte(text[j:min(len(text), j+20)], ')')
			if k < 0 {
				continue
			}
			s, e := literalAt(text, skipBlanks(text, j+k+1))
			if s >= 0 && plausibleValue(text[s:e], kind, true) {
				emit(s, e, assignmentIDs[kind])
				lastEnd = e
			}
		case strings.HasPrefix(a, `"value"`):
			// "spring.datasource.password": { "value": "…" }: the name is
			// the member whose object holds this value
			open := enclosingBrace(text, p)
			if open < 0 {
				continue
			}
			// an Azure Key Vault secret bundle: {"value": "…", "id":
			// "https://….vault.azure.net/secrets/…"}
			if _, le := lineBounds(text, p); strings.Contains(text[open:min(le, open+600)], ".vault.azure.net/secrets/") {
				if s, e := literalAt(text, p+len(a)-1); s >= 0 && plausibleValue(text[s:e], kindSecret, true) {
					emit(s, e, "generic-secret")
					lastEnd = e
				}
				continue
			}
			b := skipBackSpace(text, open)
			if b < 2 || text[b-1] != ':' {
				continue
			}
			b = skipBackSpace(text, b-1)
			if b < 2 || text[b-1] != '"' {
				continue
			}
			q := strings.LastIndexByte(text[max(0, b-200):b-1], '"')
			if q < 0 {
				continue
			}
			ns := max(0, b-200) + q + 1
			kind, ok := classifyIdent(text[ns : b-1])
			if !ok {
				continue
			}
			s, e := literalAt(text, p+len(a)-1)
			if s >= 0 && plausibleValue(text[s:e], kind, true) {
				emit(s, e, assignmentIDs[kind])
				lastEnd = e
			}
		case strings.HasPrefix(a, "EG_"):
			// reg add … /v NAME /t REG_SZ /d VALUE; reg query's
			//     NAME    REG_SZ    VALUE
			if p < 1 || text[p-1] != 'R' {
				continue
			}
			ls, le := lineBounds(text, p)
			var name string
			s := skipBlanks(text, p+len(a))
			if v := strings.Index(text[ls:p], "/v "); v >= 0 {
				ns := skipBlanks(text, ls+v+3)
				name = text[ns : ns+max(0, strings.IndexAny(text[ns:p], " \t"))]
				if !strings.HasPrefix(text[s:], "/d ") {
					continue
				}
				s = skipBlanks(text, s+3)
			} else {
				name = strings.TrimSpace(text[ls : p-1])
			}
			kind, ok := classifyIdent(strings.Trim(name, `"`))
			if !ok {
				continue
			}
			e := s
			for e < le && !isSpace(text[e]) {
				e++
			}
			if v := strings.Trim(text[s:e], `"`); v != "" && plausibleValue(v, kind, false) {
				s += strings.Index(text[s:e], v)
				emit(s, s+len(v), assignmentIDs[kind])
				lastEnd = s + len(v)
			}
		case strings.HasPrefix(a, "Key") || strings.HasPrefix(a, "KEY"):
			lastEnd = tableRows(text, p, emit)
		case strings.HasPrefix(a, "CREDENTIALS") || strings.HasPrefix(a, "ACCESSKEY"):
			// aws … --output text: the secret key is the row's 40-character
			// base64 cell
			if p > 0 && text[p-1] != '\n' {
				continue
			}
			_, le := lineBounds(text, p)
			for i, c := p, p; i <= le; i++ {
				if i == le || text[i] == '\t' {
					if v := text[c:i]; len(v) == 40 && onlyB64(v) && randomShape(v, 3.5, 3) {
						emit(c, i, "aws-secret-key")
					}
					c = i + 1
				}
			}
			lastEnd = le
		default:
			// SecretID: <uuid> (Consul), Secret ID = <uuid> (Nomad),
			// secret_id <uuid> (Vault AppRole)
			j := p + len(a)
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == ':' || text[j] == '=' || text[j] == '"') {
				j++
			}
			if j+36 <= len(text) && chain.IsUUID(text[j:j+36]) && (j+36 == len(text) || !isTokenByte(text[j+36])) {
				emit(j, j+36, "generic-token")
				lastEnd = j + 36
			}
		}
	}
}

func onlyB64(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isB64(v[i]) {
			return false
		}
	}
	return true
}

func skipBackSpace(text string, i int) int {
	for i > 0 && isSpace(text[i-1]) {
		i--
	}
	return i
}

// enclosingBrace: the '{' that opens the object holding text[p] (within
// 400 bytes), or -1.
func enclosingBrace(text string, p int) int {
	depth := 0
	for i := p - 1; i >= 0 && p-i < 400; i-- {
		switch text[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// tableRows: a `Key  Value` table at its header (text[p], at the start of
// a line): every row whose name names a secret, its Value cell; under a
// KeyName header (the rows are keys), a Value cell that looks generated.
// It returns where the table ends.
func tableRows(text string, p int, emit func(s, e int, id string)) int {
	if p > 0 && text[p-1] != '\n' {
		return p + 1
	}
	_, he := lineBounds(text, p)
	header := text[p:he]
	vc := strings.Index(header, "Value")
	if vc < 0 {
		vc = strings.Index(header, "VALUE")
	}
	if vc < 0 || strings.TrimSpace(header[vc+5:]) != "" || vc < 4 || header[vc-2] != ' ' {
		return he
	}
	keyRows := strings.HasPrefix(header, "KeyName")
	i := he + 1
	for rows := 0; i < len(text) && rows < 60; rows++ {
		_, le := lineBounds(text, i)
		row := text[i:le]
		if strings.TrimSpace(row) == "" {
			break
		}
		if strings.Trim(row, "- \t") == "" {
			i = le + 1
			continue
		}
		ne := strings.IndexAny(row, " \t")
		if ne <= 0 || len(row) <= vc || row[vc-1] != ' ' {
			i = le + 1
			continue
		}
		s, e := i+vc, le
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if v := text[s:e]; v != "" && !strings.ContainsAny(v, " \t") {
			if keyRows {
				if generatedValue(v, 20) {
					emit(s, e, "generic-api-key")
				}
			} else if kind, ok := classifyIdent(row[:ne]); ok && plausibleValue(v, kind, false) {
				emit(s, e, assignmentIDs[kind])
			}
		}
		i = le + 1
	}
	return i
}

// ---- credentials handed over in a tool's message

// handedAnchors: what a tool prints just before a credential it made.
// (anchored on the credential's word where it can be, or past a common
// first trigram: "gen", "new", "tem", "ini", "fol" start thousands of words)
var handedAnchors = []string{"password is generated for", "password for the elastic user", "password to proceed", "key 1:", "key 2:",
	"key 3:", "key 4:", "key 5:", "security password:", "w value:", "d password:", "password is:", "api key is:", "api key:",
	"token created:", "w token:", "token is:", "api key created:", "access key created:", "token to access the http api:",
	"token (long-lived):"}

// (vault operator init's "Initial Root Token: hvs.…" is the vault-token
// rule's: "oot" is in every root and boot)

// findHandedCredentials: the value after the message's colon, on its line
// or on the next non-empty one, when it looks generated.
func findHandedCredentials(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		_, le := lineBounds(text, p)
		c := strings.IndexByte(text[p:le], ':')
		if c < 0 {
			continue
		}
		j := p + c + 1
		for nl := 0; j < len(text) && isSpace(text[j]); j++ {
			if text[j] == '\n' {
				if nl++; nl > 2 {
					break
				}
			}
		}
		e := j
		for e < len(text) && text[e] > 0x20 && text[e] < 0x7f {
			e++
		}
		if v := text[j:e]; !generatedValue(v, 8) || looksLikePathOrURLFold(v) {
			continue
		}
		id := "generic-password"
		if hasPrefixFold(text[p:], "key ") || hasPrefixFold(text[p:], "oot token") || hasPrefixFold(text[p:], "w token") || hasPrefixFold(text[p:], "token") {
			id = "generic-token"
		}
		emit(j, e, id)
	}
}

// ---- chat and automation services' hooks

// (a notification URL is found at its "://", which every URL's rules
// already let through, and judged by its scheme)
var serviceHookAnchors = []string{"/bot/v2/hook/", "webhook/send?key=", ".make.com/", "egromat.com/", "/hooks/catch/", ".m.pipedream.net",
	"://", "/hooks/sendmessage/", "orops.com/integrations/generic/"}

// hookSchemes: the schemes of apprise's and shoutrrr's notification URLs
// whose path or user part holds a service's token.
var hookSchemes = map[string]bool{"discord": true, "tgram": true, "slack": true, "msteams": true, "gchat": true, "mmost": true, "mmosts": true,
	"zulip": true, "pover": true, "lark": true, "dingtalk": true, "wecombot": true, "feishu": true, "rocketchat": true, "rocket": true,
	"rockets": true, "telegram": true, "teams": true, "googlechat": true, "pushover": true, "ntfy": true, "gotify": true, "matrix": true}

// findServiceHooks: the secret of a service's webhook URL: the path
// segment after the hook's path, the host label of a Pipedream endpoint,
// the random segments of a notification URL (apprise, shoutrrr).
func findServiceHooks(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		a := lowerASCII(text[p : p+int(h.alen)])
		switch {
		case a == ".m.pipedream.net":
			s := p
			for s > 0 && isAlnum(text[s-1]) {
				s--
			}
			if s > 0 && text[s-1] == '/' && generatedValue(text[s:p], 16) {
				emit(s, p, "url-secret")
			}
		case a == "://":
			b := p
			for b > 0 && isAlnum(text[b-1]) {
				b--
			}
			var sbuf [32]byte // the scheme lower-cased, to look up
			if !hookSchemes[lowerASCIIIn(sbuf[:], text[b:p])] {
				continue
			}
			// scheme://seg/seg@seg?…: from the first segment to the last
			// one that looks generated (slack://A/B/C is one token in
			// three; discord://id/token; tgram://token/chat keeps its chat)
			j := p + len(a)
			end := j
			for end < len(text) && !isURLEnd(text[end]) && text[end] != '?' && text[end] != '#' {
				end++
			}
			last := -1
			for s := j; s < end; {
				e := s
				for e < end && text[e] != '/' && text[e] != '@' && text[e] != ':' {
					e++
				}
				// a Telegram bot token keeps its colon: digits:AA…
				if e < end && text[e] == ':' && allDigits(text[s:e]) && e-s >= 6 {
					e++
					for e < end && text[e] != '/' && text[e] != '@' {
						e++
					}
					last = e
				} else if generatedValue(text[s:e], 16) {
					last = e
				}
				s = e + 1
			}
			if last > j {
				emit(j, last, "url-secret")
			}
		default:
			// hook/<id>, send?key=<id>, make.com/<id>, catch/<n>/<id>,
			// VictorOps' generic/<version>/alert/<api key>/<routing key>
			j := p + len(a)
			if strings.HasPrefix(a, "orops") {
				for j < len(text) && isDigit(text[j]) {
					j++
				}
				if !strings.HasPrefix(text[j:], "/alert/") {
					continue
				}
				j += len("/alert/")
			}
			if a == "/hooks/catch/" {
				for j < len(text) && isDigit(text[j]) {
					j++
				}
				if j >= len(text) || text[j] != '/' {
					continue
				}
				j++
			}
			e := j
			for e < len(text) && (isTokenByte(text[e])) {
				e++
			}
			v := text[j:e]
			if a == "/hooks/catch/" {
				if len(v) >= 5 && classOf(v).kinds() >= 2 && !isPlaceholderWord(v) && !emptyPlaceholder(v) {
					emit(j, e, "url-secret")
				}
				continue
			}
			if generatedValue(v, 16) {
				emit(j, e, "url-secret")
			}
		}
	}
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return v != ""
}

// ---- messaging SDKs

// (past common first trigrams: "mes", "man", "cli", "ser", "uti", "rat",
// and past every substring of "service", which a secret-dense text holds
// every hundred bytes
// start thousands of words; the name is read back from the hit)
var sdkAnchors = []string{`("AC`, `('AC`, `("MA`, `('MA`, `("SA`, `('SA`, "bird.client(", "rill.mandrill(", ".run(\"", ".run('",
	"rverclient(", "g_key", "e_key", "n_key", "[api]"}

// findSDKKeys: a messaging SDK's credentials given as literals.
func findSDKKeys(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		a := lowerASCII(text[p : p+int(h.alen)])
		switch {
		case a[0] == '(':
			// Client("AC…", "token"): the secret after an account id
			s, e := literalAt(text, p+1)
			if s < 0 || !accountID(text[s:e]) {
				continue
			}
			j := skipBlanks(text, e+1)
			if j >= len(text) || text[j] != ',' {
				continue
			}
			if s2, e2 := literalAt(text, skipBlanks(text, j+1)); s2 >= 0 && generatedValue(text[s2:e2], 16) {
				emit(s2, e2, "generic-api-key")
			}
		case strings.HasPrefix(a, ".run("):
			// discord.py's client.run("…"), bot.run('…')
			l, _ := identBefore(text, p)
			if recv := lowerASCII(text[l:p]); !strings.HasSuffix(recv, "client") && !strings.HasSuffix(recv, "bot") {
				continue
			}
			if s, e := literalAt(text, p+len(a)-1); s >= 0 && generatedValue(text[s:e], 20) {
				emit(s, e, "generic-api-key")
			}
		case strings.HasSuffix(a, "("):
			if s, e := literalAt(text, skipBlanks(text, p+len(a))); s >= 0 && generatedValue(text[s:e], 20) {
				emit(s, e, "generic-api-key")
			}
		case a == "[api]":
			// zuliprc: [api] email=… key=… site=…
			for i, n := p+len(a), 0; i < len(text) && n < 8; n++ {
				_, le := lineBounds(text, i)
				line := text[i:le]
				if strings.HasPrefix(line, "[") && n > 0 {
					break
				}
				if k := strings.IndexByte(line, '='); k > 0 {
					name := strings.TrimSpace(line[:k])
					if name == "key" || name == "api_key" || name == "token" {
						s := i + k + 1
						s = skipBlanks(text, s)
						if v := text[s:le]; generatedValue(strings.TrimSpace(v), 20) {
							emit(s, s+len(strings.TrimSpace(v)), "generic-api-key")
						}
					}
				}
				i = le + 1
			}
		default:
			// routing_key, service_key, integration_key: PagerDuty's 32
			// characters (an AMQP routing key is words and dots)
			r := p + len(a)
			if r < len(text) && isIdentByte(text[r]) {
				continue
			}
			l, _ := identBefore(text, p)
			var arr [12]string
			w := appendWords(arr[:0], text[l:r])
			if len(w) < 2 || w[len(w)-1] != "key" || !pagerDutyKey[w[len(w)-2]] {
				continue
			}
			j := r
			for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == ' ' || text[j] == ':' || text[j] == '=') {
				j++
			}
			if j == r {
				continue
			}
			e := j
			for e < len(text) && isAlnum(text[e]) {
				e++
			}
			if v := text[j:e]; len(v) == 32 && (e == len(text) || !isTokenByte(text[e])) && randomShape(v, 3.0, 2) {
				emit(j, e, "generic-api-key")
			}
		}
	}
}

// pagerDutyKey: the word before "key" in the names PagerDuty's
// integration keys go by (Events API v2 routing_key, v1 service_key).
var pagerDutyKey = map[string]bool{"routing": true, "service": true, "integration": true}

// accountID: the account or auth id a messaging SDK takes before its
// secret (Twilio AC/SA + 32 hex, Plivo MA/SA + 18 upper-case characters).
func accountID(v string) bool {
	if len(v) == 34 && (strings.HasPrefix(v, "AC") || strings.HasPrefix(v, "SA")) && allHex(v[2:]) {
		return true
	}
	if len(v) == 20 && (strings.HasPrefix(v, "MA") || strings.HasPrefix(v, "SA")) {
		for i := 2; i < len(v); i++ {
			if !isUpper(v[i]) && !isDigit(v[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// ---- mail clients

// (past common first trigrams: "wit", "rem", "loc"; a password's name
// on its own word, whose trigram the keyword rules let through already)
var mailAnchors = []string{"]:587", "]:465", "]:25 ", "]:25\t", "]:2525", "h password ", "motepass", "alpass", "\npassword ", "\npassword\t",
	`password = "`, `password="`, `password: "`, `password = '`, `password='`, `password: '`}

// findMailPasswords: the password of a mail client's configuration.
func findMailPasswords(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		a := lowerASCII(text[p : p+int(h.alen)])
		switch {
		case a[0] == ']':
			// postfix sasl_passwd: [smtp.host]:587 user:password
			_, le := lineBounds(text, p)
			j := skipBlanks(text, p+len(strings.TrimRight(a, " \t")))
			k := strings.IndexByte(text[j:le], ':')
			if j == p+len(strings.TrimRight(a, " \t")) || k <= 0 {
				continue
			}
			s, e := j+k+1, le
			for e > s && isSpace(text[e-1]) {
				e--
			}
			if v := text[s:e]; appPassword(v) || plausibleValue(v, kindPassword, false) {
				emit(s, e, "generic-password")
			}
		case a == "h password ":
			// fetchmail: … there with password "…" is …
			j := p + len(a)
			s, e := literalAt(text, j)
			if s < 0 {
				s, e = j, j
				for e < len(text) && !isSpace(text[e]) {
					e++
				}
			}
			if plausibleValue(text[s:e], kindPassword, true) {
				emit(s, e, "generic-password")
			}
		case a == "motepass" || a == "alpass":
			// offlineimap: remotepass = … (not remotepasseval, remotepassfile)
			j := p + len(a)
			l, _ := identBefore(text, p)
			if n := lowerASCII(text[l:j]); n != "remotepass" && n != "localpass" || j < len(text) && isIdentByte(text[j]) {
				continue
			}
			j = skipBlanks(text, j)
			if j >= len(text) || text[j] != '=' && text[j] != ':' {
				continue
			}
			s, e, quoted := directiveValue(text, j+1)
			if s >= 0 && plausibleValue(text[s:e], kindPassword, quoted) {
				emit(s, e, "generic-password")
			}
		case strings.HasPrefix(a, "\npassword"):
			// msmtprc, netrc-like files: a line `password VALUE`
			s, e, quoted := directiveValue(text, p+len("\npassword"))
			if s >= 0 {
				if v := text[s:e]; classOf(v).kinds() >= 3 && plausibleValue(v, kindPassword, quoted) {
					emit(s, e, "generic-password")
				}
			}
		default:
			// a Google app password under a password's name: four groups of
			// four lower-case letters (the plain rules turn down blanks)
			s, e := literalAt(text, p+len(a)-1)
			if s >= 0 && appPassword(text[s:e]) {
				emit(s, e, "generic-password")
			}
		}
	}
}

// appPassword: Google's app password, 16 lower-case letters, shown in
// four groups of four.
func appPassword(v string) bool {
	if len(v) == 19 {
		if v[4] != ' ' || v[9] != ' ' || v[14] != ' ' {
			return false
		}
		v = v[:4] + v[5:9] + v[10:14] + v[15:]
	}
	if len(v) != 16 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isLower(v[i]) {
			return false
		}
	}
	return entropy(v) >= 2.7
}

// ---- names in other languages

// foreignWords: a secret's name in other languages, and the short names
// only a sigil or a quote makes a password's ($pwd, cred).
var foreignWords = map[string]int{
	"clave": kindAPIKey, "chiave": kindAPIKey, "schluessel": kindAPIKey,
	"segreta": kindSecret, "segreto": kindSecret, "geheim": kindSecret, "segredo": kindSecret,
	"contrasena": kindPassword, "contrasenya": kindPassword, "passe": kindPassword, "motdepasse": kindPassword, "kennwort": kindPassword,
	"senha": kindPassword, "wachtwoord": kindPassword, "haslo": kindPassword, "parola": kindPassword, "parol": kindPassword,
	"losenord": kindPassword, "salasana": kindPassword, "sifre": kindPassword, "pwd": kindPassword, "cred": kindPassword,
}

// (anchored past common first trigrams: "con", "cla", "cha", "par",
// "has", "sen", "ken" start thousands of words; the name is read back
// from the hit)
var foreignNameAnchors = []string{"lave_", "laveapi", "lave=", "lave:", "lave =", "hiave", "hluessel", "egreta", "egreto", "geheim", "egredo",
	"ntrasen", "de_passe", "tdepasse", "nnwort", "enha", "chtwoord", "aslo", "arola", "enord", "asana", "ifre",
	"$pwd", "cred =", "cred=", "cred:"}

// findForeignNames: an assignment whose name is a secret's in another
// language; the value must pass the keyword rules' checks.
func findForeignNames(text string, hits []hit, emit func(s, e int, id string)) {
	lastEnd := -1
	for _, h := range hits {
		p := int(h.pos)
		if p < lastEnd {
			continue
		}
		l, r := p, p
		if text[l] == '$' {
			l++
			r++
		}
		l, r = identAround(text, l, r)
		lastEnd = r
		ident := text[l:r]
		var arr [12]string
		words := appendWords(arr[:0], ident)
		kind := -1
		for _, w := range words {
			if k, ok := foreignWords[w]; ok {
				kind = k
			}
		}
		if kind < 0 || len(words) == 0 {
			continue
		}
		if last := words[len(words)-1]; (last == "pwd" || last == "cred") && len(words) == 1 && (l == 0 || text[l-1] != '$') && !hasPrefixFold(text[r:], " = \"") && !hasPrefixFold(text[r:], " = '") {
			continue // pwd (the shell's), cred = f(…)
		}
		s, e, quoted, prose := parseValue(text, l, r, ident, kind)
		if s < 0 || prose {
			continue
		}
		v := text[s:e]
		if kind == kindAPIKey && !generatedValue(v, 16) {
			continue // clave_primaria, chave estrangeira: words
		}
		if plausibleValue(v, kind, quoted) {
			emit(s, e, assignmentIDs[kind])
			lastEnd = e
		}
	}
}

// ---- literals converted where they are assigned

// conversionAnchors: the calls that turn a literal into bytes or a
// string type (Go []byte, C# GetBytes, Java new String/getBytes, Rust
// String::from, Node Buffer.from, pydantic SecretStr).
// (past common first trigrams: "get", "new", "str", "buf")
var conversionAnchors = []string{`[]byte("`, "tbytes(\"", "w string(\"", "g::from(\"", "r.from(\"", "r.from('",
	"secretstr(\"", "secretstr('", "secretstring::new(\"", "secret::new(\""}

// findConvertedLiterals: NAME = conversion("…"): the literal is NAME's
// value. When the conversion is itself an argument (new
// SymmetricSecurityKey(Encoding.UTF8.GetBytes("…"))), the call that takes
// it names it.
func findConvertedLiterals(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		s, e := literalAt(text, p+int(h.alen)-1)
		if s < 0 {
			continue
		}
		// back over the callee (Encoding.UTF8., new ) to the separator
		b := p
		for b > 0 && (isIdentByte(text[b-1]) || text[b-1] == ':') {
			b--
		}
		if hasPrefixFold(text[max(0, b-4):], "new ") {
			b = max(0, b-4)
		}
		b = skipBackBlanks(text, b)
		var name string
		switch {
		case b > 0 && text[b-1] == '(':
			// the constructor of a key type: SymmetricSecurityKey, HmacKey
			l, r := identBefore(text, b-1)
			var arr [12]string
			if w := appendWords(arr[:0], text[l:r]); len(w) > 0 && (w[len(w)-1] == "key" || w[len(w)-1] == "secret") {
				name = "secret"
			}
		case b >= 2 && text[b-2:b] == ":=", b > 0 && (text[b-1] == '=' || text[b-1] == ':'):
			if text[b-1] == '=' && b >= 2 && text[b-2] == ':' {
				b--
			}
			r := skipBackBlanks(text, b-1)
			l, _ := identBefore(text, r)
			name = text[l:r]
		}
		kind, ok := classifyIdent(name)
		if !ok {
			continue
		}
		if v := text[s:e]; plausibleValue(v, kind, true) && !strings.ContainsAny(v, " \t") {
			emit(s, e, assignmentIDs[kind])
		}
	}
}

// ---- secrets stored from standard input

// secretStoreAnchors: the commands that store a secret they read from
// their standard input (docker secret create NAME -, gh secret set NAME,
// gcloud secrets create|versions add NAME --data-file=-, vercel env add,
// wrangler secret put, supabase secrets set). (vercel's "env add" is
// anchored past "env", which every environment variable starts.)
var secretStoreAnchors = []string{"secret create ", "secret set ", "secrets versions add ", "secrets create ", "v add ", "secret put ", "secrets set "}

// findStoredFromStdin: on a secret store's command line, the literal it is
// fed: `echo "…" |` or `printf '%s' '…' |` before it, `<<< "…"` after it.
func findStoredFromStdin(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		ls, le := lineBounds(text, p)
		s, e := -1, -1
		if k := strings.Index(text[p:le], "<<<"); k >= 0 {
			j := skipBlanks(text, p+k+3)
			if s, e = literalAt(text, j); s < 0 {
				s, e = j, j
				for e < le && !isSpace(text[e]) {
					e++
				}
			}
		} else if k := strings.LastIndexByte(text[ls:p], '|'); k >= 0 {
			pre := text[ls : ls+k]
			for _, cmd := range []string{"echo -n ", "echo ", "printf '%s' ", `printf "%s" `, "printf "} {
				if c := strings.LastIndex(pre, cmd); c >= 0 {
					j := skipBlanks(text, ls+c+len(cmd))
					if s, e = literalAt(text, j); s < 0 {
						s, e = j, j
						for e < ls+k && !isSpace(text[e]) {
							e++
						}
					}
					break
				}
			}
		}
		if s >= 0 && e > s {
			if v := text[s:e]; !strings.ContainsAny(v, " \t") && plausibleValue(v, kindSecret, true) {
				emit(s, e, "generic-secret")
			}
		}
	}
}

// ---- values a CI log declares secret

// ciMaskAnchors: the workflow commands that declare a value secret or set
// a named one: GitHub Actions' ::add-mask::VALUE and ::set-output
// name=NAME::VALUE (::set-env), Azure Pipelines' ##vso[task.setvariable
// variable=NAME;issecret=true]VALUE.
// (issecret=true] anchored past "iss", which every issue starts)
var ciMaskAnchors = []string{"::add-mask::", "::set-output name=", "::set-env name=", "=true]"}

// findCIMaskedValues: the value such a command is given, to the end of
// its line: any value after add-mask or issecret=true (the command says
// it is secret), a plausible one after a name that names a secret.
func findCIMaskedValues(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p := int(h.pos)
		a := text[p : p+int(h.alen)]
		_, le := lineBounds(text, p)
		s, id := p+len(a), "generic-secret"
		if a == "=true]" && (p < 8 || text[p-8:p] != "issecret") {
			continue
		}
		if strings.HasPrefix(a, "::set-") {
			k := strings.Index(text[s:le], "::")
			if k <= 0 {
				continue
			}
			kind, ok := classifyIdent(text[s : s+k])
			if !ok {
				continue
			}
			s, id = s+k+2, assignmentIDs[kind]
		}
		e := s
		for e < le && !isSpace(text[e]) && text[e] != '"' && text[e] != '\'' {
			e++
		}
		if v := text[s:e]; len(v) >= 6 && !strings.ContainsAny(v[:1], "$%{<") && !emptyPlaceholder(v) && !hasPlaceholderPart(v) && !isPlaceholderWord(v) {
			emit(s, e, id)
		}
	}
}

// ---- checks used by rules elsewhere

// signatureDigest: a signature header's value, an HMAC digest of the
// payload tagged with its scheme (X-Hub-Signature-256: sha256=…,
// X-Slack-Signature: v0=…, Stripe-Signature: t=…,v1=…): not a key.
func signatureDigest(v string) bool {
	k := strings.IndexByte(v, '=')
	if k <= 0 || k > 8 {
		return false
	}
	switch lowerASCII(v[:k]) {
	case "sha1", "sha256", "sha512", "v0", "v1", "t":
	default:
		return false
	}
	d := v[k+1:]
	if c := strings.IndexByte(d, ','); c >= 0 && isFold(v[:k], "t") {
		d = d[c+1:]
		if j := strings.IndexByte(d, '='); j > 0 {
			d = d[j+1:]
		}
	}
	return len(d) >= 32 && allHex(d)
}

// publicName: an identifier that names a public value (DISCORD_PUBLIC_KEY,
// publicKey, pubkey, STRIPE_PUBLISHABLE_KEY): what follows is meant to be
// shown.
func publicName(ident string) bool {
	var arr [12]string
	for _, w := range appendWords(arr[:0], ident) {
		if w == "public" || w == "pub" || w == "pubkey" || w == "publickey" || w == "publishable" {
			return true
		}
	}
	return false
}

// sequentialValue: a documented example made of ascending runs
// (abcdef.0123456789abcdef, kubeadm's; 0123456789abcdef): at least 16
// characters that start with a run of three, three quarters of the
// neighbours one apart. (plausibleValue asks it of every value: the
// first three characters turn nearly every other value down at once.)
func sequentialValue(v string) bool {
	if len(v) < 16 || v[1] != v[0]+1 || v[2] != v[1]+1 {
		return false
	}
	n, seq := 0, 0
	for i := 1; i < len(v); i++ {
		if !isAlnum(v[i]) || !isAlnum(v[i-1]) {
			continue
		}
		n++
		if v[i] == v[i-1]+1 {
			seq++
		}
	}
	return n > 0 && seq*4 >= n*3
}

// slashLedKey: a value that starts with '/' is a path, unless it is a
// random base64 key whose first character happens to be '/'
// (/Kn6wEz354DvN129gQMc5w…, a Phoenix secret_key_base): no other
// segment, three kinds of characters, high entropy.
func slashLedKey(v string) bool {
	if len(v) < 24 || strings.Count(v, "/") > 2 || strings.Contains(v, "//") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isB64(v[i]) && v[i] != '=' {
			return false
		}
	}
	return classOf(v).kinds() >= 3 && entropy(v) >= 4.2
}
