package redact_test

import (
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// TestBlindSetDHasItsComposition loads blind-20261127d.txt and checks
// what its header promises: every kind names one of the sixteen families
// (a misspelt family would silently fall to other-saas), every secret is
// a generated one found in its text, at least 30 secrets in every family,
// 80 encoded ones and 550 in all, and at least 150 labelled non-secrets.
// It does not run the scanner: the set stays blind.
func TestBlindSetDHasItsComposition(t *testing.T) {
	exs, err := labelled.Load("testdata/blind-20261127d.txt", "blind-20261127d")
	if err != nil {
		t.Fatal(err)
	}
	tps, fps, all := map[string]int{}, 0, 0
	kinds := map[string]bool{}
	for _, e := range exs {
		fam, _, _ := strings.Cut(e.Kind, "/")
		if labelled.Family(e.Kind) != fam {
			t.Errorf("kind %q: family %q is not one of internal/labelled's", e.Kind, fam)
		}
		if !e.TP {
			fps++
			continue
		}
		tps[fam]++
		all++
		kinds[e.Kind] = true
		if e.Secret == "" || !strings.Contains(e.Text, e.Secret) {
			t.Errorf("kind %q: the secret %q is not in its text", e.Kind, e.Secret)
		}
	}
	if n := len(labelled.Families()); n != 16 {
		t.Errorf("%d families, want 16", n)
	}
	for _, fam := range labelled.Families() {
		want := 30
		if fam == "encoded" {
			want = 80
		}
		t.Logf("%-26s %3d secrets", fam, tps[fam])
		if tps[fam] < want {
			t.Errorf("%s: %d secrets, want at least %d", fam, tps[fam], want)
		}
	}
	t.Logf("%d secrets of %d kinds, %d labelled non-secrets", all, len(kinds), fps)
	if all < 550 {
		t.Errorf("%d secrets in all, want at least 550", all)
	}
	if fps < 150 {
		t.Errorf("%d labelled non-secrets, want at least 150", fps)
	}
	if !labelled.BlindSets["blind-20261127d"] {
		t.Errorf("blind-20261127d is not in labelled.BlindSets: its misses would be printed")
	}
}
