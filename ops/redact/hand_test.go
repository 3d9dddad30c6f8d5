package redact

import (
	"math"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handPieces are the fragments the adversarial texts are made of: the
// literals of the hand-written rules, their near misses, separators, JSON
// escapes, CRLF, non-ASCII and broken UTF-8.
var handPieces = []string{
	"-----BEGIN", "-----END", "-----", "----", "-", " ", "RSA", " RSA", " PRIVATE KEY", "PRIVATE KEY", " BLOCK",
	" OPENSSH", " PGP", " EC", " ENCRYPTED", "PUBLIC KEY", "\n", "\r\n", "\\n", "\\r", "\\", "\\t", "\t", "\f",
	"→", "\xe2\x86", "\xe2", "é", "\xff", "=", "==", "+", "/", ":", "@", "'", "\"", "\\\"", "$", "|", ";", "&",
	"     3→", "MIIEpAIBAAKCAQEA", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
	"-----BEGIN OPENSSH PRIVATE KEY-----\n", "-----END OPENSSH PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----",
	"-----END PGP PRIVATE KEY BLOCK-----", "-----BEGIN PRIVATE KEY-----\\n", "\\n-----END PRIVATE KEY-----",
	"-u", "-u ", "--user", "--user=", "-u'", "-u\"", "user:", ":", "-p", " -p", "\t-p", "-pX", "mysql", "mysqldump ",
	"mysqladmin\t", "mariadb ", "-h db", " -P 3306", "AKIA", "A3T", "ASIA", "A3TX", "bearer", "Bearer ", "BEARER\t",
	"basic ", "Basic\t", "aws_secret_access_key = ", "SecretAccessKey", "~", "_", ".", "%", "k", "K", "\u212a", "ſ",
}

const handB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// handTexts builds n adversarial texts that start with one of anchors.
func handTexts(r *rand.Rand, anchors []string, n, maxLen int) []string {
	var out []string
	for len(out) < n {
		var b strings.Builder
		b.WriteString(flipCase(r, anchors[r.Intn(len(anchors))]))
		k := r.Intn(maxLen)
		for b.Len() < k {
			switch r.Intn(6) {
			case 0, 1:
				b.WriteString(handPieces[r.Intn(len(handPieces))])
			case 2:
				b.WriteString(anchors[r.Intn(len(anchors))])
			default:
				for j := r.Intn(70); j >= 0; j-- {
					b.WriteByte(handB64[r.Intn(len(handB64))])
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

// flipCase changes the case of some letters (the prefilter finds
// case-insensitive anchors whatever their case).
func flipCase(r *rand.Rand, a string) string {
	if r.Intn(2) == 0 {
		return a
	}
	b := []byte(a)
	for i, c := range b {
		if r.Intn(2) == 0 {
			if isLower(c) {
				b[i] = c - 'a' + 'A'
			} else if isUpper(c) {
				b[i] = c - 'A' + 'a'
			}
		}
	}
	return string(b)
}

// handCorpus: every positive case, hard negative and public labelled
// example (the texts the evaluation runs on), and blocks cut, nested, with
// CRLF, escaped newlines and huge bodies.
func handCorpus(t *testing.T) []string {
	var out []string
	for _, c := range positives() {
		out = append(out, strings.Replace(c.text, "%s", c.secret, 1))
	}
	out = append(out, hardNegatives...)
	for _, ps := range publicSets {
		exs, err := labelled.Load(ps.path, ps.set)
		require.NoError(t, err)
		for _, e := range exs {
			out = append(out, e.Text)
		}
	}
	r := rand.New(rand.NewSource(11))
	body := func(n int, nl string) string {
		var b strings.Builder
		for b.Len() < n {
			for j := 0; j < 64; j++ {
				b.WriteByte(handB64[r.Intn(len(handB64))])
			}
			b.WriteString(nl)
		}
		return b.String()
	}
	for _, nl := range []string{"\n", "\r\n", `\n`, `\r\n`, "\n     4→", ""} {
		for _, label := range []string{"RSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK", "PUBLIC KEY"} {
			begin, end := "-----BEGIN "+label+"-----"+nl, "-----END "+label+"-----"
			huge := body(40000, nl) // a huge line: whole, and without its END
			out = append(out, begin+huge+end, begin+huge)
			for _, n := range []int{0, 40, 300, 11990, 12100, 19990, 20100} {
				b := body(n, nl)
				out = append(out,
					begin+b+end,        // whole
					begin+b,            // unterminated
					begin+b[:len(b)/2], // cut in the middle of a line
					begin+begin+b+end,  // nested BEGIN
					begin+b+"-----END"+b+end+nl+begin+b+end, // a broken END, then the real one, then another block
					`{"text":"`+strings.ReplaceAll(begin+b+end, "\n", `\n`)+`"}`,
					begin+b+"-----END "+label+"----"+nl+"x", // END without its last dash
				)
			}
		}
	}
	return out
}

// TestHandMatchersAgreeWithRegexp: each hand-written matcher returns what
// its rule's anchored regexp returns, groups included, on the window of
// every anchor hit of the evaluation's texts and of adversarial texts
// (unterminated and nested blocks, CRLF, escaped newlines, huge bodies,
// broken UTF-8), and on the whole rest of the text after the hit.
func TestHandMatchersAgreeWithRegexp(t *testing.T) {
	t.Parallel()
	s := mustNew(t, Options{})
	corpus := handCorpus(t)
	r := rand.New(rand.NewSource(5))
	rules, matched := 0, 0
	for _, rule := range s.rules {
		if rule.hand == nil {
			continue
		}
		rules++
		require.NotNil(t, rule.at, rule.ID)
		texts := append(append([]string(nil), corpus...), handTexts(r, rule.Anchors, 1500, 600)...)
		texts = append(texts, handTexts(r, rule.Anchors, 6, 30000)...)
		for _, text := range texts {
			for _, h := range s.findAnchors(text) {
				if s.rules[h.rule] != rule {
					continue
				}
				p := int(h.pos)
				en := len(text)
				if rule.After >= 0 {
					en = min(en, p+int(h.alen)+rule.After)
				}
				wins := []string{text[p:en]}
				if len(text)-p < 25000 {
					wins = append(wins, text[p:]) // the rest of the text, past the window
				}
				for _, win := range wins {
					want := rule.at.FindStringSubmatchIndex(win)
					got := rule.hand(win)
					if want != nil {
						matched++
					}
					if !assert.Equal(t, want, got, "%s on %q", rule.ID, win) {
						return
					}
				}
			}
		}
	}
	assert.GreaterOrEqual(t, rules, 2)
	assert.Greater(t, matched, 2000, "the texts match often")
}

// TestHandFindAllAgreesWithRegexp: the same for the matchers that stand for
// FindAllStringSubmatchIndex across a window (curl -u, class runs such as
// aws-secret-key's), on the window around every anchor hit, on windows cut
// at random and on whole texts.
func TestHandFindAllAgreesWithRegexp(t *testing.T) {
	t.Parallel()
	s := mustNew(t, Options{})
	corpus := handCorpus(t)
	r := rand.New(rand.NewSource(6))
	rules, matched := 0, 0
	for _, rule := range s.rules {
		if rule.handAll == nil {
			continue
		}
		rules++
		texts := append(append([]string(nil), corpus...), handTexts(r, rule.Anchors, 1000, 600)...)
		for k := 0; k < 1000; k++ {
			// the anchor inside the text, after some bytes
			pre := handTexts(r, []string{" ", "\n", "'", "x"}, 1, 40)[0]
			texts = append(texts, pre+handTexts(r, rule.Anchors, 1, 400)[0])
		}
		for _, text := range texts {
			var wins []string
			if len(text) < 4000 {
				wins = append(wins, text)
			}
			for _, h := range s.findAnchors(text) {
				if s.rules[h.rule] != rule {
					continue
				}
				st, en := max(0, int(h.pos)-rule.Before), len(text)
				if rule.After >= 0 {
					en = min(en, int(h.pos+h.alen)+rule.After)
				}
				wins = append(wins, text[st:en], text[st+r.Intn(en-st+1):en], text[st:en-r.Intn(en-st+1)])
			}
			for _, win := range wins {
				want := rule.Re.FindAllStringSubmatchIndex(win, -1)
				got := rule.handAll(win)
				matched += len(want)
				if !assert.Equal(t, want, got, "%s on %q", rule.ID, win) {
					return
				}
			}
		}
	}
	assert.GreaterOrEqual(t, rules, 3)
	assert.Greater(t, matched, 5000, "the texts match often")
}

// TestScanSameWithoutHandMatchers: whole scans (checks, priorities and
// overlaps included) find the same with the hand-written and fast
// matchers as with the regexps alone.
func TestScanSameWithoutHandMatchers(t *testing.T) {
	t.Parallel()
	fast := mustNew(t, Options{})
	slow := mustNew(t, Options{})
	slow.regexpOnly = true
	texts := handCorpus(t)
	r := rand.New(rand.NewSource(9))
	var anchors []string
	for _, rule := range fast.rules {
		if rule.hand != nil || rule.fast != nil {
			anchors = append(anchors, rule.Anchors...)
		}
	}
	texts = append(texts, handTexts(r, anchors, 3000, 2000)...)
	texts = append(texts, mixedText(128<<10)...)
	found := 0
	for _, text := range texts {
		want := slow.Scan(text)
		found += len(want)
		if got := fast.Scan(text); !assert.Equal(t, want, got, "%q\nwant %v\ngot  %v", text, describe(text, want), describe(text, got)) {
			return
		}
	}
	assert.Greater(t, found, 5000)
}

// entropyRef is entropy as it was before the table: the thresholds of
// the checks (entropy >= 3.5 …) see the same floats.
func entropyRef(s string) float64 {
	if s == "" {
		return 0
	}
	var cnt [256]int
	for i := 0; i < len(s); i++ {
		cnt[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range cnt {
		if c > 0 {
			p := float64(c) / n
			h -= float64(p * math.Log2(p))
		}
	}
	return h
}

func TestEntropySameAsLog2(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	sets := []string{"ab", "abc", "0123456789", "abcdef0123456789", handB64, handB64 + "-_=.~!@#$%^&*()", "\x00\xff\x80é"}
	for n := 0; n < 1100; n++ { // the table, the rows made on first use (to 1023), Log2 beyond
		tries := 200
		if n >= 300 {
			tries = 4
		}
		for k := 0; k < tries; k++ {
			set := sets[r.Intn(len(sets))]
			b := make([]byte, n)
			for i := range b {
				b[i] = set[r.Intn(len(set))]
			}
			s := string(b)
			if got, want := entropy(s), entropyRef(s); got != want {
				t.Fatalf("entropy(%q) = %v, want %v", s, got, want)
			}
		}
		// one byte n times, and two: below 256 bytes a count is held in
		// a byte (entropyRow8), 255 the most it takes
		for _, s := range []string{strings.Repeat("\xff", n), strings.Repeat("a", n) + "\x00", "\x00" + strings.Repeat("z", n)} {
			if got, want := entropy(s), entropyRef(s); got != want {
				t.Fatalf("entropy of %d bytes %q… = %v, want %v", len(s), s[:min(len(s), 3)], got, want)
			}
		}
	}
}

// TestEntropyAtLeastIsTheComparison: entropyAtLeast(s, m) answers
// entropy(s) >= m for every threshold the checks use and those around it,
// on random strings of every length to 300 over alphabets of 2 to 90
// bytes, and on the strings whose entropy is a threshold exactly or
// within a hair of it (k bytes equally often: log2(k); one byte once more
// or less), where the min-entropy bound is at its limit: the one place a
// shortcut that skipped the sum without a margin would answer otherwise.
func TestEntropyAtLeastIsTheComparison(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	thresholds := []float64{0, 1, 2, 2.5, 3, 3.2, 3.3, 3.5, 3.7, 4, 4.2, 4.5, 5, 6, 7, 8}
	sets := []string{"ab", "abc", "0123456789", "abcdef0123456789", handB64, handB64 + "-_=.~!@#$%^&*()", "\x00\xff\x80é"}
	check := func(s string) {
		t.Helper()
		h := entropy(s)
		for _, m := range append(thresholds, h, math.Nextafter(h, 0), math.Nextafter(h, 9)) {
			if got, want := entropyAtLeast(s, m), h >= m; got != want {
				t.Fatalf("entropyAtLeast(%q, %v) = %v, entropy %v", s, m, got, h)
			}
		}
	}
	for n := 0; n <= 300; n++ {
		for range 60 {
			set := sets[r.Intn(len(sets))]
			b := make([]byte, n)
			for i := range b {
				b[i] = set[r.Intn(len(set))]
			}
			check(string(b))
		}
	}
	for k := 1; k <= 90; k++ {
		for times := 1; k*times <= 300; times++ {
			var b []byte
			for c := range k {
				for range times {
					b = append(b, byte(33+c))
				}
			}
			check(string(b))
			check(string(b) + "!")
			check(string(b[1:]))
		}
	}
}

// TestCheckSetsSameAsContains: the one-pass part sets answer what a
// strings.Contains of each part answered, and the ASCII lower-casing what
// strings.ToLower gave (non-ASCII values still go through ToLower: the
// Kelvin sign lowers to k).
func TestCheckSetsSameAsContains(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	lists := [][]string{placeholderParts, fakeMarkers, softPlaceholderParts, {"xxxx", "XXXX", "****", "<", ">", "${", "{{", "...", "…"}}
	sets := []*partSet{placeholderPartSet, fakeMarkerSet, softPlaceholderSet, emptyPlaceholderSet}
	var pieces []string
	for _, l := range lists {
		pieces = append(pieces, l...)
	}
	for w := range placeholderWords {
		pieces = append(pieces, w, strings.ToUpper(w))
	}
	pieces = append(pieces, pathPrefixes...)
	pieces = append(pieces, pathSuffixes...)
	pieces = append(pieces, "\u212a", "ſ", "İ", "é", "\xff", "C:\\", "HTTPS://", ".PEM", ".Json")
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := r.Intn(4); k >= 0; k-- {
			if r.Intn(3) == 0 {
				b.WriteString(pieces[r.Intn(len(pieces))])
			} else {
				p := pieces[r.Intn(len(pieces))]
				b.WriteString(p[:r.Intn(len(p)+1)])
				for j := r.Intn(8); j > 0; j-- {
					b.WriteByte(handB64[r.Intn(len(handB64))])
				}
			}
		}
		v := b.String()
		if r.Intn(4) == 0 {
			v = flipCase(r, v)
		}
		for i, l := range lists {
			want := false
			for _, p := range l {
				want = want || strings.Contains(v, p)
			}
			require.Equal(t, want, sets[i].in(v), "list %d on %q", i, v)
		}
		require.Equal(t, placeholderWords[strings.ToLower(v)], isPlaceholderWord(v), v)
		require.Equal(t, looksLikePathOrURL(strings.ToLower(v)), looksLikePathOrURLFold(v), v)
	}
}

// splitWordsRef is splitWords as it was: each word lower-cased on its own.
func splitWordsRef(id string) []string {
	var words []string
	start := -1
	flush := func(i int) {
		if start >= 0 && i > start {
			words = append(words, strings.ToLower(id[start:i]))
		}
		start = -1
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 {
			p := id[i-1]
			if isUpper(c) && isLower(p) || isDigit(c) != isDigit(p) ||
				(isUpper(c) && isUpper(p) && i+1 < len(id) && isLower(id[i+1]) && i-start > 1) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(id))
	return words
}

func TestSplitWordsSameAsBefore(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	const set = "aAbBkKsSzZ09_-.é\u212a "
	for n := 0; n < 100000; n++ {
		b := make([]byte, r.Intn(30))
		for i := range b {
			b[i] = set[r.Intn(len(set))]
		}
		id := string(b)
		require.Equal(t, splitWordsRef(id), splitWords(id), id)
	}
}

// The AWS key id and secret pair (id, quote or not, blanks, a separator,
// blanks, quote or not, 40 characters of base64) is matched by hand as the
// regexp matches it, on texts made of those parts in every order and
// number: blanks that are the separator themselves, quotes on either side,
// secrets one character short or long, other separators and line breaks.
func TestAWSPairByHandAsTheRegexp(t *testing.T) {
	at := regexp.MustCompile(`^(?:(?:AKIA|ASIA)[A-Z0-9]{16}["'\x60]?[ \t]*[,:;|= \t][ \t]*["'\x60]?(?P<s>[A-Za-z0-9/+]{40}))`)
	secret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY+aB9"
	pieces := []string{"\"", "'", "`", " ", "\t", "  ", ",", ":", ";", "|", "=", "\n", "\r\n", "-", "x", "/", secret[:39], secret[:40], secret[:41], secret[:10]}
	r := rand.New(rand.NewSource(41))
	matched := 0
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		b.WriteString([]string{"AKIA", "ASIA", "AKIB", "akia"}[r.Intn(4)])
		b.WriteString([]string{"IOSFODNN7EXAMPLE", "IOSFODNN7EXAMPL", "IOSFODNN7EXAMPLEQ"}[r.Intn(4)%3]) // 16 characters, or one short or long
		for k := r.Intn(5); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		if r.Intn(2) == 0 {
			b.WriteString(secret[:40])
		}
		text := b.String()
		want := at.FindStringSubmatchIndex(text)
		if want != nil {
			matched++
		}
		require.Equal(t, want, matchAWSPair(text), "%q", text)
	}
	assert.Greater(t, matched, 1000, "the texts match often")
}

// The JWK private members are found by hand as the regexp finds them
// (FindAll over a window), on texts made of member names (private, public,
// cut), quotes escaped or not, blanks, colons, values one short of 16
// characters and longer, braces and "kty".
func TestJWKMembersByHandAsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`\\?"(?:d|p|q|dp|dq|qi|k)\\?"[ \t]*:[ \t]*\\?"(?P<s>[A-Za-z0-9_-]{16,})\\?"`)
	find := findAllAt(`\"`, matchJWKMember)
	pieces := []string{`"`, `\"`, `\`, "d", "p", "q", "dp", "dq", "qi", "k", "n", "e", "x", "dx", ":", " ", "\t", ",", "{", "}",
		`"kty"`, `\"kty\"`, "RSA", "0123456789abcdef", "0123456789abcde", "-_", "=", "\n"}
	r := rand.New(rand.NewSource(43))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	matched := 0
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		for k := r.Intn(4); k >= 0; k-- {
			// a member, each of its parts right or wrong, then some noise
			q := pick(`"`, `"`, `\"`, `\`, "")
			b.WriteString(q + pick("d", "p", "q", "dp", "dq", "qi", "k", "n", "e", "dx", "") + pick(q, `"`, `\"`, ""))
			b.WriteString(pick("", " ", "\t ") + pick(":", ":", ",", "") + pick("", " ", "  "))
			b.WriteString(pick(`"`, `\"`, "") + pick("0123456789abcdef", "0123456789abcdef-_XYZ", "0123456789abcde", "") + pick(`"`, `\"`, "=", ""))
			for j := r.Intn(3); j > 0; j-- {
				b.WriteString(pieces[r.Intn(len(pieces))])
			}
		}
		text := b.String()
		want := re.FindAllStringSubmatchIndex(text, -1)
		matched += len(want)
		require.Equal(t, want, find(text), "%q", text)
	}
	assert.Greater(t, matched, 1000, "the texts match often")
}
