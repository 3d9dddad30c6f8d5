package redact_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// TestBlindSetsHaveTheirComposition loads each blind set written without
// reading the scanner and checks what its header promises: every kind
// names one of the sixteen families (a misspelt family would silently fall
// to other-saas), every generated secret is in its text, at least so many
// secrets in every family, in the encoded family (enough for its figure to
// mean something) and in all, and so many labelled non-secrets; and that
// the set is registered blind. It does not run the scanner: the sets stay
// blind. (blind-20261127 and b: TestBlindSetBHasItsComposition and the
// labelled package's own tests.)
func TestBlindSetsHaveTheirComposition(t *testing.T) {
	for _, b := range []struct {
		set                                 string
		perFamily, encoded, all, nonSecrets int
	}{
		{"blind-20261127c", 25, 25, 450, 120},
		{"blind-20261127d", 30, 80, 550, 150},
		{"blind-20261127e", 42, 145, 900, 210},
	} {
		t.Run(b.set, func(t *testing.T) {
			exs, err := labelled.Load("testdata/"+b.set+".txt", b.set)
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
				want := b.perFamily
				if fam == "encoded" {
					want = b.encoded
				}
				t.Logf("%-26s %3d secrets", fam, c.Secrets[fam])
				if c.Secrets[fam] < want {
					t.Errorf("%s: %d secrets, want at least %d", fam, c.Secrets[fam], want)
				}
			}
			t.Logf("%d secrets of %d kinds, %d labelled non-secrets", c.All, c.Kinds, c.NonSecrets)
			if c.All < b.all {
				t.Errorf("%d secrets in all, want at least %d", c.All, b.all)
			}
			if c.NonSecrets < b.nonSecrets {
				t.Errorf("%d labelled non-secrets, want at least %d", c.NonSecrets, b.nonSecrets)
			}
			if !labelled.BlindSets[b.set] {
				t.Errorf("%s is not in labelled.BlindSets: its misses would be printed", b.set)
			}
		})
	}
}
