package redact

import "strings"

// The second round of false positives as classes (issue 31: "0 false
// redactions per MB"; development set testdata/dev-precision2.txt). Each
// check decides by what the text says around a value — the name, the
// provider named, the call the value is given to — never by the value's
// prefix alone, and each class keeps its secrets of the same shape.

// ---- a provider's name counts as a word or a name part

// kwNameSuffixes are the words a provider's name may run into without a
// separator and still be its name (ABLYKEY, SUMOLOGIC_…, SONARQUBE_…,
// algoliasearch, datadoghq): a key's own words and the providers'
// product names.
var kwNameSuffixes = []string{"key", "api", "token", "tok", "secret", "auth", "access", "client", "app", "sdk", "cli",
	"id", "pass", "pwd", "user", "account", "search", "qube", "cloud", "logic", "hq", "ci", "io", "ai", "ml", "bot", "hook", "url", "dsn", "cred", "private", "pat"}

// kwNamePart reports whether the keyword of a provider's rule at
// text[hs:he] stands as a word or a name part of the identifier text[l:e]
// (ABLY_KEY, ably.key, ablyKey, ABLYKEY), not inside a longer word
// (probably, nonlinear, incoherent, onlooker, Betsy, steadfastly).
func kwNamePart(text string, l, e, hs, he int) bool {
	if hs > l && !partBoundary(text[hs-1], text[hs]) {
		return false
	}
	if he >= e || partBoundary(text[he-1], text[he]) {
		return true
	}
	k := he
	for k < e && isAlnum(text[k]) {
		k++
	}
	for _, w := range kwNameSuffixes {
		if k-he >= len(w) && hasFoldAt(text[:k], he, w) {
			return true
		}
	}
	return false
}

// partBoundary: a name part ends between a and b (a separator, a hump of
// camelCase, a change between letters and digits).
func partBoundary(a, b byte) bool {
	return !isAlnum(a) || !isAlnum(b) || isLower(a) && isUpper(b) || isDigit(a) != isDigit(b)
}

// ---- pk_: publishable for most providers, private for a few

// privatePK: the pk_ shapes of the providers that call pk_ a private key:
// Klaviyo (pk_ and 34 hex digits), ClickUp (pk_<user id>_…), Courier
// (pk_prod_/pk_test_ and 28 upper-case letters and digits; Liveblocks'
// pk_prod_ publishable keys are of mixed case).
func privatePK(v string) bool {
	if !strings.HasPrefix(v, "pk_") {
		return false
	}
	r := v[3:]
	if len(r) == 34 && allHex(r) && strings.ToLower(r) == r {
		return true
	}
	if r != "" && isDigit(r[0]) {
		return true
	}
	for _, env := range []string{"prod_", "test_"} {
		if t, ok := strings.CutPrefix(r, env); ok && len(t) == 28 && upperDigits(t) {
			return true
		}
	}
	return false
}

// publishablePK: a pk_ value that is a publishable key by its context:
// the name it is given to says public (PUBLIC_API_KEY, publicApiKey,
// NEXT_PUBLIC_LIVEBLOCKS_PUBLIC_KEY, publishableKey: even a framework's
// public prefix, for a pk_ value), or its sibling secret key sk_<env>_ is
// named within 2 KB. Never a shape a provider gives to a private key
// (privatePK).
func publishablePK(text string, l, r, s int, v string) bool {
	if len(v) < 8 || !strings.HasPrefix(v, "pk_") || privatePK(v) {
		return false
	}
	if l < r && mayNamePublic(text[l:r]) {
		var arr [12]string
		for _, w := range appendWords(arr[:0], text[l:r]) {
			if w == "public" || w == "publishable" || w == "pub" {
				return true
			}
		}
	}
	env, _, ok := strings.Cut(v[3:], "_")
	if !ok || env == "" || len(env) > 8 {
		return false
	}
	lo, hi := max(0, s-2048), min(len(text), s+2048)
	return strings.Contains(text[lo:hi], "sk_"+env+"_")
}

// ---- keys documented as public in front-end code

// browserKeyMarkers name the browser SDK calls and configurations whose
// key the provider documents as public: Segment's analytics.js write key
// ("Analytics.js write keys are public": the snippet's analytics.load,
// analytics-next's AnalyticsBrowser.load, its analyticsWriteKey global),
// Algolia's search-only key (the lite client and InstantSearch only
// search; DocSearch's key is search-only by design), Rollbar's
// post_client_item token (the browser snippet's _rollbarConfig,
// @rollbar/react).
var browserKeyMarkers = []string{"analytics.load(", "AnalyticsBrowser.load(", "analyticsWriteKey", "@segment/analytics-next",
	"algoliasearch/lite", "liteClient", "searchClient", "instantsearch(", "docsearch(", "search-only",
	"_rollbarConfig", "@rollbar/react", "post_client_item"}

// browserKey: the value at text[s:e], given to the name text[l:r] (empty
// for a call's argument), is a key one of browserKeyMarkers says is
// public: a marker on the value's line or in the lines above it (up to
// 400 bytes, not past a blank line), for a value in quotes. A name that says admin, secret,
// private, server or master is a server's key whatever stands near it.
func browserKey(text string, l, r, s, e int) bool {
	if s == 0 || text[s-1] != '\'' && text[s-1] != '"' && text[s-1] != '`' {
		return false // a code's string: the SDKs' keys are given in quotes
	}
	lo := max(0, s-400)
	if i := strings.LastIndex(text[lo:s], "\n\n"); i >= 0 {
		lo += i + 2
	}
	w := text[lo:lineEnd(text, e)]
	found := false
	for _, m := range browserKeyMarkers {
		if strings.Contains(w, m) {
			found = true
			break
		}
	}
	if !found || l >= r {
		return found
	}
	var arr [12]string
	for _, w := range appendWords(arr[:0], text[l:r]) {
		switch w {
		case "admin", "secret", "private", "server", "master", "password", "management":
			return false
		}
	}
	return true
}

// publicByContext: the generic rule's value text[s:e] of the name
// text[l:r] is public or no secret by what stands around it (the classes
// of this file), tested on a value that would otherwise be reported.
func publicByContext(text string, l, r, s, e int) bool {
	return publishablePK(text, l, r, s, text[s:e]) || browserEnvKey(text[l:r]) || encryptedByKeyService(text, l, r, s, e) ||
		sdkKeyName(text[l:r]) && browserKey(text, l, r, s, e)
}

// sdkKeyName: the browser SDKs' own names for their key (Segment's
// writeKey and analyticsWriteKey, DocSearch's apiKey, Rollbar's
// accessToken), as they spell them: only these names look for
// browserKeyMarkers (a window of text per value).
func sdkKeyName(ident string) bool {
	if i := strings.LastIndexByte(ident, '.'); i >= 0 {
		ident = ident[i+1:] // window.analyticsWriteKey
	}
	switch ident {
	case "writeKey", "analyticsWriteKey", "apiKey", "accessToken":
		return true
	}
	return false
}

// browserEnvKey: a variable a front-end framework puts in the browser
// bundle (NEXT_PUBLIC_, VITE_, REACT_APP_, EXPO_PUBLIC_, NUXT_PUBLIC_,
// GATSBY_) holding Segment's write key: a browser's write key is public
// by design (a server's SEGMENT_WRITE_KEY stays reported).
func browserEnvKey(ident string) bool {
	if len(ident) < 17 || !strings.EqualFold(ident[len(ident)-17:], "segment_write_key") {
		return false
	}
	for _, p := range []string{"NEXT_PUBLIC_", "VITE_", "REACT_APP_", "EXPO_PUBLIC_", "NUXT_PUBLIC_", "GATSBY_"} {
		if strings.HasPrefix(ident, p) {
			return true
		}
	}
	return false
}

// ---- a name that says what its value is

// keyServiceCiphertext: v is a value encrypted by a key service, by the
// prefix the service writes: an AWS KMS ciphertext blob (base64 of the
// header bytes 01 02 02 00 78 or 01 01 02 00 78), a Google Cloud KMS
// ciphertext (CiQA: the protobuf field of its 36-byte key version), a
// Vault transit ciphertext (vault:v1:). Reading one needs the key
// service, like sops' ENC[…] values, which are not reported either.
func keyServiceCiphertext(v string) bool {
	switch {
	case len(v) >= 100 && (strings.HasPrefix(v, "AQICAH") || strings.HasPrefix(v, "AQECAH")):
	case len(v) >= 60 && strings.HasPrefix(v, "CiQA"):
	case strings.HasPrefix(v, "vault:v"):
	default:
		return false
	}
	return true
}

// namesEncrypted: the identifier says its value is encrypted
// (encrypted_password, EncryptedPassword, db_password_encrypted,
// kms_…, ciphertext).
func namesEncrypted(ident string) bool {
	var arr [12]string
	for _, w := range appendWords(arr[:0], ident) {
		switch w {
		case "encrypted", "enc", "kms", "ciphertext", "cipher":
			return true
		}
	}
	return false
}

// encryptedByKeyService: the value text[s:e] of the identifier text[l:r]
// is a key service's ciphertext under a name that says encrypted.
func encryptedByKeyService(text string, l, r, s, e int) bool {
	return l < r && keyServiceCiphertext(text[s:e]) && namesEncrypted(text[l:r])
}

// propertiesPassword: a Java properties line (jdbc.password=word,
// spring.datasource.password=word: a dotted lower-case key at the start
// of its line, "=", the value to the end of the line) holding a word
// envPassword would take from an .env file. Not code (this.password=…;,
// self.password=…): no statement end, no this or self.
func propertiesPassword(text string, l, r int, ident, v string, quoted bool) bool {
	if quoted || r >= len(text) || text[r] != '=' || !strings.Contains(ident, ".") || !atLineStart(text, l) {
		return false
	}
	for i := 0; i < len(ident); i++ {
		if c := ident[i]; !isLower(c) && !isDigit(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	if strings.HasPrefix(ident, "this.") || strings.HasPrefix(ident, "self.") {
		return false
	}
	end := r + 1 + len(v)
	if end > len(text) || text[r+1:end] != v || end < len(text) && text[end] != '\n' && text[end] != '\r' {
		return false
	}
	return wordPassword(v)
}
