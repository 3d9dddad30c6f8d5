package redact

import (
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Rules that generalize, ninth round (issue 31): observability and
// analytics, connection strings and key material, each written as one
// principle per class (dev set testdata/dev-obsconn.txt):
//
//   - a vendor names its credential with a word the keyword rules do not
//     read as a secret's name (Honeycomb's x-honeycomb-team header and
//     libhoney's writekey, Matomo's token_auth, Flagsmith's server-side
//     environment key, sssd's ldap_default_authtok, Elastic's cloud.auth
//     user:password, Neo4j's NEO4J_AUTH user/password, an Uptrace DSN's
//     token): the names are data (vendorCredNames), with what the value
//     must start with when the vendor documents a public sibling
//     (Flagsmith's client keys) and the vendor's name that must be near
//     when the word is shared (Segment's write keys are public)
//     (findVendorCredNames);
//   - an ingest URL whose path segment is the credential: Loggly's
//     /inputs/TOKEN, Sumo Logic's /receiver/v1/http/TOKEN, and Loggly's
//     syslog structured data TOKEN@41058 (its private enterprise number)
//     (findIngestURLs);
//   - a user and password written as a pair in a form no URL reader sees:
//     the Go MySQL driver's user:pass@tcp(…)/db, Oracle's user/pass@tns in
//     a jdbc:oracle:thin: URL, an HTTP Basic header percent-encoded in
//     OTEL_EXPORTER_OTLP_HEADERS (Authorization=Basic%20…)
//     (findCredentialPairs);
//   - a connection string's password keyword (ADO.NET, ODBC, OLE DB:
//     ;Password=…; ;Pwd=…;) holds a literal: no variable's name is ever
//     written there, so a value shaped like one (hXliJFeSztxuSOdz) is the
//     password (findConnKeywordPasswords);
//   - a driver's constructor given the password as a positional literal
//     (new PDO(dsn, user, pass), new Sequelize(db, user, pass), mysqli,
//     pymysql/MySQLdb.connect(host, user, pass)) and Neo4j's cypher-shell
//     -p (findDriverArgs);
//   - key material named by its role rather than by a container: a key
//     seed (ED25519_SEED, signing_key_seed, fromSeed("…")) of 32 bytes in
//     hex or base64, and a WireGuard private key piped to `wg pubkey`
//     (findKeySeeds).
//
// Hooked into the core by builtinRules (rules.go); every rule is gated by
// literal anchors, and the name is read back from the hit.
func obsconnRules() []*Rule {
	return []*Rule{
		{ID: "generic-api-key", Anchors: vendorCredAnchors, Fold: true, Priority: prioContext,
			find: findVendorCredNames, emits: []string{"generic-api-key", "generic-password"}},
		{ID: "url-secret", Anchors: ingestURLAnchors, Fold: true, Priority: prioContext,
			find: findIngestURLs, emits: []string{"url-secret"}},
		{ID: "generic-password", Anchors: credPairAnchors, Fold: true, Priority: prioContext,
			find: findCredentialPairs, emits: []string{"generic-password"}},
		{ID: "generic-password", Anchors: driverCallAnchors, Fold: true, Priority: prioContext,
			find: findDriverArgs, emits: []string{"generic-password"}},
		{ID: "generic-password", Anchors: connKeywordAnchors, Fold: true, Priority: prioContext,
			find: findConnKeywordPasswords, emits: []string{"generic-password"}},
		{ID: "private-key", Anchors: keySeedAnchors, Fold: true, Priority: prioContext,
			find: findKeySeeds, emits: []string{"private-key"}},
	}
}

// ---- vendors' own names for a credential

// vendorCredNames: the names (lower case) vendors give a credential that
// the keyword rules do not read as a secret's name. pair: the value is
// user<pair>password and the password is the secret; dsn: the value is a
// URL whose user part is the token; password: the value may be a
// person's password; prefix: the value must start so
// (the vendor has a public key of the same name); near: a word that must
// occur in the 300 bytes before (the name is shared with a vendor whose
// key is public).
var vendorCredNames = []struct {
	name, prefix, near string
	pair               byte
	dsn, password      bool // password: a person's password, not a generated key
}{
	{name: "x-honeycomb-team"},                 // Honeycomb's API key header (OTLP exporters)
	{name: "writekey", near: "honeycomb"},      // libhoney; Segment's writeKey is public in a browser
	{name: "token_auth"},                       // Matomo's API token (query and config)
	{name: "environment_key", prefix: "ser."},  // Flagsmith server-side key; client keys are public
	{name: "environmentkey", prefix: "ser."},   // the same, camelCase
	{name: "authtok", password: true},          // sssd's ldap_default_authtok
	{name: "cloud_auth", pair: ':'},            // Elastic Cloud (Beats, fluent-bit): user:password
	{name: "cloud.auth", pair: ':'},            // the same in filebeat.yml
	{name: "neo4j_auth", pair: '/'},            // the Neo4j image: user/password
	{name: "uptrace-dsn", dsn: true},           // https://TOKEN@api.uptrace.dev
	{name: "uptrace_dsn", dsn: true},           // the same as a variable
	{name: "sentry_dsn", dsn: true, pair: ':'}, // legacy DSN https://public:SECRET@host/1
	{name: "signoz-access-token"},              // SigNoz's ingestion header (older name)
	{name: "x-sf-token"},                       // Splunk Observability (SignalFx) access token header
}

var vendorCredAnchors = func() (a []string) {
	for _, n := range vendorCredNames {
		a = append(a, n.name)
	}
	return a
}()

// credValueAfter reads the value after a name that ends at r: an optional
// closing quote, blanks, a separator (=, :, =>) or blanks alone (fluent-bit,
// Apache-like configs), blanks, an optional quote; the value runs to a
// quote, a blank or a delimiter of the form around it.
func credValueAfter(text string, r int) (int, int) {
	j := r
	if j < len(text) && (text[j] == '"' || text[j] == '\'') {
		j++
	}
	k := j
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	switch {
	case strings.HasPrefix(text[k:], "=>"):
		k += 2
	case k < len(text) && (text[k] == '=' || text[k] == ':'):
		k++
	case k == j:
		return -1, -1 // no separator and no blank: part of a longer word
	}
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	q := byte(0)
	if k < len(text) && (text[k] == '"' || text[k] == '\'' || text[k] == '`') {
		q = text[k]
		k++
	}
	e := k
	for e < len(text) && e-k < 600 {
		c := text[e]
		if c == q || c == '\n' || c == '\r' || q == 0 && (c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ',' || c == ';' || c == '&' || c == '}' || c == ')') {
			break
		}
		e++
	}
	if e == k {
		return -1, -1
	}
	return k, e
}

// referenceOrEmpty: a value that stands for another one ($VAR, ${…},
// <…>, {{…}}, %s) or says nothing.
func referenceOrEmpty(v string) bool {
	return v == "" || strings.ContainsAny(v[:1], "$%{<[(") || emptyPlaceholder(v) || hasPlaceholderPart(v) || isPlaceholderWord(v) || isEnvName(v)
}

func findVendorCredNames(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, r := int(h.pos), int(h.pos+h.alen)
		if p > 0 && isAlnum(text[p-1]) || r < len(text) && isIdentByte(text[r]) {
			continue
		}
		a := lowerASCII(text[p:r])
		for _, n := range vendorCredNames {
			if n.name != a {
				continue
			}
			if n.near != "" && !strings.Contains(lowerASCII(text[max(0, p-300):p]), n.near) {
				break
			}
			s, e := credValueAfter(text, r)
			if s < 0 {
				break
			}
			v := text[s:e]
			switch {
			case n.dsn:
				// scheme://TOKEN[:SECRET]@host
				i := strings.Index(v, "://")
				at := strings.LastIndexByte(v, '@')
				if i < 0 || at < i+3 {
					break
				}
				u := v[i+3 : at]
				if c := strings.IndexByte(u, n.pair); n.pair != 0 && c >= 0 {
					if generatedValue(u[c+1:], 16) {
						emit(s+i+3+c+1, s+at, "generic-api-key")
					}
				} else if n.pair == 0 && generatedValue(u, 16) {
					emit(s+i+3, s+at, "generic-api-key")
				}
			case n.pair != 0:
				c := strings.IndexByte(v, n.pair)
				if c <= 0 || c == len(v)-1 || referenceOrEmpty(v[c+1:]) {
					break
				}
				if plausibleValue(v[c+1:], kindPassword, true) {
					emit(s+c+1, e, "generic-password")
				}
			default:
				if !strings.HasPrefix(v, n.prefix) {
					break
				}
				// past a documented prefix the rest need only look random
				if n.password {
					if !referenceOrEmpty(v) && plausibleValue(v, kindPassword, true) {
						emit(s, e, "generic-password")
					}
				} else if rest := v[len(n.prefix):]; n.prefix != "" && len(rest) >= 16 && randomShape(rest, 3.0, 2) && !referenceOrEmpty(rest) ||
					generatedValue(v, 16) || chain.IsUUID(v) {
					emit(s, e, "generic-api-key")
				}
			}
			break
		}
	}
}

// ---- ingest URLs

// ingestURLs: a path (or structured-data suffix) whose neighbouring
// segment is an ingest token, and the word the URL's host must hold.
var ingestURLs = []struct{ anchor, host string }{
	{"/inputs/", "loggly"},              // https://logs-01.loggly.com/inputs/TOKEN/tag/…
	{"/bulk/", "loggly"},                // https://logs-01.loggly.com/bulk/TOKEN/tag/…
	{"/receiver/v1/http/", "sumologic"}, // Sumo Logic HTTP source
	{"/receiver/v1/otlp/", "sumologic"}, // Sumo Logic OTLP source
	{"@41058", ""},                      // Loggly's syslog structured data [TOKEN@41058 …]
}

var ingestURLAnchors = func() (a []string) {
	for _, u := range ingestURLs {
		a = append(a, u.anchor)
	}
	return a
}()

func findIngestURLs(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, r := int(h.pos), int(h.pos+h.alen)
		a := lowerASCII(text[p:r])
		if a == "@41058" {
			s := p
			for s > 0 && (isAlnum(text[s-1]) || text[s-1] == '-') {
				s--
			}
			if s > 0 && text[s-1] == '[' && (chain.IsUUID(text[s:p]) || generatedValue(text[s:p], 20)) {
				emit(s, p, "url-secret")
			}
			continue
		}
		host := ""
		for _, u := range ingestURLs {
			if u.anchor == a {
				host = u.host
			}
		}
		// the host: back to "://" on the same URL
		b := strings.LastIndex(text[max(0, p-120):p], "://")
		if b < 0 || !strings.Contains(lowerASCII(text[max(0, p-120)+b:p]), host) {
			continue
		}
		e := r
		for e < len(text) && (isTokenByte(text[e]) || text[e] == '=') {
			e++
		}
		if v := text[r:e]; chain.IsUUID(v) || generatedValue(v, 20) {
			emit(r, e, "url-secret")
		}
	}
}

// ---- user and password as a pair

var credPairAnchors = []string{"@tcp(", "@unix(", "oracle:thin:", "basic%20"}

func findCredentialPairs(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, r := int(h.pos), int(h.pos+h.alen)
		switch lowerASCII(text[p:r]) {
		case "@tcp(", "@unix(":
			// [user[:password]@]tcp(address)/db: the user ends at the first
			// colon, the password runs to the last @
			s := p
			for s > 0 && !strings.ContainsRune("\"'` \t\n=", rune(text[s-1])) {
				s--
			}
			c := strings.IndexByte(text[s:p], ':')
			if c <= 0 {
				continue
			}
			if pw := text[s+c+1 : p]; !referenceOrEmpty(pw) && plausibleValue(pw, kindPassword, true) {
				emit(s+c+1, p, "generic-password")
			}
		case "oracle:thin:":
			// jdbc:oracle:thin:user/password@//host:port/service
			at := r
			for at < len(text) && at-r < 200 && text[at] != '@' && !isSpace(text[at]) && text[at] != '"' && text[at] != '\'' {
				at++
			}
			if at >= len(text) || text[at] != '@' {
				continue
			}
			sl := strings.IndexByte(text[r:at], '/')
			if sl <= 0 {
				continue
			}
			if pw := text[r+sl+1 : at]; !referenceOrEmpty(pw) && plausibleValue(pw, kindPassword, true) {
				emit(r+sl+1, at, "generic-password")
			}
		case "basic%20":
			// Authorization=Basic%20BASE64 (OTEL_EXPORTER_OTLP_HEADERS)
			e := r
			for e < len(text) && isB64(text[e]) {
				e++
			}
			for e < len(text) && text[e] == '=' {
				e++
			}
			if e-r >= 8 && checkBasic(text, r, e) {
				emit(r, e, "generic-password")
			}
		}
	}
}

// ---- drivers' positional passwords

// driverCalls: calls whose arguments are positional and the index (from
// 0) of the password among them.
var driverCalls = []struct {
	call string
	arg  int
}{
	{"new pdo(", 2},            // PHP: new PDO($dsn, $user, $password)
	{"new sequelize(", 2},      // Sequelize(database, username, password, options)
	{"new mysqli(", 2},         // mysqli(host, user, password, db)
	{"mysqli_connect(", 2},     // the same, procedural
	{"mysql_connect(", 2},      // PHP's old API
	{"pymysql.connect(", 2},    // pymysql.connect(host, user, password, db)
	{"mysqldb.connect(", 2},    // MySQLdb.connect(host, user, passwd, db)
	{"pg_connect(", -1},        // (a libpq string: read by the keyword rules)
	{"cypher-shell ", -2},      // -p PASSWORD / --password PASSWORD
	{"neo4j-admin ", -2},       // the same flags
	{"clickhouse-client ", -2}, // --password PASSWORD
}

var driverCallAnchors = func() (a []string) {
	for _, d := range driverCalls {
		if d.arg != -1 {
			a = append(a, d.call)
		}
	}
	return a
}()

// callArgs: the spans of a call's arguments from text[j] (just past the
// open parenthesis), a literal's contents for a literal argument and -1
// start for another expression; up to n of them.
func callArgs(text string, j, n int) (spans [][2]int) {
	for len(spans) < n && j < len(text) {
		j = skipBlanks(text, j)
		if j >= len(text) || text[j] == ')' {
			break
		}
		if s, e := literalAt(text, j); s >= 0 {
			spans = append(spans, [2]int{s, e})
			j = e + 1
		} else {
			spans = append(spans, [2]int{-1, -1})
			depth := 0
			for j < len(text) && (depth > 0 || text[j] != ',' && text[j] != ')') {
				switch text[j] {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				case '\n':
					return spans
				}
				j++
			}
		}
		j = skipBlanks(text, j)
		if j >= len(text) || text[j] != ',' {
			break
		}
		j++
	}
	return spans
}

func findDriverArgs(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, r := int(h.pos), int(h.pos+h.alen)
		if p > 0 && isIdentByte(text[p-1]) && text[p-1] != '.' {
			continue
		}
		a := lowerASCII(text[p:r])
		for _, d := range driverCalls {
			if d.call != a {
				continue
			}
			if d.arg == -2 {
				// a flag on the same line
				_, le := lineBounds(text, p)
				line := text[r:le]
				for _, f := range []string{" -p ", " --password ", " --password="} {
					i := strings.Index(line, f)
					if i < 0 {
						continue
					}
					s := r + i + len(f)
					if s < len(text) && (text[s] == '"' || text[s] == '\'') {
						s++
					}
					e := s
					for e < le && !isSpace(text[e]) && text[e] != '"' && text[e] != '\'' {
						e++
					}
					if pw := text[s:e]; !referenceOrEmpty(pw) && pw[0] != '-' && plausibleValue(pw, kindPassword, true) {
						emit(s, e, "generic-password")
					}
					break
				}
				break
			}
			args := callArgs(text, r, d.arg+1)
			if len(args) <= d.arg || args[d.arg][0] < 0 {
				break
			}
			s, e := args[d.arg][0], args[d.arg][1]
			if pw := text[s:e]; !referenceOrEmpty(pw) && plausibleValue(pw, kindPassword, true) {
				emit(s, e, "generic-password")
			}
			break
		}
	}
}

// ---- key material by its role

var keySeedAnchors = []string{"seed", "wg pubkey"}

// keyBytes32: 32 bytes written as 64 hex digits or 43/44 base64
// characters, random-looking.
func keyBytes32(v string) bool {
	switch len(v) {
	case 64:
		return allHex(v) && entropy(v) >= 3.5 && !emptyPlaceholder(v)
	case 43, 44:
		if len(v) == 44 && v[43] != '=' {
			return false
		}
		for i := 0; i < 43; i++ {
			if !isB64(v[i]) && v[i] != '-' && v[i] != '_' {
				return false
			}
		}
		return randomShape(v[:43], 4.0, 3)
	}
	return false
}

func findKeySeeds(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		p, r := int(h.pos), int(h.pos+h.alen)
		if isFold(text[p:r], "wg pubkey") {
			// echo 'KEY' | wg pubkey: the literal before the pipe
			ls, _ := lineBounds(text, p)
			bar := strings.LastIndexByte(text[ls:p], '|')
			if bar < 0 {
				continue
			}
			e := skipBackBlanks(text, ls+bar)
			if e > ls && (text[e-1] == '\'' || text[e-1] == '"') {
				e--
			}
			s := e
			for s > ls && (isB64(text[s-1]) || text[s-1] == '=') {
				s--
			}
			if keyBytes32(text[s:e]) {
				emit(s, e, "private-key")
			}
			continue
		}
		// a name whose last word is seed (ED25519_SEED, signing_key_seed,
		// privateSeed), or a fromSeed(…) call
		_, ir := identAround(text, p, r)
		if ir != r {
			// seed is not the last word: fromSeed(, seed_hex, seedHex
			tail := lowerASCII(text[r:ir])
			if tail != "_hex" && tail != "hex" && tail != "_b64" && tail != "_base64" {
				continue
			}
		}
		var s, e int
		if ir < len(text) && text[ir] == '(' {
			// fromSeed(Buffer.from("…", "hex")) / from_seed(bytes.fromhex("…"))
			j := ir + 1
			k := j
			for k < len(text) && k-j < 60 && text[k] != '"' && text[k] != '\'' && text[k] != ')' && text[k] != '\n' {
				k++
			}
			if s, e = literalAt(text, k); s < 0 {
				continue
			}
		} else if s, e = credValueAfter(text, ir); s < 0 {
			continue
		}
		if keyBytes32(text[s:e]) {
			emit(s, e, "private-key")
		}
	}
}

// ---- connection-string password keywords

// connKeywordAnchors: the password keywords of ADO.NET, ODBC and OLE DB
// connection strings after the ';' that separates them from the previous
// keyword (the first keyword of a string is read by the keyword rules).
var connKeywordAnchors = []string{";password=", ";pwd=", "; password=", "; pwd=", ";database password="}

func findConnKeywordPasswords(text string, hits []hit, emit func(s, e int, id string)) {
	for _, h := range hits {
		s := int(h.pos + h.alen)
		q := byte(0)
		if s < len(text) && (text[s] == '\'' || text[s] == '"') {
			q = text[s]
			s++
		}
		e := s
		for e < len(text) && e-s < 200 && text[e] != ';' && text[e] != '"' && text[e] != '\'' && text[e] != '\\' && !isSpace(text[e]) {
			e++
		}
		if q != 0 && (e >= len(text) || text[e] != q) {
			continue
		}
		v := text[s:e]
		// a literal: not a reference, a mask or a placeholder, and not
		// only letters of one case (a word)
		if len(v) < 8 || referenceOrEmpty(v) || strings.Trim(v, "*") == "" || connPlaceholder(v) {
			continue
		}
		if c := classOf(v); c.kinds() >= 2 && entropy(v) >= 3.0 {
			emit(s, e, "generic-password")
		}
	}
}

// connPlaceholderWords: the words of the passwords drivers' manuals and
// connectionstrings.com print in their examples (myPassword,
// yourStrong(!)Password, Passw0rd, MySecretPwd): a value holding one is an
// example, not a password.
var connPlaceholderWords = []string{"pass", "pwd", "secret", "your", "strong", "change", "example", "sample", "dummy", "test", "demo", "admin", "default"}

func connPlaceholder(v string) bool {
	lv := lowerASCII(v)
	for _, w := range connPlaceholderWords {
		if strings.Contains(lv, w) {
			return true
		}
	}
	// myPassword, myPwd, MyDbPass: "my" and a capital
	return len(v) > 2 && (v[0] == 'm' || v[0] == 'M') && v[1] == 'y' && isUpper(v[2])
}
