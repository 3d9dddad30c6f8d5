package redact

import (
	"encoding/base64"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// keyFormatCases: one case per container of key material and per
// encoding that hides a secret (issue 31), each named by its format so a
// failure says which member of the family broke. secret must be covered
// by one finding of rule.
func keyFormatCases() []struct{ name, rule, text, secret string } {
	g := gen{rand.New(rand.NewSource(31))}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	wg := g.s(tB64, 42) + "A="
	ppkPriv := g.s(tB64, 64) + "\n" + g.s(tB64, 44)
	pub6 := strings.Repeat(g.s(tB64, 64)+"\n", 6)
	jwkD := g.s(tB64url, 43)
	rsaP := g.s(tB64url, 86)
	octK := g.s(tB64url, 43)
	torKey := g.s(tB64, 86) + "=="
	torFile := b64("== ed25519v1-secret: type0 ==\x00\x00\x00" + g.s(tAlnum, 64)) // 32-byte header, 64-byte key
	minisign := "RWRTY0Iy" + g.s(tB64, 150)
	signify := "RWRCSwAAAA" + g.s(tB64, 120) + "=="
	p12 := "MIIKPAIBAzCCCfYGCSqGSIb3DQEHAaCCCecEggnjMIIJ3zCC" + g.s(tB64, 200)
	p12ber := "MIACAQMwgAYJKoZIhvcNAQcBoIAkgASC" + g.s(tB64, 200)
	dockerJSON := b64(`{"auths":{"ghcr.io":{"auth":"` + b64("octo:ghp_"+g.s(tAlnum, 36)) + `"}}}`)
	dockerPretty := b64("{\n\t\"auths\": {\n\t\t\"r.example\": {\n\t\t\t\"auth\": \"" + b64("u:"+g.s(tAlnum, 20)) + "\"\n\t\t}\n\t}\n}")
	urlPass := "%24" + g.s(tAlnum, 8) + "%2F" + g.s(tAlnum, 6) + "%3D"
	return []struct{ name, rule, text, secret string }{
		{"ppk v2 with 6 public lines", "putty-private-key", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: k\nPublic-Lines: 6\n" + pub6 + "Private-Lines: 2\n%s\nPrivate-MAC: 00ff", ppkPriv},
		{"ppk v3 with Argon2 lines", "putty-private-key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: aes256-cbc\nComment: k\nPublic-Lines: 2\n" + g.s(tB64, 64) + "\nm8c=\nKey-Derivation: Argon2id\nArgon2-Memory: 8192\nArgon2-Passes: 34\nArgon2-Parallelism: 1\nArgon2-Salt: 9c2b1e4f7a0d3c6b8e1f4a7d0c3b6e9f\nPrivate-Lines: 2\n%s\nPrivate-MAC: 00ff", ppkPriv},
		{"ppk with escaped newlines", "putty-private-key", `PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\n` + g.s(tB64, 64) + `\nPrivate-Lines: 1\n%s\nPrivate-MAC: 00ff`, g.s(tB64, 64)},
		{"jwk EC d", "private-key", `{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","d":"%s"}`, jwkD},
		{"jwk OKP d before x", "private-key", `{"kty": "OKP", "crv": "Ed25519", "d": "%s", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`, jwkD},
		{"jwk d before kty", "private-key", `{"d":"%s","crv":"P-256","kty":"EC"}`, jwkD},
		{"jwk RSA p", "private-key", `{"kty":"RSA","e":"AQAB","p":"%s"}`, rsaP},
		{"jwk oct k in a set", "private-key", `{"keys":[{"kty":"oct","alg":"HS256","k":"%s"}]}`, octK},
		{"jwk escaped in a string", "private-key", `"{\"kty\":\"EC\",\"d\":\"%s\"}"`, jwkD},
		{"wireguard wg set", "private-key", "wg set wg0 private-key <(echo %s)", wg},
		{"tor ADD_ONION ed25519", "private-key", "ADD_ONION ED25519-V3:%s Port=80", torKey},
		{"tor secret key file base64", "private-key", "%s", torFile},
		{"minisign secret key", "private-key", "untrusted comment: minisign encrypted secret key\n%s", minisign},
		{"signify secret key", "private-key", "untrusted comment: signify secret key\n%s", signify},
		{"pkcs12 DER", "private-key-pkcs12", `$pfx = [Convert]::FromBase64String("%s")`, p12},
		{"pkcs12 BER indefinite length", "private-key-pkcs12", `"data": "%s"`, p12ber},
		{"dockerconfigjson compact", "docker-config-auth", ".dockerconfigjson: %s", dockerJSON},
		{"dockerconfigjson tab-indented", "docker-config-auth", `{".dockerconfigjson":"%s"}`, dockerPretty},
		{"percent-encoded URL password starting with %24", "mongodb-url-password", "mongodb+srv://svc:%s@c0.mongodb.net/prod", urlPass},
		{"kubernetes Secret data, YAML, neutral name", "encoded-secret", "apiVersion: v1\nkind: Secret\ndata:\n  config.json: %s\n", b64(`{"user":"svc","password":"` + g.s(tAlnum, 16) + `"}`)},
		{"kubernetes Secret data, JSON", "encoded-secret", `{"kind": "Secret", "data": {".env": "%s"}}`, b64("STRIPE_SECRET_KEY=sk_live_" + g.s(tAlnum, 24) + "\n")},
		{"a name ending in _BASE64", "encoded-secret", "GH_TOKEN_JSON_BASE64=%s", b64(`{"token":"ghp_` + g.s(tAlnum, 36) + `"}`)},
		{"echo | base64 -d", "encoded-secret", "echo %s | base64 -d > token", b64("glpat-" + g.s(tAlnum, 20))},
		{"telegram Bot API URL", "telegram-bot-token", "curl https://api.telegram.org/bot%s/getUpdates", "7123456789:AA" + g.s(tB64url, 33)},
		{"terraform variable default", "generic-password", "variable \"db_password\" {\n  type      = string\n  sensitive = true\n  default   = \"%s\"\n}", g.s(tAlnum, 16)},
		{"rust typed const", "generic-api-key", `const API_KEY: &str = "%s";`, g.s(tAlnum, 32)},
		{"rust static lifetime", "generic-api-key", `static API_KEY: &'static str = "%s";`, g.s(tAlnum, 32)},
		{"key name with a _B64 qualifier", "generic-api-key", "MASTER_KEY_B64=%s", g.s(tB64, 43) + "="},
		{"key name with a _HEX qualifier", "generic-api-key", "SIGNING_KEY_HEX=%s", g.s(tHex, 64)},
	}
}

func TestKeyMaterialAndEncodedFormats(t *testing.T) {
	assertFormatCases(t, mustNew(t, Options{}), keyFormatCases())
}

// assertFormatCases: each case's secret is covered by one finding of its
// rule.
func assertFormatCases(t *testing.T, s *Scanner, cases []struct{ name, rule, text, secret string }) {
	for _, c := range cases {
		text := strings.Replace(c.text, "%s", c.secret, 1)
		start := strings.Index(text, c.secret)
		covered := false
		for _, f := range s.Scan(text) {
			if f.Start <= start && f.End >= start+len(c.secret) && f.Rule == c.rule {
				covered = true
			}
		}
		assert.True(t, covered, "%s: %s not found as %s in %q: %v", c.name, c.secret, c.rule, text, s.Scan(text))
	}
}

// keyFormatNegatives: the public halves and the look-alikes of the same
// formats.
var keyFormatNegatives = []string{
	`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`,
	`{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc","e":"AQAB"}`,
	`{"d":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"} and later {"kty":"EC"}`,
	"untrusted comment: minisign public key 5F0A1B2C3D4E5F60\nRWQKGywtPk5fYAm+Vs2fmJ7UOCfc2rIoR1qwOZqpS6J/kB2q4aD9XVsU",
	"Private-Lines: 2\nAAAAgQDx6gPzWmTrbNp8hdsG0XCOo2Jw+UplFPFJiJzoZ1QCyA6dMAaZ1vLrQ1kUZo5tZVWLBNZqmA==",
	"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0",
	"eyJhdXRocyI6eyJnaGNyLmlvIjp7fX0sImNyZWRzU3RvcmUiOiJkZXNrdG9wIn0=", // {"auths":{"ghcr.io":{}},"credsStore":"desktop"}
	"postgres://app:%24%7BDB_PASSWORD%7D@db:5432/app",
	"COLOR_HEX=ff00aa",
	"variable \"db_password\" {\n  type = string\n}\nvariable \"region\" {\n  default = \"eu-west-1\"\n}",
	"variable \"db_password\" {\n  default = \"\"\n}",
	"kind: Secret\ndata:\n  username: YWRtaW4=\n  host: ZGIuZXhhbXBsZS5vcmc=\n",      // admin, db.example.org
	"kind: ConfigMap\ndata:\n  GITHUB: cmVsZWFzZS0yMDI2LjExLXN0YWJsZS1idWlsZC1ldQ==", // not a Secret, and its value decodes to no secret (base64 of a token is found anywhere: anywhere.go)
	"echo aGVsbG8gd29ybGQgZnJvbSB0aGUgZG9jcw== | base64 -d",                          // hello world from the docs
	"wg genkey | tee privatekey | wg pubkey > publickey; wg set wg0 private-key ./privatekey",
}

func TestKeyMaterialAndEncodedNegatives(t *testing.T) {
	s := mustNew(t, Options{})
	for _, n := range keyFormatNegatives {
		assert.Empty(t, s.Scan(n), "%q", n)
	}
}
