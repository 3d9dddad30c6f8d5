package redact

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestEncoded4EachEncoding holds each encoding of encoded4.go to cases it
// must find (the secret between « and »: none of its bytes may be left
// in a run of 8) and same-context cases it must leave alone, other than
// the dev set's: a failure names the encoding that broke.
func TestEncoded4EachEncoding(t *testing.T) {
	s := mustNew(t, Options{})
	b64 := func(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) }
	list := func(v, format, sep string) string {
		var parts []string
		for _, c := range []byte(v) {
			parts = append(parts, fmt.Sprintf(format, c))
		}
		return strings.Join(parts, sep)
	}
	refs := func(v, format string) string { return list(v, format, "") }
	zl := func(v string) string {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write([]byte(v))
		w.Close()
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	gz := func(v string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(v))
		w.Close()
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	wrap := func(v string, n int) string {
		var l []string
		for len(v) > n {
			l, v = append(l, v[:n]), v[n:]
		}
		return strings.Join(append(l, v), "\n")
	}
	xxd := func(data string) string {
		var l []string
		for i := 0; i < len(data); i += 16 {
			ch := data[i:min(len(data), i+16)]
			var hx []string
			for j := 0; j < len(ch); j += 2 {
				hx = append(hx, fmt.Sprintf("%x", ch[j:min(len(ch), j+2)]))
			}
			asc := strings.Map(func(r rune) rune {
				if r < 32 || r > 126 {
					return '.'
				}
				return r
			}, ch)
			l = append(l, fmt.Sprintf("%08x: %-39s  %s", i, strings.Join(hx, " "), asc))
		}
		return strings.Join(l, "\n")
	}
	hexC := func(data string) string {
		var l []string
		for i := 0; i < len(data); i += 16 {
			ch := data[i:min(len(data), i+16)]
			h := list(ch[:min(8, len(ch))], "%02x", " ")
			if len(ch) > 8 {
				h += "  " + list(ch[8:], "%02x", " ")
			}
			l = append(l, fmt.Sprintf("%08x  %-48s  |%s|", i, h, ch))
		}
		return strings.Join(l, "\n")
	}
	ghp := "ghp_R8kT2mWq9LxZ4vN7pB3cY6dF1gH5jK0sQaEr"
	xoxb := "xoxb-2718281828-3141592653589-Qm7Lz2Xr9Kp4Wv8Nt3Ys6Bd1"
	pw := "Kq7!mZ2#pLxV9w"
	cases := []encodingCase{
		{"byte lists of code (Go, Java, C, Python, JS)",
			[]string{
				"tok := []byte{«" + list(ghp, "0x%02x", ", ") + "»}",
				"byte[] t = new byte[] {«" + list(xoxb, "%d", ", ") + "»};",
				"unsigned char k[] = {\n  «" + list("password="+pw, "0x%02X", ",\n  ") + "»\n};",
				"secret = bytearray([«" + list(ghp, "%d", ",") + "»])",
				"const t = String.fromCharCode(«" + list(xoxb, "%d", ", ") + "»);",
			},
			[]string{
				"hello := []byte{" + list("hello, a harmless text", "0x%02x", ", ") + "}",
				"var pngMagic = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a}",
				"ports := []int{80, 443, 8080, 8443, 9000, 9090, 3000, 5432}",
				"crc := [...]uint32{0x00000000, 0x77073096, 0xee0e612c, 0x990951ba}",
				"const t = String.fromCharCode(" + list("Loading the page now", "%d", ",") + ");",
			}},
		{"braced escapes and character references (\\u{…}, \\x{…}, &#x…;, &#…;, XML in XML)",
			[]string{
				"let t = \"«" + refs(ghp, `\u{%x}`) + "»\";",
				"my $k = \"«" + refs(xoxb, `\x{%x}`) + "»\";",
				"<code>«" + refs(ghp, "&#x%x;") + "»</code>",
				"<span>«" + refs(xoxb, "&#%d;") + "»</span>",
				"&lt;password&gt;«" + pw + "»&lt;/password&gt;",
			},
			[]string{
				"<p>" + refs("Hello, reader!", "&#x%x;") + "</p>",
				"let smile = \"\\u{1F600} \\u{1F601} \\u{1F602} \\u{1F603}\";",
				"&lt;username&gt;admin&lt;/username&gt;&lt;password&gt;${DB_PASSWORD}&lt;/password&gt;",
			}},
		{"hex dumps (xxd, hexdump -C)",
			[]string{
				"$ xxd app.env\n" + markLines(xxd("MODE=prod\nSLACK_BOT_TOKEN="+xoxb+"\n"), xoxb),
				"$ hexdump -C .git-credentials\n" + markLines(hexC("https://bot:"+ghp+"@github.com\n"), ghp),
			},
			[]string{
				"$ xxd notes.txt\n" + xxd("Buy milk and eggs, then call the plumber about the sink.\n"),
				"$ hexdump -C app.env\n" + hexC("MODE=prod\nWORKERS=4\nREGION=eu-west-1\n"),
			}},
		{"SASL PLAIN and LOGIN (SMTP, IMAP)",
			[]string{
				"C: AUTH PLAIN «" + b64("\x00ops@example.org\x00"+pw) + "»\nS: 235 2.7.0 OK",
				"C: a1 AUTHENTICATE PLAIN\nS: +\nC: «" + b64("\x00alice\x00"+pw) + "»",
				"S: 334 VXNlcm5hbWU6\nC: b3BzQGV4YW1wbGUub3Jn\nS: 334 UGFzc3dvcmQ6\nC: «" + b64(pw) + "»",
			},
			[]string{
				"C: AUTH PLAIN " + b64("\x00ops@example.org\x00") + "\nS: 535 5.7.8 failed",
				"S: 334 UGFzc3dvcmQ6\nC: *\nS: 501 5.7.0 cancelled",
				"250-AUTH PLAIN LOGIN CRAM-MD5\n250 8BITMIME",
				"AUTH PLAIN " + b64("\x00user\x00password") + "\n235 2.7.0 OK", // net/smtp's test credentials
			}},
		{"zlib and wrapped gzip under base64",
			[]string{
				"x-state: «" + zl(`{"bot":"`+xoxb+`","env":"prod"}`) + "»",
				"$ tar cz secrets | base64\n«" + wrap(gz("GITHUB_TOKEN="+ghp+"\nDB_PASSWORD="+pw+"\nREGION=eu\nWORKERS=4\nLOG_LEVEL=info\n"), 76) + "»",
			},
			[]string{
				"x-state: " + zl(`{"page":3,"sort":"name","filter":"active","view":"grid"}`),
				"$ gzip -c notes | base64\n" + wrap(gz(strings.Repeat("a harmless line of notes\n", 8)+"the end, nothing else\n"), 76),
			}},
		{"percent-encoded URLs and values encoded twice",
			[]string{
				"GET /go?to=https%3A%2F%2Fci%3A«" + url.QueryEscape(pw) + "»%40jenkins.example.org%2Fjob HTTP/1.1",
				"log: body=%257B%2522user%2522%253A%2522ops%2522%252C%2522password%2522%253A%2522«" + url.QueryEscape(url.QueryEscape(pw)) + "»%2522%257D",
			},
			[]string{
				"GET /go?to=https%3A%2F%2Fdocs.example.org%2Fguide%3Fpage%3D2 HTTP/1.1",
				"log: body=%257B%2522user%2522%253A%2522ops%2522%252C%2522page%2522%253A%25222%2522%257D",
			}},
		{"literals given to an encoding function (Helm b64enc, base64encode, btoa)",
			[]string{
				"  db-password: {{ \"«" + pw + "»\" | b64enc | quote }}",
				"  password = base64encode(\"«" + pw + "»\")",
			},
			[]string{
				"  name: {{ \"web\" | b64enc }}",
				"  password: {{ .Values.db.password | b64enc | quote }}",
				"  password = base64encode(var.db_password)",
			}},
		{"Yarn's npmAuthIdent",
			[]string{"npmRegistries:\n  //npm.example.org:\n    npmAuthIdent: \"«" + b64("ci:"+pw) + "»\""},
			[]string{"npmRegistries:\n  //npm.example.org:\n    npmAuthIdent: \"${NPM_AUTH_IDENT}\""}},
	}
	runEncodingCases(t, s, cases)
}

// markLines puts « » around the lines of dump that show a byte of secret
// (its ASCII column holds a piece of it, 4 bytes at least, or the secret
// continues from the line before).
func markLines(dump, secret string) string {
	lines := strings.Split(dump, "\n")
	first, last := -1, -1
	for i, l := range lines {
		asc := l[strings.LastIndex(l, "  ")+2:]
		for k := 0; k+4 <= len(secret); k++ {
			if strings.Contains(asc, secret[k:k+4]) {
				if first < 0 {
					first = i
				}
				last = i
				break
			}
		}
	}
	lines[first] = "«" + lines[first]
	lines[last] += "»"
	return strings.Join(lines, "\n")
}
