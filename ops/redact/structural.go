package redact

import (
	"encoding/base64"
	"regexp"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Structural rules: secrets recognised by the shape of the file or command
// they sit in, whatever the vendor. Each keeps a literal anchor so the
// prefilter stays one pass.
func structuralRules() []*Rule {
	cryptAnchors := []string{"$1$", "$2a$", "$2b$", "$2x$", "$2y$", "$5$", "$6$", "$7$", "$8$", "$9$", "$y$", "$gy$", "$apr1$", "$argon2", "$scrypt$", "$pbkdf2", "$sha1$", "$md5$"}
	return []*Rule{
		// password hashes: crypt(3) and htpasswd formats (shadow, bcrypt, yescrypt, argon2, apr1)
		{ID: "password-hash", Anchors: cryptAnchors, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`\$(?:1|2[abxy]|5|6|7|8|9|y|gy|apr1|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?|sha1|md5)\$[A-Za-z0-9./+=$,-]{16,}`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"{SHA}", "{SSHA}", "{SSHA256}", "{SSHA512}", "{SHA256}", "{SHA512}"}, After: 120, Priority: prioPrefix,
			Re:    regexp.MustCompile(`\{S?SHA(?:256|512)?\}[A-Za-z0-9+/]{20,}={0,2}`),
			Check: checkHash},
		// NTLM dumps (pwdump, secretsdump): user:rid:LM:NT:::
		{ID: "ntlm-hash", Anchors: []string{":::"}, Before: 120, After: 3, Priority: prioPrefix,
			Re:    regexp.MustCompile(`(?m)[^\s:]+:\d+:(?P<s>[a-fA-F0-9]{32}:[a-fA-F0-9]{32}):::`),
			Check: ntlmNotEmpty},
		// .pgpass: host:port:database:user:password
		{ID: "pgpass-password", Anchors: []string{":5432:", ":*:", ":5433:"}, Before: 200, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?m)^[ \t]*[\w.*-]+:(?:\d{2,5}|\*):[\w.*-]+:[\w.*@-]+:(?P<s>[^\s:]\S*)[ \t]*$`),
			Check: pgpassField},
		// .netrc: machine HOST login USER password PASS
		{ID: "netrc-password", Anchors: []string{"machine"}, After: 400, Priority: prioContext,
			Re: regexp.MustCompile(`\bmachine\s+\S+\s+(?:login\s+\S+\s+)?(?:account\s+\S+\s+)?password\s+(?P<s>\S+)`),
			Check: func(text string, s, e int) bool {
				return chain.IsUUID(text[s:e]) || plausibleValue(text[s:e], kindPassword, true)
			}},
		// PsExec -p PASSWORD
		{ID: "psexec-password", Anchors: []string{"psexec"}, Fold: true, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:psexec)(?:64)?(?i:\.exe)?[ \t][^\n|;&]*?[ \t]-p[ \t]+"?(?P<s>[^\s"-][^\s"]*)`),
			Check: checkCLIPassword},
		// a registry login's password: docker/podman/helm/az/oc … login -p X
		{ID: "cli-login-password", Anchors: []string{"login"}, Fold: true, Before: 40, After: 300, Priority: prioContext,
			Re: regexp.MustCompile(`\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm(?:[ \t]+registry)?|az(?:[ \t]+acr)?|oc|cf|kubectl[ \t]+oidc)[ \t]+login\b[^\n|;&]*?[ \t](?:-p|--password|--secret)(?:[ \t]+|=)["']?(?P<s>[^\s"'-][^\s"']*)`),
			Check: func(text string, s, e int) bool {
				return checkCLIPassword(text, s, e) || checkRandom(3.5, 3)(text, s, e)
			}},
		// gh secret set NAME --body VALUE
		{ID: "generic-secret", Anchors: []string{"secret set"}, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`secret set[ \t]+[\w-]+[^\n|;&]*?[ \t](?:-b|--body)(?:[ \t]+|=)["']?(?P<s>[^\s"'-][^\s"']*)`),
			Check: checkCLIPassword},
		// echo X | docker login … --password-stdin
		{ID: "cli-login-password", Anchors: []string{"password-stdin"}, Before: 300, After: 1, Priority: prioContext,
			Re:    regexp.MustCompile(`\becho[ \t]+(?:-n[ \t]+)?["']?(?P<s>[^\s"'$|%]+)["']?[ \t]*\|[^\n|]*\blogin\b[^\n|]*--password-stdin`),
			Check: checkCLIPassword},
		// redis-cli -a PASSWORD
		{ID: "redis-cli-password", Anchors: []string{"redis-cli"}, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`redis-cli\b[^\n|;&]*?[ \t](?:-a|--pass)[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`),
			Check: checkCLIPassword},
		// a session or auth cookie: Cookie: session=…; Set-Cookie: auth_token=…
		{ID: "session-cookie", Anchors: []string{"cookie:"}, Fold: true, After: 600, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:cookie):[ \t]*(?:[^\n;"']*;[ \t]*)*?(?i:[\w.-]*(?:sess|sid|auth|token|jwt|login|remember)[\w.-]*)=(?P<s>[^;\s"'\\,]{16,})`),
			Check: checkSessionCookieValue},
		// a setter named for a secret: setAccessToken("…"), withApiKey('…')
		// (anchored on the name's end: "set" and "with" start too many words)
		{ID: "generic-token", Anchors: []string{"apikey(", "accesstoken(", "authtoken(", "token(", "secret(", "clientsecret(", "password(", "bearertoken(", "apitoken(", "secretkey(", "privatekey(", "authkey("},
			Fold: true, Before: 24, After: 300, Priority: prioGeneric,
			Re:    regexp.MustCompile(`(?i:(?:set|with)(?:api|access|auth|bearer|client|secret|private)?(?:key|token|secret|password))[ \t]*\([ \t]*["'\x60](?P<s>[^"'\x60\n\\]{8,})["'\x60][ \t]*\)`),
			Check: checkValue(kindToken)},
		// Kerberos keytab as base64: file version 0x0502, then an entry length < 64 KiB
		{ID: "kerberos-keytab", Anchors: []string{"BQIAAA"}, After: 200000, Priority: prioPrefix,
			Re:       regexp.MustCompile(`BQIAAA[A-Za-z0-9+/]{54,}={0,2}`),
			Boundary: isB64, Check: checkKeytab},
		// Microsoft Teams connectors on the old outlook.office.com host
		{ID: "microsoft-teams-webhook", Anchors: []string{"outlook.office"}, Before: 10, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`outlook\.office(?:365)?\.com/webhook/(?P<s>[A-Za-z0-9@-]{40,100}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9-]{36})`),
			Boundary: isTokenByte},
		// a PEM private key encoded once more in base64 (Kubernetes secrets, env vars):
		// base64 of "-----BEGIN", checked to decode to a private key header
		tok("private-key-base64", `LS0tLS1CRUdJTi[A-Za-z0-9+/]{60,}={0,2}`, "LS0tLS1CRUdJTi").after(20000).bound(isB64).check(checkB64PEM),
		// TrueNAS JSON-RPC login: "params": ["ID-KEY"] after auth.login_with_api_key
		{ID: "truenas-api-key", Anchors: []string{"login_with_api_key"}, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`login_with_api_key\\?"[\s\S]{0,200}?"params\\?"\s*:\s*\[\s*\\?"(?P<s>[0-9]{1,6}-[A-Za-z0-9]{64})`),
			Check: checkRandom(4.0, 3)},
		// credentials written into code: any literal is the password
		// (a placeholder there is cheap to lose, a real one costly to leak)
		{ID: "code-credentials-password", Anchors: []string{"credentials"}, Fold: true, After: 400, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:credentials)[ \t]*\{(?:\s*//[^\n]*)*\s*(?:username[ \t]*=?[ \t]*['"][^'"\n]*['"](?:\s*//[^\n]*)*\s*)?password[ \t]*=?[ \t]*['"](?P<s>[^'"\n]+)['"]`),
			Check: checkLiteralPassword},
		{ID: "code-credentials-password", Anchors: []string{"NetworkCredential"}, Fold: true, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:NetworkCredential)[ \t]*\(\s*"[^"\n]*"\s*,\s*"(?P<s>[^"\n]+)"`),
			Check: checkLiteralPassword},
		{ID: "code-credentials-password", Anchors: []string{"DirectoryEntry"}, Fold: true, After: 400, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:DirectoryEntry)[ \t]*\(\s*"[^"\n]*"\s*,\s*"[^"\n]*"\s*,\s*"(?P<s>[^"\n]+)"`),
			Check: checkLiteralPassword},
		// Android: buildConfigField "String", "API_KEY", "\"…\""
		{ID: "buildconfig-field-secret", Anchors: []string{"buildConfigField"}, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`buildConfigField[ \t(]*['"]String['"][ \t]*,[ \t]*['"](?P<n>[A-Za-z0-9_]+)['"][ \t]*,[ \t]*['"]\\?"?(?P<s>[^"'\\\s]+)`),
			Check: checkBuildConfig},
		// password hashes by the structure their libraries write, beyond
		// crypt(3): Django (algorithm$iterations$salt$hash), Werkzeug
		// (method$salt$hexhash), phpass/phpBB/WordPress ($P$/$H$ + 31),
		// Drupal 7 ($S$ + 52), passlib ($sha512$rounds$salt$hash),
		// PostgreSQL (SCRAM-SHA-256$iter:salt$stored:server, md5 + 32
		// hex), GRUB (grub.pbkdf2.sha512.iter.salt.hash), MySQL's native
		// hash (* + 40 upper-case hex) and ASP.NET Identity (base64 of
		// version 1 or 0, PRF, iterations, salt length)
		{ID: "password-hash", Anchors: []string{"pbkdf2_sha", "scrypt$", "bcrypt_sha256$"}, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`(?:pbkdf2_sha(?:1|256|512)\$\d{3,8}\$[A-Za-z0-9./+]{4,}\$[A-Za-z0-9+/]{20,}={0,2}|scrypt\$[A-Za-z0-9./+]{4,}\$\d+\$\d+\$\d+\$[A-Za-z0-9+/]{20,}={0,2}|bcrypt_sha256\$\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53})`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"pbkdf2:sha", "scrypt:"}, After: 400, Priority: prioPrefix,
			Re:       regexp.MustCompile(`(?:pbkdf2:sha(?:1|256|512)(?::\d+)?|scrypt:\d+:\d+:\d+)\$[A-Za-z0-9./+]{4,}\$[a-f0-9]{40,}`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"$P$", "$H$", "$S$"}, After: 80, Priority: prioPrefix,
			Re:       regexp.MustCompile(`\$[PH]\$[./A-Za-z0-9]{31}|\$S\$[./A-Za-z0-9]{52,}`),
			Boundary: isB64Word, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"$sha512$", "$sha256$", "$sha1$"}, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`\$sha(?:1|256|512)\$\d+\$[A-Za-z0-9./+]{4,}\$[A-Za-z0-9./+]{20,}={0,2}`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"SCRAM-SHA-256$", "SCRAM-SHA-1$"}, After: 300, Priority: prioPrefix,
			Re:       regexp.MustCompile(`SCRAM-SHA-(?:256|1)\$\d+:[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]+={0,2}`),
			Boundary: isB64Word, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"md5"}, After: 40, Priority: prioPrefix,
			Re:       regexp.MustCompile(`md5[a-f0-9]{32}`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"grub.pbkdf2."}, After: 600, Priority: prioPrefix,
			Re:       regexp.MustCompile(`grub\.pbkdf2\.sha(?:256|512)\.\d+\.[A-F0-9]{32,}\.[A-F0-9]{32,}`),
			Boundary: isAlnum, Check: checkHash},
		{ID: "password-hash", Anchors: []string{"'*", "\"*", "| *"}, After: 45, Priority: prioContext,
			Re:       regexp.MustCompile(`\*(?P<s>[0-9A-F]{40})`),
			Boundary: isAlnum, Check: checkMySQLHash},
		{ID: "password-hash", Anchors: []string{"AQAAAA"}, After: 400, Priority: prioPrefix,
			Re:       regexp.MustCompile(`AQAAAA[EI][A-Za-z0-9+/]{40,}={0,2}`),
			Boundary: isB64, Check: checkASPNetIdentity},
		// SQL statements that set a password: IDENTIFIED BY '…' (MySQL,
		// Oracle), WITH PASSWORD '…' / LOGIN PASSWORD '…' (PostgreSQL),
		// SET PASSWORD FOR u = '…' (MySQL)
		{ID: "sql-password", Anchors: []string{"identified"}, Fold: true, After: 200, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:identified)[ \t]+(?:(?i:with)[ \t]+\w+[ \t]+)?(?i:by|as)[ \t]+(?:(?i:password)[ \t]+)?['"](?P<s>[^'"\n]{4,200})['"]`),
			Check: checkSQLPassword},
		{ID: "sql-password", Anchors: []string{"password '"}, Fold: true, After: 220, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:password) '(?P<s>[^'\n]{4,200})'`),
			Check: checkSQLPassword},
		{ID: "sql-password", Anchors: []string{"set password"}, Fold: true, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:set[ \t]+password)[ \t]+(?i:for)[ \t]+[^=\n]{1,100}=[ \t]*(?:(?i:password)\()?['"](?P<s>[^'"\n]{4,200})['"]`),
			Check: checkSQLPassword},
		// an AWS secret access key right after its key id, whatever names
		// them: minio.New(ep, "AKIA…", "SECRET"), AKIA…:SECRET, the IAM
		// console's credentials CSV (the pair is issued and kept together)
		{ID: "aws-secret-key", Anchors: []string{"AKIA", "ASIA"}, After: 120, Priority: prioContext,
			Re:       regexp.MustCompile(`(?:AKIA|ASIA)[A-Z0-9]{16}["'\x60]?[ \t]*[,:;|= \t][ \t]*["'\x60]?(?P<s>[A-Za-z0-9/+]{40})`),
			Boundary: isB64, Check: checkRandom(4.0, 3), hand: matchAWSPair},
		// Mattermost (and compatible) incoming webhooks: /hooks/ + a 26-character id
		{ID: "mattermost-webhook", Anchors: []string{"/hooks/"}, After: 30, Priority: prioContext,
			Re:       regexp.MustCompile(`/hooks/(?P<s>[a-z0-9]{26})`),
			Boundary: isTokenByte, Check: checkRandom(3.5, 2)},
	}
}

// checkSQLPassword: a password in a statement that creates, alters or
// grants to a user or role (USER, ROLE, LOGIN or GRANT before it on the
// line, or SET PASSWORD), not prose ("the function identified by 'x'").
func checkSQLPassword(text string, s, e int) bool {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	line := strings.ToUpper(text[ls:s])
	if !strings.Contains(line, "USER") && !strings.Contains(line, "ROLE") && !strings.Contains(line, "LOGIN") && !strings.Contains(line, "GRANT") && !strings.Contains(line, "SET PASSWORD") {
		return false
	}
	return checkCLIPassword(text, s, e)
}

// checkMySQLHash: MySQL's native hash, * and the upper-case hex of a
// SHA-1 (not a run of one digit, not all digits).
func checkMySQLHash(text string, s, e int) bool {
	c := classOf(text[s:e])
	return c.upper >= 4 && c.digit >= 4 && entropy(text[s:e]) >= 3.0
}

// checkASPNetIdentity: ASP.NET Core Identity's version-3 hash: 0x01, the
// PRF (0-2), the iteration count, a salt length of 8 to 64 bytes, then
// salt and subkey (RFC 2898).
func checkASPNetIdentity(text string, s, e int) bool {
	n := min(e-s, 24) / 4 * 4
	b, err := base64.StdEncoding.DecodeString(text[s : s+n])
	if err != nil || len(b) < 13 || b[0] != 1 || b[1]|b[2]|b[3] != 0 || b[4] > 2 {
		return false
	}
	salt := int(b[9])<<24 | int(b[10])<<16 | int(b[11])<<8 | int(b[12])
	return salt >= 8 && salt <= 64 && entropy(text[s:e]) >= 4
}

// checkHash: a real hash, not a format example ($6$salt$hash).
func checkHash(text string, s, e int) bool {
	v := text[s:e]
	return !emptyPlaceholder(v) && v[len(v)-1] != '$' && entropy(v) >= 3.5 // $argon2id$v=19$m=65536,t=3,p=4$ is its parameters only
}

// checkCLIPassword: a password given on a command line (-p VALUE): any
// word but a variable, a placeholder or an empty one.
func checkCLIPassword(text string, s, e int) bool {
	v := text[s:e]
	if plausibleValue(v, kindPassword, true) {
		return true
	}
	if len(v) < 5 || emptyPlaceholder(v) || isPlaceholderWord(v) || hasPlaceholderPart(v) || isEnvName(v) || strings.ContainsAny(v[:1], "$%{<[") {
		return false
	}
	return onlyIdentPunct(v) && !strings.Contains(v, ".") && classOf(v).upper == 0 // dev_admin, mypass; not cmd.exe
}

// checkLiteralPassword: the password of a credentials block or constructor
// in code; only a reference or an empty value is not one.
func checkLiteralPassword(text string, s, e int) bool {
	v := text[s:e]
	return v != "" && !strings.ContainsAny(v[:1], "$%{<[") && !strings.Contains(v, "${") && !strings.Contains(v, "{{") && !emptyPlaceholder(v)
}

// checkBuildConfig: the field's name names a secret and the value is one.
func checkBuildConfig(text string, s, e int) bool {
	m := buildConfigName.FindStringSubmatch(text[max(0, s-200):s])
	if m == nil {
		return false
	}
	kind, ok := classifyIdent(m[1])
	if !ok {
		if !weakKeyIdent(m[1]) || !strongValue(text[s:e]) {
			return false
		}
		kind = kindAPIKey
	}
	return plausibleValue(text[s:e], kind, true)
}

var buildConfigName = regexp.MustCompile(`['"]([A-Za-z0-9_]+)['"][ \t]*,[ \t]*['"]\\?"?$`)

// checkB64PEM: the base64 decodes to a PEM private key header.
func checkB64PEM(text string, s, e int) bool {
	n := min(e-s, 96) / 4 * 4
	b, err := base64.StdEncoding.DecodeString(text[s : s+n])
	if err != nil {
		return false
	}
	h := string(b)
	return strings.HasPrefix(h, "-----BEGIN ") && strings.Contains(h, "PRIVATE KEY")
}

func checkKeytab(text string, s, e int) bool {
	n := (e - s) / 4 * 4
	b, err := base64.StdEncoding.DecodeString(text[s : s+min(n, 64)])
	return err == nil && len(b) > 6 && b[0] == 5 && b[1] == 2 && entropy(text[s:e]) >= 4
}
