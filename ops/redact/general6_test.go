package redact

import (
	"strings"
	"testing"
)

// TestGeneralRulesEachPrinciple holds each principle of general6.go to a
// case it must find (the secret between « and ») and cases of the same
// context it must leave alone, other than the dev set's: a failure names
// the principle that broke.
func TestGeneralRulesEachPrinciple(t *testing.T) {
	s := mustNew(t, Options{})
	cases := []struct {
		principle string
		find      []string // «secret» marks what must be reported
		leave     []string
	}{
		{"camelCase …Key names with a blank or a quote before the separator",
			[]string{`webhookSigningKey = "«Qm3v_8Rt2LzX9pWk»"`, `{"encryptionKey": "«dG8xK2mP9qLr4sVw7yZa»"}`, `masterKey = '«J7kLm2Pq9Rs4Tv6W»'`},
			[]string{`monkey = "banana12345678"`, `{"sortKey": "created_at_desc_2"}`, `primaryKey = "user_id"`}},
		{"config directives whose value is a password",
			[]string{"requirepass «Zr8Kq2Lm5Np7Vx3T»", "bindpw «Hx7#kP2q!Lm»", "ldap_bind_pw = «Wq4$zT8m&Rk»", "  psk=\"«Tr0ub4dor&3x»\"", "auth: { user: 'a@b.c', pass: '«Kx9^mQ2#vLp»' }"},
			[]string{"requirepass foobared", "requirepass ${REDIS_PASSWORD}", "PASS: TestRedact (0.01s)", "rootpw {SSHA}", "pw = getpass.getpass()"}},
		{"netrc's default entry",
			[]string{"default login anonymous password «k3Y!vR9#pLq»"},
			[]string{"default login anonymous password ${FTP_PASS}"}},
		{"framework session cookies by name, anywhere",
			[]string{"curl -b 'JSESSIONID=«8F2A6C1D9E0B7A4C3D5E6F708192A3B4»' https://x", `cookies={"sessionid": "«q8w2e9r7t6y5u4i3o1p0a9s8d7f6g5h4»"}`, `document.cookie = "connect.sid=«s%3AaB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI.kL3nP5rT7vX9zB1dF3hJ5lN7pR9tV1xZ3bD5fH7jL9n»"`, "Cookie: .AspNetCore.Cookies=«CfDJ8N3k2L9mQ4pR7sT1vW5xY8zA2bC6dE0fG3hJ7kL1mN5pQ9rS3tV7wX1yZ5aB9cD3eF7»"},
			[]string{`{"sessionId":"5b2c0a6e-7d1f-4c3a-9e8b-2f4d6a1c3e5b","type":"user"}`, "Set-Cookie: JSESSIONID=deleted; Max-Age=0", "Cookie: sessionid=<your session id>", "SESSION_COOKIE_NAME = 'sessionid'"}},
		{"OAuth parameters that carry a credential",
			[]string{`{"device_code":"«GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS»","user_code":"WDJB-MJHT"}`, "grant_type=authorization_code&code=abc&code_verifier=«dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk»", "GET /cb?code=«SplxlOBeZQQYbYS6WxSbIA9x»&state=xyz"},
			[]string{"code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256", "https://github.com/search?code=SplxlOBeZQQYbYS6WxSbIA9x&type=repositories", `"device_code": "<device_code>"`}},
		{"credentials passed to a (user, password) call",
			[]string{`server.login("alerts@example.com", "«Vx8#qLm2!Rt»")`, `requests.get(u, auth=("admin", "«p9Kz$2mQwL»"))`, `DriverManager.getConnection(url, "app", "«Gh7!tRe4#Wq»")`},
			[]string{"server.login(user, password)", `auth=("admin", password)`, `smtp.login("user", "%s")`}},
		{"a password named in prose, in several languages",
			[]string{"le mot de passe est «s56g*B~.ewfO»", "Das Passwort lautet «Kq7!mZ2#pL»", "パスワードは «T4q=q2eo.-#N» です", "my api key is «Q2PL1C6uuhsDOqok9nmi8l2eVOxuZK2Z» ok", "I set the DB password to «f7k5RJ!?Rq2» yesterday", "la contraseña es «Xq7#mL2p!Z»", "a senha é «Wz8!kP3q#R»"},
			[]string{"le mot de passe est trop court", "das Passwort ist falsch", "change your password to something stronger", "the key is to retry twice", "the token is stored in ~/.config/gh/hosts.yml",
				"nCodeSlots:   uint32(nhashes),", "http2ErrCodeEnhanceYourCalm    http2ErrCode = 0xb"}},
		{"hash forms: WordPress $wp$, Cisco type 7; the empty password's NTLM hashes are none",
			[]string{"user_pass = «$wp$2y$10$O3J0VLT5fQ17cy0s2f86ypbR9FjiIKcrgf6bAJi4KlEOaGX64gkl5»", "username netops password 7 «0822455D0A16544541»"},
			[]string{"Guest:501:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0:::", "root:*:19694:0:99999:7:::"}},
		{"punctuation-led passwords with all four kinds of characters",
			[]string{`<user username="admin" password="«:.cn.LAsZ8o;»" roles="x"/>`, `jwtSecret: '«-1_AD3do~BFi»'`},
			[]string{`password: "--password-stdin"`, `secret: "-----BEGIN"`, `password: "./secrets/db.txt"`}},
		{"XML elements named by an attribute, and <Password><Value>",
			[]string{`<property name="hibernate.connection.password">«lFd+s1OBd0vS»</property>`, "<Password>\n  <Value>«Pq7#vL2m!Xz»</Value>\n</Password>"},
			[]string{`<property name="hibernate.connection.username">app</property>`, `<property name="db.password">${db.password}</property>`}},
		{"UUID tokens, quoted or not",
			[]string{"export CONSUL_HTTP_TOKEN=«5831350e-fc3b-48fb-8fe7-f99fe5cf9439»"},
			[]string{"export CONSUL_HTTP_ADDR=127.0.0.1:8500", `{"request_id": "5831350e-fc3b-48fb-8fe7-f99fe5cf9439"}`, "TRACE_ID=5831350e-fc3b-48fb-8fe7-f99fe5cf9439"}},
		{"tools' password options (openssl enc -k, HTTPie -a)",
			[]string{"openssl enc -aes-256-cbc -in a -out b -k «nAEgG7mqc2a9»", "http -a admin:«R2DFj0+h^jrB» GET https://api.example.com", "https --verify=no POST example.org --auth ci:«Gq7!vR2#mLp»"},
			[]string{"openssl enc -aes-256-cbc -in a -out b -k $PASS", "http -a admin GET https://api.example.com", "ls -a https://x.example.com"}},
	}
	for _, c := range cases {
		for _, in := range c.find {
			a, b := strings.Index(in, "«"), strings.Index(in, "»")
			text := in[:a] + in[a+len("«"):b] + in[b+len("»"):]
			secret := in[a+len("«") : b]
			out := redactAll(s, text)
			if strings.Contains(out, secret) {
				t.Errorf("%s: missed %q in %q (got %q)", c.principle, secret, text, out)
			}
		}
		for _, text := range c.leave {
			if out := redactAll(s, text); out != text {
				t.Errorf("%s: reported in a non-secret: %q", c.principle, out)
			}
		}
	}
}
