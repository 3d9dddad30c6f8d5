package redact_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// TestBlindSetEHasItsComposition loads blind-20261127e.txt and checks
// what its header promises: every kind names one of the sixteen families
// (a misspelt family would silently fall to other-saas), every generated
// secret is in its text, at least 42 secrets in every family, at least
// 145 in the encoded family (enough for its figure to mean something) and
// 900 in all, and at least 210 labelled non-secrets. It does not run the
// scanner: the set stays blind.
func TestBlindSetEHasItsComposition(t *testing.T) {
	exs, err := labelled.Load("testdata/blind-20261127e.txt", "blind-20261127e")
	if err != nil {
		t.Fatal(err)
	}
	c := labelled.TakeCensus(exs)
	for _, p := range c.Problems {
		t.Error(p)
	}
	if n := len(labelled.Families()); n != 16 {
		t.Errorf("%d families, want 16", n)
	}
	for _, fam := range labelled.Families() {
		t.Logf("%-26s %3d secrets", fam, c.Secrets[fam])
		if c.Secrets[fam] < 42 {
			t.Errorf("%s: %d secrets, want at least 42", fam, c.Secrets[fam])
		}
	}
	if c.Secrets["encoded"] < 145 {
		t.Errorf("encoded: %d secrets, want at least 145", c.Secrets["encoded"])
	}
	t.Logf("%d secrets of %d kinds, %d labelled non-secrets", c.All, c.Kinds, c.NonSecrets)
	if c.All < 900 {
		t.Errorf("%d secrets in all, want at least 900", c.All)
	}
	if c.NonSecrets < 210 {
		t.Errorf("%d labelled non-secrets, want at least 210", c.NonSecrets)
	}
	if !labelled.BlindSets["blind-20261127e"] {
		t.Errorf("blind-20261127e is not in labelled.BlindSets: its misses would be printed")
	}
}
