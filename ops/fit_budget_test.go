package ops_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/spec"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// TestTargetTokensHalfTheConversation: on every session we have (the real
// transcripts of ../shared/corpus and the real-client sessions of
// testdata/sessions), --target-tokens of the system prompt plus half the
// conversation, with no other option, is met by the count `info` makes
// of the written result; the result validates as the original did and
// its conversation is what the cuts say (spec.CheckFit). None of the real
// sessions is over 1 MB, so every one is taken.
func TestTargetTokensHalfTheConversation(t *testing.T) {
	// the shortest note of removed turns, "[ccsurgeon removed turns 1–3]",
	// in a message of its own
	const noteTokens = 40
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "corpus")); err != nil {
		t.Skip("../shared/corpus is absent: the real sessions are not there to check")
	}
	n, refused := 0, 0
	defer func() {
		t.Logf("%d sessions, %d refused (the system prompt and the last exchange alone exceed the target)", n, refused)
	}()
	for _, path := range specSessions(t) {
		name := strings.TrimPrefix(path, ".."+string(filepath.Separator))
		s, err := chain.Load(path)
		require.NoError(t, err)
		before := s.Main.ResumeTokens()
		conv := before.Total() - before.Overhead
		if conv < 200 { // nothing to halve: a prompt and an answer of a few words
			s.Close()
			continue
		}
		n++
		target := before.Overhead + conv/2
		t.Run(name, func(t *testing.T) {
			defer s.Close()
			orig, err := spec.Active(s.Main)
			require.NoError(t, err)
			tx, err := ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
			var te *ops.TargetError
			if errors.As(err, &te) {
				// right only when the system prompt and the last exchange
				// alone exceed the target
				// (beside them only the one-line note of the removed turns)
				require.Greater(t, te.Overhead+te.Last+noteTokens, target, "refused %d (overhead %d + half of %d): %v", target, before.Overhead, conv, err)
				require.LessOrEqual(t, te.Rest, noteTokens, "what is left beside the last exchange is the note: %v", err)
				require.Equal(t, te.Overhead+te.Last+te.Rest, te.Floor, "the smallest target named is what is left")
				refused++
				return
			}
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, tx.Render(s.Main)(&buf))
			rf, err := chain.LoadBytes(path, buf.Bytes())
			require.NoError(t, err)
			got := rf.ResumeTokens().Total()
			require.LessOrEqual(t, got, target, "info's count of the written result")
			require.Equal(t, got, tx.Report.Tokens.After, "the figure printed is info's count of the written result")
			wasValid := validate.File(s.Main, s.ID)
			nowValid := validate.File(rf, s.ID)
			require.Empty(t, validate.Introduced(validate.Report{Problems: wasValid}, validate.Report{Problems: nowValid}))
			sent, err := spec.Active(rf)
			require.NoError(t, err)
			require.NoError(t, spec.CheckFit(orig, sent, tx.Report.Tokens.TurnsRemoved))
			t.Logf("%d -> %d (target %d), turns removed %v", before.Total(), got, target, tx.Report.Tokens.TurnsRemoved)
		})
	}
	require.NotZero(t, n)
}
