package redact

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fast matcher of a rule finds exactly what its anchored regexp finds,
// groups included: on texts made of the rule's anchors followed by bytes
// its classes hold and bytes they do not (ASCII and not).
func TestFastMatcherAgreesWithRegexp(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	r := rand.New(rand.NewSource(7))
	pieces := []string{"a", "Z", "0", "9", "_", "-", ".", "/", "+", "=", " ", "\n", "é", "~", ":", "@", "f", "T3BlbkFJ", "live_", "test_", "prod_", "api03-", "01-", "ant-api03-", "1-", "-1-",
		"pub_", "pu", "_TEST", "-X", "dev-", "prod-", "u.", "ntn_", "secret_", "sq0atp-", "EAAA", "0123456789a", "deadbeef"}
	fast, matched := 0, 0
	for _, rule := range s.rules {
		if rule.fast == nil {
			continue
		}
		fast++
		for n := 0; n < 3000; n++ {
			var b strings.Builder
			a := rule.Anchors[r.Intn(len(rule.Anchors))]
			if rule.Fold {
				a = flipCase(r, a)
			}
			b.WriteString(a)
			k := r.Intn(120)
			for j := 0; j < k; j++ {
				if r.Intn(4) == 0 {
					b.WriteString(pieces[r.Intn(len(pieces))])
				} else {
					b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[r.Intn(62)])
				}
			}
			text := b.String()
			want := rule.at.FindStringSubmatchIndex(text)
			got := rule.fast.match(text)
			if want == nil {
				assert.Nil(t, got, "%s on %q", rule.ID, text)
			} else {
				matched++
				assert.Equal(t, want, got, "%s on %q", rule.ID, text)
			}
		}
	}
	assert.Greater(t, fast, 100, "most prefix rules have the simple form")
	assert.Greater(t, matched, 10000, "the texts match often")
}

// The kw rules' matcher without the regexp engine finds, in the 160 bytes
// after a provider's keyword, the matches FindAllStringSubmatchIndex finds,
// on texts made of the shapes' bytes, separators, non-ASCII runes and
// invalid bytes.
func TestKwFastAgreesWithRegexp(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	pieces := []string{"_", "-", ".", "/", "+", "=", " ", "\n", "é", "日", "\xff", "\xc3", ":", "\"", "'", "~", "|"}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789abcdef0123456789"
	shapes := map[string]bool{}
	for _, rule := range builtinRules() {
		if rule.kwShape != "" {
			shapes[rule.kwShape] = true
		}
	}
	fast, matched := 0, 0
	for shape := range shapes {
		fm := kwFast(shape)
		if fm == nil {
			continue
		}
		fast++
		re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(?P<s>` + shape + `)`)
		g := re.SubexpIndex("s")
		for n := 0; n < 2000; n++ {
			var b strings.Builder
			k := r.Intn(160)
			run := 20 + r.Intn(50)
			for j := 0; j < k; j++ {
				if r.Intn(run) == 0 {
					b.WriteString(pieces[r.Intn(len(pieces))])
				} else {
					b.WriteByte(alnum[r.Intn(len(alnum))])
				}
			}
			text := b.String()
			var want [][2]int
			for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
				want = append(want, [2]int{m[2*g], m[2*g+1]})
			}
			var got [][2]int
			fm.eachAfterSeparator(text, func(st, en int) bool {
				got = append(got, [2]int{st, en})
				return false
			})
			matched += len(want)
			require.Equal(t, want, got, "%s on %q", shape, text)
		}
	}
	assert.Greater(t, fast, 45, "most kw shapes have the simple form (57 of 75 distinct shapes: not the alternations)")
	assert.Greater(t, matched, 5000, "the texts match often")
}

// Optional literals and alternations of sequences: the forms of
// lob, notion, flutterwave and square keys (and made-up
// ones with a capture group, a fold and an optional literal at the end)
// compile to a fast matcher that finds what the regexp finds, on texts
// made of their own parts (literals present, absent, cut, runs at every
// length around their bounds); the forms where an optional literal or a
// run could give back what the next item takes compile to none.
func TestFastMatcherOptionalAndAlternatives(t *testing.T) {
	hex := func(n int) string { return strings.Repeat("0123456789abcdef", 8)[:n] }
	b62 := func(n int) string { return strings.Repeat("aZ0bY1cX2dW3eV4fU5", 10)[:n] }
	cases := []struct {
		re     string
		pieces []string
	}{
		{`(?:live|test)_(?:pub_)?[a-f0-9]{31,35}`, []string{"live_", "test_", "pub_", "pu", "p", hex(30), hex(31), hex(33), hex(35), hex(36), "g", "_"}},
		{`ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}`, []string{"ntn_", "secret_", "secret", "12345678901", "1234", b62(35), b62(43), b62(42), b62(50), "_", "-"}},
		{`FLWSECK(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?`, []string{"FLWSECK", "_TEST", "_TES", "-", "-X", "X", "abcdefgh0123", "ABCDEFGH", "0123456789abcdef0123456789abcdef", "z"}},
		{`EAAA[A-Za-z0-9_-]{22,}|sq0atp-[A-Za-z0-9_-]{22,60}`, []string{"EAAA", "sq0atp-", "sq0atp", b62(21), b62(22), b62(61), "-_", " "}},
		{`key_(?P<s>(?:V1_)?[a-z]{4,8})(?:\.x)?`, []string{"key_", "V1_", "V1", "abcd", "abcdefghij", ".x", ".", "x", "1"}},
		{`(?i:tag)_(?:AB|CD)?[0-9]{2,4}`, []string{"tag_", "TAG_", "Tag_", "AB", "CD", "A", "12", "12345", "ab"}},
	}
	r := rand.New(rand.NewSource(31))
	matched := 0
	for _, tc := range cases {
		m := compileFast(tc.re)
		require.NotNil(t, m, tc.re)
		at := regexp.MustCompile(`^(?:` + tc.re + `)`)
		for n := 0; n < 4000; n++ {
			var b strings.Builder
			b.WriteString(tc.pieces[r.Intn(2)]) // mostly an anchor of the rule (the first two pieces)
			for k := r.Intn(5); k >= 0; k-- {
				b.WriteString(tc.pieces[r.Intn(len(tc.pieces))])
			}
			text := b.String()
			want := at.FindStringSubmatchIndex(text)
			if want != nil {
				matched++
			}
			require.Equal(t, want, m.match(text), "%s on %q", tc.re, text)
		}
	}
	assert.Greater(t, matched, 4000, "the texts match often")
	for _, re := range []string{
		`ab(?:cd)?[a-z]{4}`,    // without cd, the run could take it
		`ab(?:cd)?(?:cx|z)`,    // without cd, the alternation could take cx
		`ab(?:cd)?[0-9]*c`,     // past an empty run, c could take it
		`ab[a-z]+(?:cd)?`,      // the run takes cd's bytes
		`(?:ab)?cd[0-9]{2}`,    // a match starts with a literal
		`ab(?i:(?:cd)?)[0-9]x`, // an optional folded literal
		// tavily's and dropbox's: the run after the optional literal takes
		// its first byte (the check does not look further: they keep the
		// regexp engine)
		`tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}`,
		`sl\.(?:u\.)?[A-Za-z0-9_=-]{100,}`,
	} {
		assert.Nil(t, compileFast(re), re)
	}
}
