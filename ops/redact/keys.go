package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync/atomic"
)

// Key material and secrets hidden by an encoding, recognised by the
// container's own format (issue 31: the key-material and encoded
// families). Each rule keeps a literal anchor of its format, and a window
// no larger than the container.
func keyRules() []*Rule {
	return append(append([]*Rule{
		// PuTTY .ppk (versions 2 and 3): the private blob is the base64
		// lines after "Private-Lines: N", wherever the header lines
		// (public lines, Argon2 parameters) put it
		{ID: "putty-private-key", Anchors: []string{"Private-Lines:"}, After: 8000, Priority: prioPrefix,
			Re:    regexp.MustCompile(`Private-Lines: \d+(?:\r?\n|(?:\\r)?\\n)(?P<s>(?:[A-Za-z0-9+/=]+(?:\r?\n|(?:\\r)?\\n|$))+)`),
			Check: checkPPK},
		// JWK (RFC 7517/7518): the private members of an RSA, EC or OKP key
		// (d, p, q, dp, dq, qi) and a symmetric key's k, inside an object
		// that has "kty"
		{ID: "private-key", Anchors: []string{"kty"}, Before: 6000, After: 6000, Priority: prioSpecific,
			Re:       regexp.MustCompile(`\\?"(?:d|p|q|dp|dq|qi|k)\\?"[ \t]*:[ \t]*\\?"(?P<s>[A-Za-z0-9_-]{16,})\\?"`),
			Boundary: isTokenByte, Check: checkJWKMember, handAll: findAllAt(`\"`, matchJWKMember)},
		// WireGuard: wg set IFACE private-key <(echo KEY), preshared-key
		{ID: "private-key", Anchors: []string{"private-key", "preshared-key"}, After: 120, Priority: prioSpecific,
			Re:       regexp.MustCompile(`(?:private|preshared)-key[ \t]+(?:<\([ \t]*echo[ \t]+)?["']?(?P<s>[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)`),
			Boundary: isB64Word},
		// Tor control port: ADD_ONION ED25519-V3:<64-byte key> / RSA1024:<DER>
		{ID: "private-key", Anchors: []string{"ED25519-V3:"}, After: 100, Priority: prioSpecific,
			Re:       regexp.MustCompile(`ED25519-V3:(?P<s>[A-Za-z0-9+/]{86}==)`),
			Boundary: isB64Word, Check: checkRandom(4.0, 3)},
		{ID: "private-key", Anchors: []string{"RSA1024:"}, After: 1200, Priority: prioSpecific,
			Re:       regexp.MustCompile(`RSA1024:(?P<s>MII[A-Za-z0-9+/]{80,}={0,2})`),
			Boundary: isB64Word, Check: checkRandom(4.0, 3)},
		// Tor's v3 onion service secret key file, base64: "== ed25519v1-secret: type0 =="
		tok("private-key", `PT0gZWQyNTUxOXYxLXNlY3JldDogdHlwZ[A-Za-z0-9+/]{60,}={0,2}`, "PT0gZWQyNTUxOXYxLXNlY3JldD").bound(isB64).check(nil),
		// minisign and signify key files: the base64 line after
		// "untrusted comment: … secret key"
		{ID: "private-key", Anchors: []string{"untrusted comment:"}, After: 600, Priority: prioSpecific,
			Re: regexp.MustCompile(`untrusted comment:[^\n\\]*secret key[^\n\\]*(?:\r?\n|\\r?\\n)(?P<s>[A-Za-z0-9+/]{40,}={0,2})`)},
		// PKCS#12 (RFC 7292) in base64: SEQUENCE, then INTEGER 3 (the PFX
		// version); it holds the private key
		// (anchored on the version's base64, IBAz, after a 2-byte length)
		{ID: "private-key-pkcs12", Anchors: []string{"IBAzC", "MIACAQMw"}, Before: 6, After: 20000, Priority: prioPrefix,
			Re:       regexp.MustCompile(`MI[A-Za-z0-9+/]{4}IBAzC[A-Za-z0-9+/]{60,}={0,2}|MIACAQMw[A-Za-z0-9+/]{60,}={0,2}`),
			Boundary: isB64, Check: checkPKCS12},
		// Docker's config.json in base64 (a kubernetes.io/dockerconfigjson
		// Secret's .dockerconfigjson): {"auths": … with a credential
		tok("docker-config-auth", `(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewoJImF1dGhzIjog|eyAiYXV0aHMiOi)[A-Za-z0-9+/]{20,}={0,2}`,
			"eyJhdXRocyI6", "ewogICJhdXRocyI6", "ewoJImF1dGhzIjog", "eyAiYXV0aHMiOi").after(20000).bound(isB64).check(checkDockerConfigB64),
		// base64 that the structure declares, decoded and scanned: the
		// data values of a Kubernetes Secret (YAML or JSON), a value whose
		// name ends in _B64/_BASE64, and what is piped to base64 -d; the
		// encoded span is the secret
		{ID: "encoded-secret", Anchors: []string{"kind: secret", `"kind": "secret"`, `"kind":"secret"`}, Fold: true, Before: 4000, After: 16000, Priority: prioContext,
			Re:       regexp.MustCompile(`(?m)(?:^[ \t]+[\w.-]+:[ \t]+|"[\w.-]+"[ \t]*:[ \t]*")(?P<s>[A-Za-z0-9+/]{12,}={0,2})(?:[ \t]*$|")`),
			Boundary: isB64Word, Check: checkSecretDataValue}, // encoded5.go
		{ID: "encoded-secret", Anchors: []string{"_b64", "_base64", "-b64", "-base64"}, Fold: true, Before: 60, After: 16000, Priority: prioContext,
			Re:       regexp.MustCompile(`[A-Za-z0-9]+[_-](?i:b64|base64)["']?[ \t]*(?::=|=|:)[ \t]*["']?(?P<s>[A-Za-z0-9+/]{12,}={0,2})`),
			Boundary: isB64, Check: checkDecodedHoldsSecret},
		{ID: "encoded-secret", Anchors: []string{"base64 -d", "base64 --decode", "base64 -D"}, Before: 1200, After: 0, Priority: prioContext,
			Re:       regexp.MustCompile(`\b(?:echo|printf)[ \t]+(?:-[neE][ \t]+|["']%s(?:\\n)?["'][ \t]+)?["']?(?P<s>[A-Za-z0-9+/]{12,}={0,2})["']?[ \t]*\|[ \t]*(?:openssl[ \t]+(?:enc[ \t]+)?-?)?base64[ \t]+(?:-d|--decode|-D)`),
			Boundary: isB64Word, Check: checkDecodedHoldsSecret},
		// Telegram's Bot API URL (https://api.telegram.org/bot<token>/METHOD):
		// the token glued to "bot", which the token rule's boundary refuses
		{ID: "telegram-bot-token", Anchors: []string{"/bot"}, After: 60, Priority: prioPrefix,
			Re:    regexp.MustCompile(`/bot(?P<s>[0-9]{5,16}:A[A-Za-z0-9_-]{33,34})`),
			Check: func(text string, s, e int) bool { return e == len(text) || !isTokenByte(text[e]) }},
	}, keyRules2()...), encodedRules()...) // keys2.go, encoded.go
}

// plainScanner scans what an encoded span decodes to, with the built-in
// rules: the first scanner New made with them alone (the redactor's own,
// when it has no user rules), else one compiled on first use. A second
// compile cost redact-secrets 20-200 ms and 10 MB of garbage.
var defaultScanner atomic.Pointer[Scanner]

func plainScanner() *Scanner {
	if s := defaultScanner.Load(); s != nil {
		return s
	}
	s, err := New(Options{})
	if err != nil {
		panic(err) // the built-in rules compile (TestPositives)
	}
	return s
}

// keepIfDefault: s becomes plainScanner's when opts adds nothing to the
// built-in rules and none was kept yet.
func keepIfDefault(s *Scanner, opts Options) {
	if len(opts.ExtraRules) == 0 && len(opts.Allow) == 0 && !opts.DisableDefaults {
		defaultScanner.CompareAndSwap(nil, s)
	}
}

// checkDecodedHoldsSecret: text[s:e] is standard base64 of text (not of
// binary data: a certificate's DER) in which the built-in rules find a
// secret.
func checkDecodedHoldsSecret(text string, s, e int) bool {
	if (e-s)%4 != 0 || e-s > 16000 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(text[s:e])
	if err != nil || len(b) < 8 {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return holdsSecret(linePrefix(text, s), string(b), "") // judged under its name (encoded.go)
}

// checkPPK: the private lines of a PuTTY key file (its first line names
// the format), with a blob longer than a placeholder.
func checkPPK(text string, s, e int) bool {
	if e-s < 40 {
		return false
	}
	return strings.Contains(text[max(0, s-9000):s], "PuTTY-User-Key-File-")
}

// checkJWKMember: the member is in the same JSON object as "kty" (no brace
// between them) and is not a public key's member: "d" of a JWK Set's
// object, "k" of an oct key.
func checkJWKMember(text string, s, e int) bool {
	open := strings.LastIndexByte(text[:s], '{')
	if open < 0 {
		return false
	}
	close := strings.IndexByte(text[s:], '}')
	if close < 0 {
		close = len(text) - s
	}
	if strings.IndexByte(text[open+1:s], '}') >= 0 {
		return false
	}
	obj := text[open : s+close]
	return (strings.Contains(obj, `"kty"`) || strings.Contains(obj, `\"kty\"`)) && entropy(text[s:e]) >= 3.5
}

// checkPKCS12: the base64 decodes to a DER SEQUENCE whose first element is
// INTEGER 3.
func checkPKCS12(text string, s, e int) bool {
	if e-s < 64 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(text[s : s+12])
	if err != nil || len(b) < 9 || b[0] != 0x30 {
		return false
	}
	i := 2
	switch {
	case b[1] == 0x80 || b[1] < 0x80:
	case b[1] >= 0x81 && b[1] <= 0x84:
		i += int(b[1] - 0x80)
	default:
		return false
	}
	return i+3 <= len(b) && b[i] == 0x02 && b[i+1] == 0x01 && b[i+2] == 0x03
}

// checkDockerConfigB64: Docker's config.json, base64, that holds a
// credential ("auth", "password", "identitytoken" with a value).
func checkDockerConfigB64(text string, s, e int) bool {
	n := min(e-s, 16000) / 4 * 4
	b, err := base64.StdEncoding.DecodeString(text[s : s+n])
	if err != nil {
		return false
	}
	d := string(b)
	for _, k := range []string{`"auth"`, `"password"`, `"identitytoken"`, `"registrytoken"`} {
		i := strings.Index(d, k)
		if i < 0 {
			continue
		}
		v := strings.TrimLeft(d[i+len(k):], " \t\r\n:")
		if len(v) > 5 && v[0] == '"' && v[1] != '"' {
			return true
		}
	}
	return false
}

// percentDecoded is v with its %XX escapes decoded (RFC 3986); v itself
// when an escape is malformed.
func percentDecoded(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		if i+2 >= len(v) || !isHex(v[i+1]) || !isHex(v[i+2]) {
			return v
		}
		b.WriteByte(unhex(v[i+1])<<4 | unhex(v[i+2]))
		i += 2
	}
	return b.String()
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// hclVariableDefault: the identifier text[l:r] is the quoted label of a
// Terraform/HCL variable block (variable "db_password" {), whose default
// within the block (before its closing brace, 400 bytes at most) is the
// value: it returns the default's quoted value, or -1.
func hclVariableDefault(text string, l, r int) (int, int, bool) {
	if l < 10 || r >= len(text) || text[l-1] != '"' || text[r] != '"' || !strings.HasSuffix(text[:l-1], "variable ") {
		return -1, -1, false
	}
	k := skipBlanks(text, r+1)
	if k >= len(text) || text[k] != '{' {
		return -1, -1, false
	}
	block := text[k+1 : min(len(text), k+400)]
	if c := strings.IndexByte(block, '}'); c >= 0 {
		block = block[:c]
	}
	d := strings.Index(block, "default")
	if d < 0 {
		return -1, -1, false
	}
	q := skipBlanks(block, d+len("default"))
	if q >= len(block) || block[q] != '=' {
		return -1, -1, false
	}
	q = skipBlanks(block, q+1)
	if q >= len(block) || block[q] != '"' {
		return -1, -1, false
	}
	end := strings.IndexByte(block[q+1:], '"')
	if end <= 0 {
		return -1, -1, false
	}
	base := k + 1 + q + 1
	return base, base + end, true
}
