package redact

import (
	"math/rand"
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
