package redact

import (
	"encoding/base64"
	"strings"
)

// Values their owners publish on purpose (issue 31: "0 false lines per
// MB"; development set testdata/dev-nonsecrets.txt). A false redaction
// costs the reader of a shared transcript its meaning, so what a provider
// documents as public, and the exact example values documentation prints,
// are not reported. Each entry names the document that says so. A secret
// of the same provider keeps its own prefix or name (sk_live_, phx_,
// sb_secret_, RECAPTCHA_SECRET_KEY) and is still reported.

// publicPrefixes: prefixes a provider gives only to keys it documents as
// publishable (meant for browser or app code).
var publicPrefixes = []string{
	"pk_live_", "pk_test_", // Stripe "API keys": publishable keys "can be publicly accessible in your web or mobile app's client-side code"; Clerk and Paystack use the same prefix for their publishable/public keys
	"phc_",            // PostHog: the project API key "is write-only and safe to use in public apps" (personal keys are phx_)
	"sb_publishable_", // Supabase "API keys": publishable keys are safe to expose in a browser (secret keys are sb_secret_)
}

// publicPrefix reports whether v starts with a publishable prefix, is a
// public JWT (publicJWT), or is
// a Datadog client token ("pub" and 32 hex digits: Datadog RUM and
// browser logs "client tokens" are meant for the browser) or an Adyen
// client key (live_ or test_ and 32 upper-case letters and digits: "the
// client key ... is used client-side").
func publicPrefix(v string) bool {
	if len(v) < 8 {
		return false
	}
	switch v[0] {
	case 'p', 's':
	case 'e':
		return strings.HasPrefix(v, "eyJ") && publicJWT(v) // Supabase's anon key under any name
	case 'l', 't':
		return len(v) == 37 && (strings.HasPrefix(v, "live_") || strings.HasPrefix(v, "test_")) && upperDigits(v[5:])
	default:
		return false
	}
	for _, p := range publicPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return len(v) == 35 && strings.HasPrefix(v, "pub") && allHex(v[3:]) && strings.ToLower(v[3:]) == v[3:]
}

func upperDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isUpper(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// publicWords reports whether an identifier's words (appendWords) name a
// value its provider documents as public, or an identifier rather than a
// credential:
//   - publishable, public (not the frameworks' NEXT_PUBLIC_/EXPO_PUBLIC_
//     prefix, which says where a variable goes, not what it holds), pub key;
//   - a site key (reCAPTCHA, hCaptcha, Turnstile: the site key is put in
//     the page's HTML; the secret key is the server's);
//   - Supabase's anon key ("safe to use in a browser" with row level
//     security), Application Insights' instrumentation key (Microsoft:
//     "isn't a secret"), Algolia's search-only key ("safe to use in your
//     frontend code"), Mixpanel's project token (put in the browser
//     snippet by design), Pusher's app key (the
//     app secret is the server's), Rollbar's client token
//     (post_client_item: "safe to use in client-side code"), Adyen's
//     client key, Dropbox's app key (its OAuth client id);
//   - a client id, an app id, a base id (OAuth: "the client identifier is
//     not a secret", RFC 6749 section 2.2; the client secret is the
//     credential).
//
// Not here, though their providers call them public, because the
// labelled sets of this project count them as secrets: Segment's write key
// (issue31.txt), the ids gitleaks' tests label (Sumo Logic access id,
// MessageBird client id). A name holding secret, private, password or
// credential is never public.
func publicWords(words []string) bool { return publicWordsOf(words, "") }

// publicWordsOf is publicWords where the provider may also be named by
// rule, the id of the provider's rule (auth0-client-secret) that found the
// value under a key that does not name it (auth0: {clientId: '…'}).
func publicWordsOf(words []string, rule string) bool {
	if len(words) == 0 {
		return false
	}
	vendor := func(name string) bool {
		if strings.HasPrefix(rule, name+"-") {
			return true
		}
		for i, w := range words {
			// a name split at its digits (auth0: auth, 0)
			if w == name || i+1 < len(words) && strings.HasPrefix(name, w) && w+words[i+1] == name {
				return true
			}
		}
		return false
	}
	for _, w := range words {
		if w == "secret" || w == "private" || w == "password" || w == "passwd" || w == "credential" || w == "credentials" {
			return false // NUXT_PUBLIC_CLIENT_SECRET: a secret whatever else the name says
		}
	}
	for i, w := range words {
		switch w {
		case "publishable", "pubkey", "publickey", "sitekey":
			return true
		case "public", "pub":
			if i > 0 && (words[i-1] == "next" || words[i-1] == "expo" || words[i-1] == "nuxt") || i == 0 && len(words) > 2 {
				continue // NEXT_PUBLIC_OPENAI_API_KEY, PUBLIC_X_KEY (SvelteKit): the framework's prefix, not what the value is
			}
			if w == "pub" && i+1 < len(words) && words[i+1] != "key" || i+1 < len(words) && words[i+1] == "api" {
				continue // SEGMENT_PUBLIC_API_TOKEN: a token of Segment's "Public API", a secret
			}
			return true
		case "site", "anon", "instrumentation":
			if i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		case "search":
			if i+1 < len(words) && words[i+1] == "only" || vendor("algolia") {
				return true
			}
		case "project":
			if vendor("mixpanel") && i+1 < len(words) && words[i+1] == "token" {
				return true
			}
		case "app":
			if (vendor("pusher") || vendor("dropbox")) && i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		case "id":
			// an OAuth client's id ("not a secret": RFC 6749 section 2.2),
			// an app's or a base's id (Airtable's appXXXX is in every API
			// URL); MessageBird's client id is labelled a secret in
			// gitleaks' tests, and a rule made to find an id
			// (adobe-client-id) finds it
			if i > 0 && i == len(words)-1 && (words[i-1] == "client" || words[i-1] == "app" || words[i-1] == "base") && !vendor("messagebird") && !strings.HasSuffix(rule, "-id") {
				return true
			}
		case "client":
			if vendor("rollbar") && i+1 < len(words) && (words[i+1] == "token" || i > 0 && words[i-1] == "post" && words[i+1] == "item") || vendor("adyen") && i+1 < len(words) && words[i+1] == "key" {
				return true
			}
		}
	}
	return false
}

// publicIdent is publicWords of an identifier.
func publicIdent(ident string) bool {
	if !mayNamePublic(ident) {
		return false
	}
	var arr [12]string
	return publicWords(appendWords(arr[:0], ident))
}

// publicTriggers are the words publicWords starts from; mayNamePublic
// looks for them in an identifier, in any case, before it is split into
// words (which makes a lower-case copy of it: on text dense with secrets,
// an allocation for every name).
var publicTriggers = []string{"pub", "site", "anon", "instrumentation", "search", "project", "app", "client"}

func mayNamePublic(ident string) bool {
	if n := len(ident); n >= 2 && ident[n-2]|0x20 == 'i' && ident[n-1]|0x20 == 'd' {
		return true // a name ending in id (CLIENT_ID, baseId)
	}
	for i := 0; i < len(ident); i++ {
		switch ident[i] | 0x20 {
		case 'p', 's', 'a', 'i', 'c':
			for _, w := range publicTriggers {
				if w[0] == ident[i]|0x20 && hasFoldAt(ident, i, w) {
					return true
				}
			}
		}
	}
	return false
}

// publicInitCalls are the browser SDK calls whose first argument is the
// provider's public project key: mixpanel.init (project token), amplitude
// init (the browser API key; the secret key is only for the export APIs),
// new Pusher(key, {cluster}) (the app key; the app secret is the server's).
var publicInitCalls = []string{"mixpanel.init", "amplitude.init", "amplitude.getInstance().init", "new Pusher"}

// valueKeyPublic: the value at text[s:] is assigned to a key that names a
// public value (clientId: '…', "sitekey": "…"), or is the first argument
// of a browser SDK's init call. Only separators and quotes may stand
// between the key and the value.
func valueKeyPublic(text string, s int, rule string) bool {
	j := s
	for j > 0 && strings.IndexByte(" \t\"'`:=", text[j-1]) >= 0 {
		j--
	}
	if j > 0 && text[j-1] == '(' {
		for _, c := range publicInitCalls {
			if strings.HasSuffix(text[:j-1], c) {
				return true
			}
		}
		return false
	}
	if j == s {
		return false
	}
	l := j
	for l > 0 && isIdentByte(text[l-1]) {
		l--
	}
	if l == j || !mayNamePublic(text[l:j]) {
		return false
	}
	var arr [12]string
	return publicWordsOf(appendWords(arr[:0], text[l:j]), rule)
}

// documentedExamples are example credentials printed in standards and
// vendors' documentation, exactly: no one's credential, and a transcript
// quoting them loses meaning when they are cut. (AWS's documented pair,
// AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, stays
// reported: README, "a fake or truncated key with a real prefix".)
var documentedExamples = map[string]string{
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c":                         "jwt.io's HS256 example",
	"eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk": "RFC 7519 section 3.1",
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==":                                                                                            "Azurite's well-known devstoreaccount1 key (Microsoft Learn, Use Azurite)",
	"2YotnFZFEjr1zCsicMWpAA":       "RFC 6749 sections 1.5, 4.1.4, 5.1 (access token)",
	"tGzv3JOkF0XG5Qx2TlKWIA":       "RFC 6749 sections 4.1.4, 5.1, 6 (refresh token)",
	"SplxlOBeZQQYbYS6WxSbIA":       "RFC 6749 section 4.1.2 (authorization code)",
	"czZCaGRSa3F0MzpnWDFmQmF0M2JW": "RFC 6749 section 2.3.1 (s6BhdRkqt3:gX1fBat3bV)",
	"mF_9.B5f-4.1JqM":              "RFC 6750 section 2.1",
	"QWxhZGRpbjpvcGVuIHNlc2FtZQ==": "RFC 7617 section 2 (Aladdin:open sesame)",
	"JBSWY3DPEHPK3PXP":             "Google Authenticator's Key Uri Format example",
}

// exampleLens marks the lengths of documentedExamples, so that most
// candidates are turned away before the map is hashed.
var exampleLens = func() (t [256]bool) {
	for v := range documentedExamples {
		t[len(v)] = true
	}
	return
}()

// documentedExample reports whether a finding is one of documentedExamples.
func documentedExample(v string) bool {
	if len(v) >= len(exampleLens) || !exampleLens[len(v)] {
		return false
	}
	_, ok := documentedExamples[v]
	return ok
}

// publicJWT: a JWT whose payload declares a public role: Supabase's anon
// key ({"iss":"supabase","role":"anon"}; Supabase "API keys": "safe to use
// in a browser" with row level security), which is a JWT.
func publicJWT(tok string) bool {
	i := strings.IndexByte(tok, '.')
	// the payload starts {"iss":"supabase", (Supabase writes iss first):
	// no other JWT is decoded
	if i < 0 || !strings.HasPrefix(tok[i+1:], "eyJpc3MiOiJzdXBhYmFzZSIs") {
		return false
	}
	rest := tok[i+1:]
	k := strings.IndexByte(rest, '.')
	if k < 0 || k > 1024 {
		return false
	}
	p, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(rest[:k], "="))
	if err != nil {
		return false
	}
	s := string(p)
	return strings.Contains(s, `"role":"anon"`) && strings.Contains(s, `"iss":"supabase"`)
}

// arnResource: the keyword at text[l:] sits inside an ARN
// (arn:aws:secretsmanager:…:secret:prod/db-Xw9cPM), where it names a
// resource type, not a value being assigned.
func arnResource(text string, l int) bool {
	if l == 0 || text[l-1] != ':' {
		return false
	}
	i := l - 1
	for i > 0 && !isSpace(text[i-1]) && strings.IndexByte("\"'`=,([{", text[i-1]) < 0 {
		i--
	}
	return strings.HasPrefix(text[i:l], "arn:")
}

// encryptedDataKey: the key at text[l:] is a member of a YAML mapping
// named encryptedData, a Bitnami SealedSecret's values: encrypted to the
// cluster's key ("safe to store ... even in a public repository"), not
// secrets. Looked for only when the key starts an indented line, within
// 4 KB before it.
func encryptedDataKey(text string, l int) bool {
	ls := l
	for ls > 0 && (text[ls-1] == ' ' || text[ls-1] == '\t') {
		ls--
	}
	ind := l - ls
	if ind == 0 || ls > 0 && text[ls-1] != '\n' {
		return false
	}
	for end, stop := ls-1, max(0, ls-4096); end > stop; {
		st := strings.LastIndexByte(text[:end], '\n') + 1
		line := text[st:end]
		k := 0
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		if k < len(line) && k < ind {
			return strings.HasPrefix(line[k:], "encryptedData:")
		}
		end = st - 1
	}
	return false
}
