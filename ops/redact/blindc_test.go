package redact_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// TestBlindSetCHasItsComposition loads blind-20261127c.txt and checks
// what its header promises: every kind names one of the sixteen families
// (a misspelt family would silently fall to other-saas), every generated
// secret is in its text, at least 25 secrets in every family and 450 in
// all, and at least 120 labelled non-secrets. It does not run the
// scanner: the set stays blind.
func TestBlindSetCHasItsComposition(t *testing.T) {
	exs, err := labelled.Load("testdata/blind-20261127c.txt", "blind-20261127c")
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
		if c.Secrets[fam] < 25 {
			t.Errorf("%s: %d secrets, want at least 25", fam, c.Secrets[fam])
		}
	}
	t.Logf("%d secrets, %d labelled non-secrets", c.All, c.NonSecrets)
	if c.All < 450 {
		t.Errorf("%d secrets in all, want at least 450", c.All)
	}
	if c.NonSecrets < 120 {
		t.Errorf("%d labelled non-secrets, want at least 120", c.NonSecrets)
	}
	if !labelled.BlindSets["blind-20261127c"] {
		t.Errorf("blind-20261127c is not in labelled.BlindSets: its misses would be printed")
	}
}
