package ops

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops/redact"
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

// BenchmarkNumbering numbers 1.5 million distinct secrets (the 300 MB
// secrets bench's count), 48 to a line as a prompt of that bench holds
// them, with and without warming each line's slots first (the table sized
// for them all first: the lookups alone, not the growths).
func BenchmarkNumbering(b *testing.B) {
	const perLine, lines = 48, 31_000
	rules := []string{"github-pat", "aws-secret-key", "jwt", "generic-password", "bearer-token", "private-key"}
	hits := make([][]hit, lines)
	for l := range hits {
		h := hit{finds: make([]redact.Finding, perLine), sums: make([][16]byte, perLine), codes: make([]uint32, perLine)}
		for k := range h.finds {
			h.finds[k].Rule = rules[k%len(rules)]
			h.sums[k] = secretSum(fmt.Sprintf("secret-%d-%d", l, k))
			h.codes[k] = uint32(k % len(rules))
		}
		hits[l] = []hit{h}
	}
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(b *testing.B) {
			for b.Loop() {
				nb := &numbering{}
				nb.reserve(perLine * lines)
				for _, r := range rules {
					nb.code(r)
				}
				for _, hs := range hits {
					if warm {
						nb.warm(hs)
					}
					for _, h := range hs {
						for k := range h.finds {
							nb.assign(uint16(h.codes[k]), h.sums[k])
						}
					}
				}
			}
		})
	}
}
