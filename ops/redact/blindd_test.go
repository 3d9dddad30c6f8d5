package redact_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// TestBlindSetDHasItsComposition loads blind-20261127d.txt and checks
// what its header promises: every kind names one of the sixteen families,
// every secret is a generated one found in its text, at least 30 secrets
// in every family, 80 encoded ones and 550 in all, and at least 150
// labelled non-secrets. It does not run the scanner: the set stays blind.
func TestBlindSetDHasItsComposition(t *testing.T) {
	exs, err := labelled.Load("testdata/blind-20261127d.txt", "blind-20261127d")
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
		want := 30
		if fam == "encoded" {
			want = 80
		}
		t.Logf("%-26s %3d secrets", fam, c.Secrets[fam])
		if c.Secrets[fam] < want {
			t.Errorf("%s: %d secrets, want at least %d", fam, c.Secrets[fam], want)
		}
	}
	t.Logf("%d secrets of %d kinds, %d labelled non-secrets", c.All, c.Kinds, c.NonSecrets)
	if c.All < 550 {
		t.Errorf("%d secrets in all, want at least 550", c.All)
	}
	if c.NonSecrets < 150 {
		t.Errorf("%d labelled non-secrets, want at least 150", c.NonSecrets)
	}
	if !labelled.BlindSets["blind-20261127d"] {
		t.Errorf("blind-20261127d is not in labelled.BlindSets: its misses would be printed")
	}
}
