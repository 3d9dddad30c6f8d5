package redact

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortByStartSameOrder: resolve's packed-key sort orders candidates
// as the comparison sort it replaced (start, then the order found), on
// many ties and on starts beyond the packed keys' range.
func TestSortByStartSameOrder(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 200; round++ {
		n := r.Intn(60)
		cands := make([]cand, n)
		for i := range cands {
			start := r.Intn(20) // many equal starts: the ties decide
			if round%50 == 49 && i == n/2 {
				start = 1 << 33 // past what a packed key holds
			}
			cands[i] = cand{Finding: Finding{Start: start, End: start + 1 + r.Intn(9), Rule: string(rune('a' + r.Intn(26)))}, prio: r.Intn(3)}
		}
		want := slices.Clone(cands)
		for i := range want {
			want[i].ord = i
		}
		slices.SortFunc(want, func(a, b cand) int {
			if a.Start != b.Start {
				return cmp.Compare(a.Start, b.Start)
			}
			return cmp.Compare(a.ord, b.ord)
		})
		sortByStart(cands, new(scratch))
		require.Equal(t, want, cands, "round %d", round)
	}
}
