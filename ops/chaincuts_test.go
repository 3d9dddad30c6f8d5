package ops_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	gen "github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// TestChainedCutsAreTheStepsCuts: when the cuts of --target-tokens that
// shorten the same entries to 2 KB, then 500, then 100 bytes all run to
// their end, the first makes the later ones from the line it cuts (made
// step by step, each read the line again and made the cuts before again);
// the result, the report (its notes name each step's entries and tokens)
// and a refusal are the same as the steps made one by one, on every
// generated shape with tool output (old and recent: with and without the
// recent turns kept), from a target the first cut meets to one no cut
// meets.
func TestChainedCutsAreTheStepsCuts(t *testing.T) {
	for _, shape := range []string{"agentic", "bulk", "dense"} {
		t.Run(shape, func(t *testing.T) {
			sh, ok := gen.LookupShape(shape)
			require.True(t, ok)
			res, err := sh.Generate(gen.Options{Size: 2 << 20, Seed: 11, Dir: t.TempDir()})
			require.NoError(t, err)
			s, err := chain.Load(res.Path)
			require.NoError(t, err)
			defer s.Close()
			before := s.Main.ResumeTokens().Total()
			run := func(fit ops.FitTokens, chained bool) string {
				was := ops.SetChainCuts(chained)
				defer ops.SetChainCuts(was)
				tx, err := ops.FitWithin(s, ops.Pipeline{fit}, func() *ops.Txn { return ops.NewTxn(s) })
				if err != nil {
					return "error: " + err.Error()
				}
				var buf bytes.Buffer
				require.NoError(t, tx.Render(s.Main)(&buf))
				rep, err := json.Marshal(tx.Report)
				require.NoError(t, err)
				return fmt.Sprintf("%s\n%s", rep, buf.Bytes())
			}
			differ := 0
			made := ops.ChainsMade()
			for _, pct := range []int{95, 80, 50, 20, 5, 1} {
				for _, fit := range []ops.FitTokens{
					{Target: before * pct / 100, KeepTurns: ops.DefaultKeepTurns},
					{Target: before * pct / 100, KeepTurns: 1, KeepExchanges: 2, KeepRecent: true},
				} {
					want, got := run(fit, false), run(fit, true)
					if want != got {
						differ++
						t.Errorf("%d%% of %d tokens, %+v: the chained cuts differ from the steps'", pct, before, fit)
					}
				}
			}
			require.Zero(t, differ)
			t.Logf("%s: %d entries' later cuts made by a chain", shape, ops.ChainsMade()-made)
			require.Positive(t, ops.ChainsMade()-made, "no chain was made: the test does not reach them")
		})
	}
}
