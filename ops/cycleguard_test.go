package ops

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// wouldCycleWalk is the plain answer: walk p's ancestors to the root (or
// round a loop) looking for i.
func wouldCycleWalk(parent []int, i, p int) bool {
	seen := map[int]bool{}
	for j := p; j >= 0; j = parent[j] {
		if j == i {
			return true
		}
		if seen[j] {
			return false
		}
		seen[j] = true
	}
	return false
}

// TestCycleGuardIsTheWalk: the bounded walk of repair's cycle check, and
// its roots' union-find, give the plain walk's answer on random parent
// links (backward, forward, loops, self-parents, roots: few, or many as
// on a session of lost parents), as repair relinks entries to earlier
// ones one after another (roots, and entries inside a tree).
func TestCycleGuardIsTheWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	queries, roots := 0, 0
	for round := 0; round < 600; round++ {
		n := 2 + rng.Intn(60)
		parent := make([]int, n)
		fwd := rng.Float64() * 0.3
		lost := 0.1
		if round%2 == 1 {
			lost = 0.5
		}
		for j := range parent {
			switch r := rng.Float64(); {
			case r < lost:
				parent[j] = -1
			case r < 0.1+fwd:
				parent[j] = rng.Intn(n) // anywhere: forward links, loops, self
			case j > 0:
				parent[j] = rng.Intn(j)
			default:
				parent[j] = -1
			}
		}
		g := newCycleGuard(parent)
		for k := 0; k < 3*n; k++ {
			i := 1 + rng.Intn(n-1)
			p := rng.Intn(i)
			want := wouldCycleWalk(parent, i, p)
			require.Equal(t, want, g.wouldCycle(i, p), "round %d: i %d (parent %d) p %d parents %v", round, i, parent[i], p, parent)
			queries++
			if parent[i] < 0 {
				roots++
			}
			if !want && rng.Intn(2) == 0 {
				g.link(i, p) // a relink, as repair makes it: backward
			} else if rng.Intn(4) == 0 {
				g.link(i, -1)
			}
		}
	}
	require.Greater(t, queries, 20000)
	require.Greater(t, roots, 5000, "questions about a root")
}
