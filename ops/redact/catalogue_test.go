package redact

import (
	"math/rand"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCatalogueIsRead: the embedded gitleaks catalogue parses into its
// rules, and the ones not left out (SOURCE.md) become scanner rules.
func TestCatalogueIsRead(t *testing.T) {
	cat := parseCatalogue(gitleaksTOML)
	require.GreaterOrEqual(t, len(cat), 200)
	withRegex := 0
	for _, c := range cat {
		assert.NotEmpty(t, c.id)
		if c.regex != "" { // path-only rules (pkcs12-file) have none
			withRegex++
		}
	}
	assert.GreaterOrEqual(t, withRegex, 200)
	n := 0
	for _, r := range mustNew(t, Options{}).Rules() {
		if r.Priority == prioCatalogue {
			n++
		}
	}
	assert.GreaterOrEqual(t, n, 5, "catalogue rules in the scanner")
}

// TestCatalogueRulesFindTheirShape: a string drawn from each catalogue
// rule's regexp, on a line of its own, is found (by that rule or a
// built-in one); the few that are not (the drawn value looks like a
// placeholder to the checks) are logged; at most one.
func TestCatalogueRulesFindTheirShape(t *testing.T) {
	s := mustNew(t, Options{})
	r := rand.New(rand.NewSource(31))
	n, found := 0, 0
	for _, rule := range s.Rules() {
		if rule.Priority != prioCatalogue {
			continue
		}
		ok, drawn := false, 0
		for k := 0; k < 40 && drawn < 3 && !ok; k++ {
			v, err := labelled.GenRegexp(rule.Re.String(), r)
			if err != nil {
				continue // (?i) classes hold K (U+212A) and ſ: drawn again
			}
			drawn++
			ok = len(s.Scan("x\n"+v+"\n")) > 0
		}
		if drawn == 0 {
			continue
		}
		n++
		if ok {
			found++
		} else {
			t.Logf("%s: a drawn example is not found", rule.ID)
		}
	}
	assert.GreaterOrEqual(t, found, n-1, "%d of %d catalogue rules find their own shape", found, n)
}
