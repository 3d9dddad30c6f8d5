package ops_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	gen "github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairOfADamagedSessionKeepsMostRelinks: the bench's damaged shape
// (the real 2.1.328 sessions repeated and damaged many times over: lost
// lines, self-parents, copies, cut lines, parent loops) at 10 MB, three
// seeds. Relinking its lost parents brings new problems here and there
// (two answers in a row across an entry relinked between them, history
// with problems of its own brought back, a tree put on the branch whose
// calls lack results); each relink that does is left out, the others are
// made. When the blame of some problem found no relink, every relink was
// backed off (237 of 237 lost parents left unfixed at 149a747 on seed 1).
func TestRepairOfADamagedSessionKeepsMostRelinks(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		r, err := gen.GenerateDamaged(gen.Options{Size: 10 << 20, Seed: seed, Dir: t.TempDir()})
		require.NoError(t, err)
		s, err := chain.Load(r.Path)
		require.NoError(t, err)
		rep := &ops.Repair{}
		require.NoError(t, ops.Pipeline{rep}.Apply(ops.NewTxn(s)))
		s.Close()
		made, left := 0, 0
		for _, fx := range rep.Fixes {
			if fx.Code != "dangling-parent" {
				continue
			}
			if fx.Fixed {
				made++
				continue
			}
			left++
			assert.Contains(t, fx.Message, "not done: it would bring in a new problem", "seed %d: %s", seed, fx)
		}
		t.Logf("seed %d: %d lost parents relinked, %d left out", seed, made, left)
		require.Positive(t, made+left, "seed %d: the damaged shape has lost parents", seed)
		assert.GreaterOrEqual(t, made, 9*(made+left)/10, "seed %d: %d of %d lost parents left unfixed: the blame of a relink's problems failed and the stage was backed off", seed, left, made+left)
	}
}
