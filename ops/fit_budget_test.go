package ops_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// noteTokens bounds the shortest note of removed turns, "[ccsurgeon
// removed turns 1–3]", in a message of its own.
const noteTokens = 40

// TestTargetTokensHalfTheConversation: on every session we have (the real
// transcripts of ../shared/corpus and the real-client sessions of
// testdata/sessions), --target-tokens of the system prompt plus half the
// conversation (and three quarters, a quarter, a tenth), with no other
// option, is met by the count `info` makes of the written result; the
// result validates as the original did and its conversation is what the
// cuts say (spec.CheckFit). It is refused only where the system prompt and
// the last exchange alone exceed the target, and then the target it names
// fits. None of the real sessions is over 1 MB, so every one is taken.
func TestTargetTokensHalfTheConversation(t *testing.T) {
	n, refused := 0, 0
	defer func() {
		t.Logf("%d (session, budget) cases, %d refused (the system prompt and the last exchange alone exceed the target)", n, refused)
	}()
	for _, path := range specSessions(t) {
		name := strings.TrimPrefix(path, ".."+string(filepath.Separator))
		t.Run(name, func(t *testing.T) {
			s, err := chain.Load(path)
			require.NoError(t, err)
			defer s.Close()
			before := s.Main.ResumeTokens()
			conv := before.Total() - before.Overhead
			if conv < 200 { // nothing to halve: a prompt and an answer of a few words
				return
			}
			orig, err := spec.Active(s.Main)
			require.NoError(t, err)
			for _, frac := range []float64{0.5, 0.75, 0.25, 0.1} {
				n++
				target := before.Overhead + int(float64(conv)*frac)
				fit := func(target int) (*ops.Txn, error) {
					return ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
				}
				tx, err := fit(target)
				var te *ops.TargetError
				if errors.As(err, &te) {
					// right only when the system prompt and the last
					// exchange alone exceed the target (beside them only
					// the one-line note of the removed turns)
					require.Greater(t, te.Overhead+te.Last+noteTokens, target, "refused %d (overhead %d + %.0f%% of %d): %v", target, before.Overhead, 100*frac, conv, err)
					require.LessOrEqual(t, te.Rest, noteTokens, "what is left beside the last exchange is the note: %v", err)
					require.Equal(t, te.Overhead+te.Last+te.Rest, te.Floor, "the smallest target named is what is left")
					refused++
					target = te.Floor
					tx, err = fit(target)
					require.NoError(t, err, "the target the refusal names")
				}
				require.NoError(t, err)
				var buf bytes.Buffer
				require.NoError(t, tx.Render(s.Main)(&buf))
				rf, err := chain.LoadBytes(path, buf.Bytes())
				require.NoError(t, err)
				got := rf.ResumeTokens().Total()
				require.LessOrEqual(t, got, target, "%.0f%%: info's count of the written result", 100*frac)
				require.Equal(t, got, tx.Report.Tokens.After, "the figure printed is info's count of the written result")
				require.Empty(t, validate.Introduced(validate.Report{Problems: validate.File(s.Main, s.ID)}, validate.Report{Problems: validate.File(rf, s.ID)}), "%.0f%%", 100*frac)
				sent, err := spec.Active(rf)
				require.NoError(t, err)
				require.NoError(t, spec.CheckFit(orig, sent, tx.Report.Tokens.TurnsRemoved), "%.0f%%", 100*frac)
			}
		})
	}
	require.NotZero(t, n)
}

// TestTargetTokensGrownSessions: on the generated shapes that repeat the
// real client's sessions (dense: parallel calls, subagents, attachments
// rendered on every run; bulk: long tool output, thinking, images), every
// budget down to a few turns' worth is met by info's count of the written
// result, which validates as the original did and holds to spec.CheckFit;
// a budget below what may not be cut is refused naming a target that fits.
func TestTargetTokensGrownSessions(t *testing.T) {
	for _, shape := range []string{"dense", "bulk"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			sh, ok := gen.LookupShape(shape)
			require.True(t, ok)
			res, err := sh.Generate(gen.Options{Size: 3 << 20, Seed: 5, Dir: t.TempDir()})
			require.NoError(t, err)
			s, err := chain.Load(res.Path)
			require.NoError(t, err)
			defer s.Close()
			orig, err := spec.Active(s.Main)
			require.NoError(t, err)
			before := s.Main.ResumeTokens().Total()
			for _, pct := range []int{50, 20, 8, 1} {
				target := before * pct / 100
				tx, err := ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
				var te *ops.TargetError
				if errors.As(err, &te) {
					require.Greater(t, te.Floor, target, "%d%%: %v", pct, err)
					require.Greater(t, te.Overhead+te.Last+noteTokens, target, "%d%%: refused while more could be cut: %v", pct, err)
					// the target the refusal names fits
					tx, err = ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: te.Floor, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
					require.NoError(t, err, "%d%%: the target the refusal names (%d)", pct, te.Floor)
					target = te.Floor
				}
				require.NoError(t, err)
				var buf bytes.Buffer
				require.NoError(t, tx.Render(s.Main)(&buf))
				rf, err := chain.LoadBytes(res.Path, buf.Bytes())
				require.NoError(t, err)
				got := rf.ResumeTokens().Total()
				t.Logf("%d%%: %d -> %d tokens (target %d), %d turns removed", pct, before, got, target, len(tx.Report.Tokens.TurnsRemoved))
				require.LessOrEqual(t, got, target)
				require.Empty(t, validate.Introduced(validate.Report{Problems: validate.File(s.Main, s.ID)}, validate.Report{Problems: validate.File(rf, s.ID)}), "%d%%", pct)
				sent, err := spec.Active(rf)
				require.NoError(t, err)
				require.NoError(t, spec.CheckFit(orig, sent, tx.Report.Tokens.TurnsRemoved), "%d%%", pct)
			}
		})
	}
}

// TestTargetTokensManyTurns: on a chain of thousands of short turns, a
// budget that keeps only the last few hundred is used, not thrown away:
// the note of the removed turns names them all in its range and gives a
// line only to the last ones, as many as fit a twentieth of the target (a
// line each for 10,000 turns cost more than the turns; every turn then
// went, and the result was a tenth of the budget).
func TestTargetTokensManyTurns(t *testing.T) {
	res, err := gen.GenerateChain(gen.Options{Seed: 3, Dir: t.TempDir()}, 20_000)
	require.NoError(t, err)
	s, err := chain.Load(res.Path)
	require.NoError(t, err)
	defer s.Close()
	const target = 50_000
	tx, err := ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, tx.Render(s.Main)(&buf))
	rf, err := chain.LoadBytes(res.Path, buf.Bytes())
	require.NoError(t, err)
	got := rf.ResumeTokens().Total()
	removed := tx.Report.Tokens.TurnsRemoved
	t.Logf("%d -> %d tokens (target %d), %d of %d turns removed", tx.Report.Tokens.Before, got, target, len(removed), len(s.Main.ActiveTurns().List))
	require.LessOrEqual(t, got, target)
	require.Greater(t, got, target*8/10, "the budget is used")
	sent, err := spec.Active(rf)
	require.NoError(t, err)
	orig, err := spec.Active(s.Main)
	require.NoError(t, err)
	require.NoError(t, spec.CheckFit(orig, sent, removed))
	note := ""
	for _, m := range sent {
		for _, b := range m.Blocks {
			if strings.HasPrefix(b.Text, spec.FitNote) {
				note = b.Text
			}
		}
	}
	lines := strings.Count(note, "\n")
	require.Positive(t, lines)
	require.Less(t, lines, len(removed), "a line each for the last removed only")
	require.Contains(t, note, fmt.Sprintf("turns 1–%d", removed[len(removed)-1]))
}
