package redact

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLateTestSameAsEager: the generic rule's last test of a value, left
// to resolve (lateAssignment), gives the findings of the test run at once,
// nil and empty lists alike, with and without an allowlist (one that drops
// some findings, and one that drops every one: an empty list, not nil),
// on the corpus of the hand matchers' tests, texts made of the generic
// rule's and the provider rules' anchors, and the scan benchmark's texts.
func TestLateTestSameAsEager(t *testing.T) {
	t.Parallel()
	texts := handCorpus(t)
	r := rand.New(rand.NewSource(31))
	var anchors []string
	for _, rule := range mustNew(t, Options{}).rules {
		if rule.findLate != nil || rule.fast != nil {
			anchors = append(anchors, rule.Anchors...)
		}
	}
	texts = append(texts, handTexts(r, anchors, 3000, 600)...)
	texts = append(texts, mixedText(64<<10)...)
	for _, opts := range []Options{{}, {Allow: []string{`^[a-z0-9]+$`, `^sk-`}}, {Allow: []string{`.`}}} {
		late, eager := mustNew(t, opts), mustNew(t, opts)
		eager.eagerLate = true
		eager.inner.eagerLate, eager.inner.inner.eagerLate = true, true
		lateCands, found := 0, 0
		for _, text := range texts {
			want, got := eager.Scan(text), late.Scan(text)
			found += len(want)
			if !assert.Equal(t, want, got, "allow %q: %q\nwant %v\ngot  %v", opts.Allow, text, describe(text, want), describe(text, got)) {
				return
			}
			hits := late.appendAnchors(nil, text, false)
			for _, h := range hits {
				if late.rules[h.rule].findLate != nil {
					lateCands++
					break
				}
			}
		}
		t.Logf("allow %q: %d findings, %d texts with a generic rule's hit", opts.Allow, found, lateCands)
		if len(opts.Allow) == 0 {
			assert.Greater(t, found, 5000)
		}
		assert.Greater(t, lateCands, 2000)
	}
}
