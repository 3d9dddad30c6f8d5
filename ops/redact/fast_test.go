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
	pieces := []string{"a", "Z", "0", "9", "_", "-", ".", "/", "+", "=", " ", "\n", "é", "~", ":", "@", "f", "T3BlbkFJ", "live_", "test_", "prod_", "api03-", "01-", "ant-api03-", "1-", "-1-"}
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
	assert.Greater(t, fast, 45, "most kw shapes have the simple form (50 of 67: not the alternations)")
	assert.Greater(t, matched, 5000, "the texts match often")
}
