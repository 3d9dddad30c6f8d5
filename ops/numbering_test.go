package ops

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNumberingMatchesAMap holds the open-addressed table of redact-secrets'
// numbering to a map: each distinct secret of a rule gets the next number of
// its rule in order of first appearance, and a repeat gets its first number,
// through many growths of the table.
func TestNumberingMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	nb := &numbering{}
	type key struct {
		rule   string
		secret string
	}
	want := map[key]uint32{}
	perRule := map[string]uint32{}
	rules := []string{"github-pat", "aws-secret-key", "jwt", "generic-password"}
	var seen []key
	for i := 0; i < 200_000; i++ {
		var k key
		if len(seen) > 0 && rng.Intn(3) == 0 {
			k = seen[rng.Intn(len(seen))] // a repeat
		} else {
			k = key{rules[rng.Intn(len(rules))], fmt.Sprintf("secret-%d", rng.Int63())}
			seen = append(seen, k)
		}
		n, ok := want[k]
		if !ok {
			perRule[k.rule]++
			n = perRule[k.rule]
			want[k] = n
		}
		got := nb.assignRule(k.rule, secretSum(k.secret))
		require.Equal(t, n, got, "secret %d (%s)", i, k.rule)
	}
	require.Equal(t, len(want), nb.used)
	// the same secret under two rules is two secrets
	a := nb.assignRule("rule-a", secretSum("x"))
	b := nb.assignRule("rule-b", secretSum("x"))
	require.Equal(t, uint32(1), a)
	require.Equal(t, uint32(1), b)
	require.Equal(t, len(want)+2, nb.used)
}
