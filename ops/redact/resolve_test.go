package redact

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// resolveOracle is resolve as it was first written: one stable sort of
// every candidate by priority and length, then a greedy pass.
func resolveOracle(cands []cand) []Finding {
	cands = slices.Clone(cands)
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.prio != b.prio {
			return cmp.Compare(b.prio, a.prio)
		}
		if la, lb := a.End-a.Start, b.End-b.Start; la != lb {
			return cmp.Compare(lb, la)
		}
		return cmp.Compare(a.Start, b.Start)
	})
	var out []Finding
	for _, c := range cands {
		overlap := false
		for _, f := range out {
			if c.Start < f.End && f.Start < c.End {
				overlap = true
				break
			}
		}
		if !overlap {
			out = append(out, c.Finding)
		}
	}
	slices.SortFunc(out, func(a, b Finding) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// TestResolveMatchesOracle: resolve decides overlaps group by group; on
// random candidates (ties of priority, length and position, identical spans
// of different rules, long chains of overlaps) it keeps what the one greedy
// pass over every candidate keeps.
func TestResolveMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	s := &Scanner{}
	rules := []string{"a", "b", "c", "d"}
	for n := 0; n < 20000; n++ {
		var cands []cand
		k := 1 + rng.Intn(40)
		span := 20 + rng.Intn(400)
		for i := 0; i < k; i++ {
			st := rng.Intn(span)
			en := st + 1 + rng.Intn(30)
			cands = append(cands, cand{Finding: Finding{st, en, rules[rng.Intn(len(rules))]}, prio: rng.Intn(3)})
			if rng.Intn(5) == 0 { // the same span from another rule
				c := cands[len(cands)-1]
				c.Rule = rules[rng.Intn(len(rules))]
				cands = append(cands, c)
			}
		}
		want := resolveOracle(cands)
		got := s.resolve("", slices.Clone(cands), new(scratch))
		if len(want) == 0 {
			require.Empty(t, got)
			continue
		}
		require.Equal(t, want, got, "candidates %+v", cands)
	}
}

// TestByRuleMatchesSort: the counting sort of anchor hits orders them as
// the sort by rule and position does.
func TestByRuleMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	sc := &scratch{}
	for n := 0; n < 2000; n++ {
		var hits []hit
		pos := int32(0)
		for i := rng.Intn(200); i > 0; i-- {
			pos += int32(1 + rng.Intn(5))
			hits = append(hits, hit{rule: int32(rng.Intn(50)), pos: pos, alen: 4})
		}
		want := slices.Clone(hits)
		slices.SortFunc(want, func(a, b hit) int {
			if a.rule != b.rule {
				return cmp.Compare(a.rule, b.rule)
			}
			return cmp.Compare(a.pos, b.pos)
		})
		got := sc.byRule(slices.Clone(hits), 50)
		if len(want) == 0 {
			require.Empty(t, got)
			continue
		}
		require.Equal(t, want, got)
	}
}
