package redact

import (
	"bufio"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// retiredRecord is one line of testdata/retired-blind-encoded.txt: the
// blind set's kind, the input, and the spans that must not survive.
type retiredRecord struct {
	kind, text string
	secrets    []string
}

func loadRetired(t *testing.T, path string) []retiredRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []retiredRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var fields []string
		for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			v, _ := strconv.Unquote(q)
			fields = append(fields, v)
			line = line[len(q):]
		}
		if len(fields) < 3 {
			t.Fatalf("%s:%d: want a kind, an input and a secret", path, n)
		}
		r := retiredRecord{kind: fields[0], text: fields[1], secrets: fields[2:]}
		for _, s := range r.secrets {
			if !strings.Contains(r.text, s) {
				t.Fatalf("%s:%d: the span %q is not in the input", path, n, s)
			}
		}
		recs = append(recs, r)
	}
	return recs
}

// TestRetiredBlindEncodedMisses: the 43 encoded secrets blind sets a-d
// missed before encoded6.go, retired to development by the lead, are all
// found now (no run of a marked span of max(8, len/3) bytes survives, as
// labelled.Caught judges a generated secret).
func TestRetiredBlindEncodedMisses(t *testing.T) {
	s := mustNew(t, Options{})
	recs := loadRetired(t, "testdata/retired-blind-encoded.txt")
	if len(recs) != 43 {
		t.Fatalf("%d records, want the 43 retired misses", len(recs))
	}
	found := 0
	for _, r := range recs {
		out := redactAll(s, r.text)
		ok := true
		for _, sec := range r.secrets {
			if labelled.Leaked(sec, 0, out) {
				ok = false
			}
		}
		if ok {
			found++
			continue
		}
		t.Errorf("%s: missed:\n%s\ngot:\n%s", r.kind, r.text, out)
	}
	t.Logf("%d of %d retired misses found", found, len(recs))
}

// TestEncoded6EachClass holds each principle of encoded6.go to cases it
// must find (the secret between « and ») and same-context cases it must
// leave, in forms other than dev-encoded6's and the retired misses': a
// failure names the class and the member that broke.
func TestEncoded6EachClass(t *testing.T) {
	s := mustNew(t, Options{})
	r := rand.New(rand.NewSource(6))
	rb := func(n int) []byte {
		b := make([]byte, n)
		r.Read(b)
		for i := range b {
			if i%3 == 0 {
				b[i] |= 0x80 // binary for sure
			}
		}
		return b
	}
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	cat := func(s string, b []byte) []byte { return append([]byte(s), b...) }
	hx := func(b []byte) string { return hex.EncodeToString(b) }
	list := func(b []byte) string {
		var p []string
		for _, c := range b {
			p = append(p, fmt.Sprintf("0x%02x", c))
		}
		return strings.Join(p, ", ")
	}
	b32 := func(n int) string { return strings.TrimRight(base32.StdEncoding.EncodeToString(rb(n)), "=") }
	pw := "Qm7#vLx2pR9tKw4z"
	runEncodingCases(t, s, []encodingCase{
		{"(1) auth scheme value by position",
			[]string{
				`wget --header="Authorization: Basic «` + b64(cat("ci:", rb(21))) + `»" https://repo.example.test/`,
				"proxy: Proxy-Authorization: Basic «" + b64(rb(30)) + "»",
				"a1 AUTHENTICATE XOAUTH2 «" + b64(cat("user=ops@example.test\x01auth=Bearer ", cat("ya29.a0AfB_byC9x1", []byte("\x01\x01")))) + "»",
				"C: AUTH PLAIN «" + b64(cat("\x00bob\x00", rb(15))) + "»",
			},
			[]string{
				"Authorization: Basic " + b64([]byte("deploy:")),
				"Authorization: Basic " + b64([]byte("admin:changeme")),
				"a1 AUTHENTICATE XOAUTH2\nS: + " + b64([]byte(`{"status":"400","schemes":"Bearer","scope":"https://mail.google.com/"}`)),
				`WWW-Authenticate: Basic realm="repo"`,
			}},
		{"(2) bytes and hex bound to a key's name or printed as one",
			[]string{
				"const uint8_t psk[16] = {«" + list(rb(16)) + "»};",
				">>> private_key.hex()\n'«" + hx(rb(32)) + "»'",
				"DEBUG session secret (hex): «" + hx(rb(32)) + "»",
				"INSERT INTO creds (name, value) VALUES ('api_token', X'«" + strings.ToUpper(hx([]byte("tok_"+pw+pw))) + "»');",
			},
			[]string{
				"const uint8_t iv[16] = {" + list(rb(16)) + "};",
				"salt = bytes.fromhex(\"" + hx(rb(16)) + "\")",
				">>> digest.hex()\n'" + hx(rb(32)) + "'",
				"INSERT INTO files (name, data) VALUES ('icon.png', X'" + strings.ToUpper(hx(rb(24))) + "');",
			}},
		{"(3) a blob named as a credential or opening one",
			[]string{
				`"serviceAccountJsonBase64": "«` + b64(rb(90)) + `»"`,
				"KUBECONFIG_B64: «" + b64(rb(120)) + "»",
				"blob = «" + b64(cat("REDIS_PASSWORD=", rb(24))) + "»",
				"payload: «" + b64(cat(`{"api_key":"`, rb(30))) + "»",
			},
			[]string{
				"SIGNING_CERT_B64=" + b64(cat("-----BEGIN CERTIFICATE-----\n", rb(60))),
				"ICON_B64=" + b64(cat("\x89PNG\r\n\x1a\n", rb(60))),
				"DATA_B64=" + b64(cat(`{"id":12,"items":`, rb(40))),
			}},
		{"(4) the output of a command that reads a secret",
			[]string{
				"$ kubectl get secret api -n web -o jsonpath='{.data.token}' | base64 -d\n«" + pw + "xT»",
				"$ vault read -field=secret_id auth/approle/role/ci/secret-id\n«" + pw + "9z»",
				`$ echo -n "«` + b64([]byte("svc-ci:"+pw)) + `»" | base64 --decode`,
				`const apiSecret = Buffer.from("«` + b64(rb(32)) + `»", "base64");`,
			},
			[]string{
				"$ kubectl get secret web-tls -o jsonpath='{.data.tls\\.crt}'\n" + b64(cat("-----BEGIN CERTIFICATE-----\nMIIB", rb(30))),
				"$ vault kv get -field=username secret/ci\nci-runner",
				`message = base64.b64decode("` + b64([]byte("see you at noon")) + `")`,
				"$ echo " + b64([]byte("just some words")) + " | base64 -d\njust some words",
			}},
		{"(5) percent-encoding in query strings",
			[]string{
				"GET /tiles/v1/map.png?z=3&key=«Tq8Wm2Xv7Rt3Wp8Nc5Hj1Bf6%2BGs0Ek%2F4» HTTP/1.1",
				"https://sso.example.test/go?next=https%3A%2F%2Fapp%2Flogin%3Fuser%3Dops%26password%3D«%252Fq9%2523Lm2Xv7Rt»",
				"relay?hook=https%3A%2F%2Fdiscord.com%2Fapi%2Fwebhooks%2F1190000000000000002%2F«Zk3-pQ9_wL2xV7mR4tN8bC1yH6jF0dS5gA3kE9uT2oI7rW4qY1zX6cV8nB3mL5pK0»&fmt=1",
			},
			[]string{
				"https://search.example.test/?q=a%2Bb%20c&page=2",
				"https://api.example.test/v2?token=%7B%7Btoken%7D%7D",
				"https://sso.example.test/go?redirect=https%3A%2F%2Fapp%2Flogin%3Fuser%3Dops%26lang%3Den",
			}},
		{"(6) entities in a value named as a secret",
			[]string{
				`<entry key="smtp.password">«Rt5&amp;kW9&lt;pLm2»</entry>`,
				`<add name="ApiSecret" value="«Hy6&amp;Qs8&quot;Vb3n»" />`,
				"<key>DB_PASS</key>\n<value>«Nc4&amp;Jd7&gt;Kf2w»</value>",
			},
			[]string{
				"<key>DB_PASS</key>\n<value>&lt;set me&gt;</value>",
				"<description>Search &amp; replace, 2 steps</description>",
				`<add name="Title" value="Tom&amp;Jerry2Go!" />`,
			}},
		{"(7) TOTP seeds in base32",
			[]string{
				"TWO_FACTOR_SEED: «" + b32(20) + "»",
				"otpauth://totp/Example:ops?issuer=Example&secret=«" + b32(20) + "»&digits=6",
				"hotp = pyotp.HOTP('«" + b32(20) + "»')",
			},
			[]string{
				"otpauth://totp/Example:ops?secret=${SEED}&issuer=Example",
				`mfa_enabled: "requiredforadmins"`,
				`"totp_period": 30, "totp_digits": 6`,
			}},
	})
}
