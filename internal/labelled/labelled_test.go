package labelled

import (
	"math/rand"
	"regexp"
	"testing"
)

func TestLoadLabelledSets(t *testing.T) {
	for _, c := range []struct {
		path, set string
		kinds     int
	}{{"../../ops/redact/testdata/public/gitleaks.txt", "gitleaks", 200}, {"../../ops/redact/testdata/issue14.txt", "issue14", 40}} {
		exs, err := Load(c.path, c.set)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		kinds := map[string]bool{}
		for _, e := range exs {
			if e.TP {
				kinds[e.Kind] = true
			}
			if e.Secret != "" && !Leaked(e.Secret, 0, e.Text) {
				t.Errorf("%s %s: the secret %q is not in its text %q", c.set, e.Kind, e.Secret, e.Text)
			}
		}
		if len(kinds) < c.kinds {
			t.Errorf("%s: %d kinds with a true positive, want at least %d", c.set, len(kinds), c.kinds)
		}
	}
}

func TestGenRegexpMatches(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, re := range []string{`[a-z0-9=_-]{44}`, `(?:EAAA|sq0atp-)[\w-]{22,60}`, `xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}`, `dp\.pt\.[a-zA-Z0-9]{43}`, `s\.[0-9][a-zA-Z0-9]{23}`} {
		for i := 0; i < 50; i++ {
			s, err := genRegexp(re, r)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^(?:` + re + `)$`).MatchString(s) {
				t.Fatalf("%s generated %q, which it does not match", re, s)
			}
		}
	}
}

// TestBlindSetBHasItsComposition loads blind-20261127b.txt and checks
// what its header promises: every kind names one of the families (a
// misspelt family would silently fall to other-saas), every generated
// secret is in its text, at least 40 examples of key material and of
// encoded secrets, 15 of every other family, and 100 labelled
// non-secrets. It does not run the scanner: the set stays blind.
func TestBlindSetBHasItsComposition(t *testing.T) {
	exs, err := Load("../../ops/redact/testdata/blind-20261127b.txt", "blind-20261127b")
	if err != nil {
		t.Fatal(err)
	}
	c := TakeCensus(exs)
	for _, p := range c.Problems {
		t.Error(p)
	}
	for _, fam := range Families() {
		want := 15
		if fam == "key-material" || fam == "encoded" {
			want = 40
		}
		if c.Secrets[fam] < want {
			t.Errorf("%s: %d secrets, want at least %d", fam, c.Secrets[fam], want)
		}
	}
	if c.NonSecrets < 100 {
		t.Errorf("%d labelled non-secrets, want at least 100", c.NonSecrets)
	}
}
