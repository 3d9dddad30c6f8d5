package labelled

import (
	"strings"
	"testing"
)

// TestCensusCountsAndFlags: the composition tests of the blind sets rely
// on TakeCensus to count per family and to flag the two records a set
// must not hold (a misspelt family, a secret not in its text).
func TestCensusCountsAndFlags(t *testing.T) {
	c := TakeCensus([]Example{
		{Kind: "encoded/k8s", TP: true, Text: "password: c2VjcmV0", Secret: "c2VjcmV0"},
		{Kind: "encoded/k8s", TP: true, Text: "auth: eHl6", Secret: "eHl6"},
		{Kind: "encodd/typo", TP: true, Text: "x=abc", Secret: "abc"},
		{Kind: "ai-provider/lost", TP: true, Text: "KEY=", Secret: "sk-lost"},
		{Kind: "ai-provider/placeholder", Text: "KEY=<your-key>"},
	})
	if c.Secrets["encoded"] != 2 || c.Secrets["ai-provider"] != 1 || c.All != 4 || c.Kinds != 3 || c.NonSecrets != 1 {
		t.Errorf("census %+v, want 2 encoded and 1 ai-provider secrets, 4 in all of 3 kinds, 1 non-secret", c)
	}
	if len(c.Problems) != 2 || !strings.Contains(c.Problems[0], `"encodd"`) || !strings.Contains(c.Problems[1], `"sk-lost"`) {
		t.Errorf("problems %q, want the misspelt family encodd and the lost secret sk-lost", c.Problems)
	}
}

// A family retired from a blind set is developed against (its misses may be
// printed); the set's other families stay blind, and the family stays blind
// in the sets written after.
func TestRetiredFamilyIsDevelopment(t *testing.T) {
	for set, fams := range Retired {
		if !BlindSets[set] {
			t.Errorf("%s: retired from, but not a blind set", set)
		}
		for fam := range fams {
			e := Example{Set: set, Kind: fam + "/x"}
			if Split(e) != "dev" || IsHeldOut(e) {
				t.Errorf("%s %s: split %q, held out %v; want dev, not held out", set, fam, Split(e), IsHeldOut(e))
			}
		}
		if e := (Example{Set: set, Kind: "generic-assignment/x"}); Split(e) != "blind" || !IsHeldOut(e) {
			t.Errorf("%s generic-assignment: split %q; want blind", set, Split(e))
		}
	}
	if e := (Example{Set: "heldout31", Kind: "encoded/x"}); Split(e) != "blind" {
		t.Errorf("heldout31 encoded: split %q; want blind (never retired)", Split(e))
	}
}
