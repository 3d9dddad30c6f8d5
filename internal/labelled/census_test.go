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
