package redact

import (
	"encoding/ascii85"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// encodingCase: texts where an encoding's secret (between « and ») must
// be found, and texts of the same context that must be left alone.
type encodingCase struct {
	encoding string
	find     []string
	leave    []string
}

// runEncodingCases runs each case as a subtest named by its encoding: no
// run of 8 bytes of a marked secret may be left, and a text to leave must
// come back unchanged.
func runEncodingCases(t *testing.T, s *Scanner, cases []encodingCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.encoding, func(t *testing.T) {
			for _, in := range c.find {
				a, b := strings.Index(in, "«"), strings.Index(in, "»")
				text := in[:a] + in[a+len("«"):b] + in[b+len("»"):]
				secret := in[a+len("«") : b]
				out := redactAll(s, text)
				for i := 0; i+8 <= len(secret); i++ {
					if w := secret[i : i+8]; strings.TrimSpace(w) == w && strings.Contains(out, w) && !strings.Contains(text[:a], w) && !strings.Contains(text[b-len("«"):], w) {
						t.Errorf("missed %q in:\n%s\ngot:\n%s", w, text, out)
						break
					}
				}
			}
			for _, text := range c.leave {
				if out := redactAll(s, text); out != text {
					t.Errorf("reported in a non-secret:\n%s", out)
				}
			}
		})
	}
}

// TestEncoded5EachClass holds each principle of encoded5.go to a case it
// must find and a same-context case it must leave, with secrets and
// forms other than the dev set's: a failure names the class and the
// member that broke.
func TestEncoded5EachClass(t *testing.T) {
	s := mustNew(t, Options{})
	b64 := func(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) }
	a85 := func(v string) string {
		d := make([]byte, ascii85.MaxEncodedLen(len(v)))
		return string(d[:ascii85.Encode(d, []byte(v))])
	}
	list := func(v, format, sep string) string {
		var parts []string
		for _, c := range []byte(v) {
			parts = append(parts, fmt.Sprintf(format, c))
		}
		return strings.Join(parts, sep)
	}
	lines := func(v string, w int, prefix func(i int) string) string {
		var l []string
		for i := 0; len(v) > 0; i++ {
			n := min(w, len(v))
			l, v = append(l, prefix(i)+v[:n]), v[n:]
		}
		return strings.Join(l, "\n")
	}
	ghp := "ghp_Tq4Lm8Zx2Vb6Nc9Rk1Wp5Yd3Hs7Jf0Ga2Ue"
	glpat := "glpat-Mz7Qk2Xw9Lp4Vn8Rt3Yb"
	pw := "Wd5!kQ9#xLm2Pz7v"
	env := "REGION=eu\nGITLAB_TOKEN=" + glpat + "\nWORKERS=4\nLOG_LEVEL=info\nTIMEOUT=30\n"
	harmless := "REGION=eu\nWORKERS=4\nLOG_LEVEL=info\nTIMEOUT=30\nFEATURE=beta\nCACHE=on\n"
	uu := func(v string) string { // uuencode(1)'s lines, 45 bytes each
		var l []string
		for i := 0; i < len(v); i += 45 {
			ch := []byte(v[i:min(len(v), i+45)])
			enc := func(x byte) byte {
				if x == 0 {
					return '`'
				}
				return x + 32
			}
			b := []byte{enc(byte(len(ch)))}
			for len(ch)%3 != 0 {
				ch = append(ch, 0)
			}
			for k := 0; k < len(ch); k += 3 {
				b = append(b, enc(ch[k]>>2), enc((ch[k]<<4|ch[k+1]>>4)&63), enc((ch[k+1]<<2|ch[k+2]>>6)&63), enc(ch[k+2]&63))
			}
			l = append(l, string(b))
		}
		return strings.Join(l, "\n")
	}
	half := func(v string) (string, string) { return v[:len(v)/2+1], v[len(v)/2+1:] }
	g1, g2 := half(b64("GITHUB_TOKEN=" + ghp))
	h1, h2 := half(b64("the release notes for version two"))
	cases := []encodingCase{
		{"(a) literals joined by an operator, adjacency or a continuation",
			[]string{
				"const t = «\"" + g1 + "\" +\n    \"" + g2 + "\"»;",
				"$t = «'" + g1 + "' . '" + g2 + "'»;",
				"T = («\"" + g1 + "\"\n     \"" + g2 + "\"»)",
				"hex := «\"" + hex.EncodeToString([]byte(ghp))[:30] + "\" + \"" + hex.EncodeToString([]byte(ghp))[30:] + "\"»",
			},
			[]string{
				"const t = \"" + h1 + "\" +\n    \"" + h2 + "\";",
				"msg := \"Hello, \" + name + \", your build \" + id + \" passed\"",
				"ids = [\"" + strings.Repeat("a1B2", 10) + "\", \"" + strings.Repeat("c3D4", 10) + "\"]",
			}},
		{"(a) a block wrapped under line numbers or deep indentation",
			[]string{
				"«" + lines(b64(env), 64, func(i int) string { return fmt.Sprintf("%6d→                ", 40+i) }) + "»",
				"«" + lines(b64(env), 76, func(i int) string { return strings.Repeat(" ", 14) }) + "»",
			},
			[]string{
				lines(b64(harmless), 64, func(i int) string { return fmt.Sprintf("%6d→                ", 40+i) }),
				lines(b64(harmless), 76, func(i int) string { return strings.Repeat(" ", 14) }),
			}},
		{"(a) data: URIs of no or a generic media type",
			[]string{
				"href=\"data:;base64,«" + b64(env) + "»\"",
				"{\"data\": \"data:application/octet-stream;base64,«" + b64(env) + "»\"}",
			},
			[]string{
				"href=\"data:;base64," + b64(harmless) + "\"",
				"{\"data\": \"data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString([]byte("\x00\x01\x02\x03\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")) + "\"}",
				"<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
			}},
		{"(a) quoted-printable soft line breaks",
			[]string{"Content-Transfer-Encoding: quoted-printable\n\nGITHUB_TOKEN=3D«ghp_Tq4Lm8Zx2Vb6=\nNc9Rk1Wp5Yd3Hs7Jf0Ga2Ue»\n"},
			[]string{"Content-Transfer-Encoding: quoted-printable\n\nThe build is green; width=3D100% and the next release ships on Fri=\nday at noon.\n"}},
		{"(b) ident:secret decoded with no name around it",
			[]string{
				"X-Upstream-Auth: «" + b64("backup-bot:"+pw) + "»",
				"Authorization: ApiKey «" + b64("VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw") + "»",
				"via «" + b64("svc:"+pw+"@proxy.corp.example:3128") + "»",
				"hex «" + hex.EncodeToString([]byte("deploy:"+pw)) + "»",
			},
			[]string{
				"X-Scope: " + b64("tenant:acme-staging"),
				"{\"cursor\": \"" + b64("offset:200:limit:50") + "\"}",
				"X-Digest: " + b64("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
				"X-Upstream: " + b64("10.1.2.3:8443"),
			}},
		{"(b) every value of a Kubernetes Secret's data, under any key",
			[]string{
				"kind: Secret\ndata:\n  conn: «" + b64("r8Tz2Qm5Kx9Lw3Vp7Nb4") + "»",
				"{\"kind\":\"Secret\",\"data\":{\"x\":\"«" + b64("9b2f6c1e4a7d3058bc6e1f2a7d94c3e8") + "»\"}}",
			},
			[]string{
				"kind: Secret\ndata:\n  user: " + b64("admin") + "\n  id: " + b64("123e4567-e89b-12d3-a456-426614174000") + "\n  host: " + b64("db.internal.example"),
				"kind: Secret\ndata:\n  ca.crt: " + b64("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2VydGlmaWNhdGUgb25seQ==\n-----END CERTIFICATE-----\n"),
			}},
		{"(b) a placeholder encoded is no secret under a secret's name",
			[]string{"X-Credentials: «" + b64("deploy:"+pw) + "»"},
			[]string{
				"X-Credentials: " + b64("deploy:changeme"),
				"{\"credentials\": \"" + b64("admin:password") + "\"}",
				"X-Credentials: " + b64("ci:${CI_PASSWORD}"),
			}},
		{"(d) Ascii85 and base85",
			[]string{
				"<~«" + a85("GITHUB_TOKEN="+ghp) + "»~>",
				"k = base64.a85decode(b\"«" + a85(ghp) + "»\")",
			},
			[]string{
				"<~" + a85("a harmless sentence about the weather") + "~>",
				"k = base64.b85decode(b\"VPRomVPRn\")",
			}},
		{"(d) uuencode",
			[]string{"begin 644 .env\n«" + uu("GITHUB_TOKEN="+ghp+"\nDEBUG=0\n") + "»\n`\nend"},
			[]string{"begin 644 notes.txt\n" + uu("I went to the shop to buy milk and eggs. Then I went home.\n") + "\n`\nend"}},
		{"(d) hex behind bytea's \\x and hex calls with blanks",
			[]string{
				" secret\n--------\n \\x«" + hex.EncodeToString([]byte(glpat)) + "»\n(1 row)",
				"k = bytes.fromhex('«" + list(ghp, "%02x", " ") + "»').decode()",
			},
			[]string{
				" note\n------\n \\x" + hex.EncodeToString([]byte("a note from the migration")) + "\n(1 row)",
				"k = bytes.fromhex('" + list("plain words only", "%02x", " ") + "').decode()",
			}},
		{"(d) hex dumps of tcpdump -X, od -t x1z and Wireshark",
			[]string{
				"\t0x0000:  4749 5448 5542 5f54 4f4b 454e 3d67 6870  GITHUB_TOKEN=ghp\n«\t0x0010:  5f54 7134 4c6d 385a 7832 5662 364e 6339  _Tq4Lm8Zx2Vb6Nc9\n\t0x0020:  526b 3157 7035 5964 3348 7337 4a66 3047  Rk1Wp5Yd3Hs7Jf0G»\n\t0x0030:  6132 5565 0a                             a2Ue.",
				"000000 47 49 54 48 55 42 5f 54 4f 4b 45 4e 3d 67 68 70  >GITHUB_TOKEN=ghp<\n«000010 5f 54 71 34 4c 6d 38 5a 78 32 56 62 36 4e 63 39  >_Tq4Lm8Zx2Vb6Nc9<\n000020 52 6b 31 57 70 35 59 64 33 48 73 37 4a 66 30 47  >Rk1Wp5Yd3Hs7Jf0G<»\n000030 61 32 55 65 0a                                   >a2Ue.<\n000035",
			},
			[]string{
				"\t0x0000:  4745 5420 2f20 4854 5450 2f31 2e31 0d0a  GET / HTTP/1.1..\n\t0x0010:  486f 7374 3a20 6578 616d 706c 652e 636f  Host: example.co",
				"0000  48 54 54 50 2f 31 2e 31  20 32 30 30 20 4f 4b 0d   HTTP/1.1 200 OK.",
			}},
		{"(d) decimal byte lists in any bracket",
			[]string{
				"{\"type\":\"Buffer\",\"data\":[«" + list(ghp, "%d", ",") + "»]}",
				"SELECT CHAR(«" + list(glpat, "%d", ",") + "»);",
			},
			[]string{
				"{\"type\":\"Buffer\",\"data\":[" + list("hello from the tests", "%d", ",") + "]}",
				"[2024-11-27 10:00:01] (1 of 3) done [100%]",
				"weights: [12, 40, 33, 25, 18, 77, 64, 90, 11, 23]",
			}},
		{"(d) HTML5 named character references",
			[]string{"<td>GITHUB&lowbar;TOKEN&equals;«ghp&lowbar;Tq4Lm8Zx2Vb6Nc9Rk1Wp5Yd3Hs7Jf0Ga2Ue»</td>"},
			[]string{"<a>https&colon;&sol;&sol;docs&period;example&period;com&sol;guide&quest;page&equals;2</a>"}},
	}
	runEncodingCases(t, s, cases)
}
