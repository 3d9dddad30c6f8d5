package ops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/sjson"
)

// sessionWithModel writes the session at path with every assistant
// entry's model set to model into a temporary folder and loads it.
func sessionWithModel(t *testing.T, path, model string) *chain.Session {
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"assistant"`)) {
			line, err = sjson.SetBytes(line, "message.model", model)
			require.NoError(t, err)
		}
		out.Write(line)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	require.NoError(t, os.WriteFile(p, out.Bytes(), 0o600))
	s, err := chain.Load(p)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestThinkingCutsFollowTheModel: the thinking of earlier turns costs a
// model that keeps only the last turn's nothing (chain.KeepsAllThinking),
// so neither --target-tokens nor strip-thinking claims to save tokens by
// it. For each model class, on the sessions the real clients wrote with
// thinking in every turn:
//
//	(a) strip-thinking's saving (info's saves_tokens) is what the count
//	    sees: removing the same blocks saves a model that keeps the last
//	    turn's thinking that much less than one that keeps all (the
//	    earlier turns' thinking it never counted), and its estimate after
//	    is the count of what it writes (its bytes removed are every
//	    block's, whatever the model);
//	(b) --target-tokens, asked for a little less than the session counts
//	    with the earlier turns old (keep 1 turn), cuts old thinking for a
//	    model that keeps all, and never for one that keeps the last: that
//	    cut would remove what the user wrote and save no token;
//	(c) either way its figure after is the count of the written result,
//	    at most the target.
func TestThinkingCutsFollowTheModel(t *testing.T) {
	for _, path := range []string{"../testdata/sessions/2.1.328/multi-turn.jsonl", "../testdata/sessions/2.0.50/multi-turn.jsonl"} {
		keepAllSaved := 0 // strip-thinking's saving for the model that keeps all (first)
		for _, m := range []struct {
			id      string
			keepAll bool
		}{
			{"claude-opus-4-7", true},
			{"claude-sonnet-4-5-20250929", false},
			{"claude-haiku-4-5-20251001", false},
		} {
			name := path + " " + m.id
			s := sessionWithModel(t, path, m.id)
			est := s.Main.ResumeTokens()
			require.Equal(t, m.keepAll, est.ThinkingDropped == 0, "%s: earlier turns' thinking dropped: %d", name, est.ThinkingDropped)
			require.Greater(t, est.Tokens[chain.TokThinking], 0, "%s: the last turn's thinking counts", name)

			// (a) strip-thinking
			// (info's token_sources prints it: saves_tokens)
			st := ops.NewTxn(s)
			require.NoError(t, (ops.StripThinking{}).Apply(st))
			after := ops.EstimateAfter(st, est)
			saved := est.Total() - after.Total()
			if m.keepAll {
				keepAllSaved = saved
			} else {
				// the same bytes removed: what the count never saw is not saved
				require.Equal(t, keepAllSaved-est.ThinkingDropped, saved, "%s: strip-thinking's saving", name)
			}
			require.GreaterOrEqual(t, saved, est.Tokens[chain.TokThinking], name)
			require.Zero(t, after.Tokens[chain.TokThinking], name)
			require.Equal(t, 3, st.Report.Counts[ops.CountThinking], "%s: every block removed, whatever the model", name)
			require.NoError(t, st.Finish())
			require.Equal(t, thinkingWrittenCount(t, s, st), after.Total(), "%s: the estimate after strip-thinking is the count of what it writes", name)

			// (b), (c) --target-tokens
			target := est.Total() - 1
			tx, err := ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: 1, KeepRecent: true}}, func() *ops.Txn { return ops.NewTxn(s) })
			require.NoError(t, err, name)
			cutThinking := strings.Contains(strings.Join(tx.Report.Notes, "\n"), "old thinking removed")
			require.Equal(t, m.keepAll, cutThinking, "%s: old thinking cut; notes %q", name, tx.Report.Notes)
			if !m.keepAll {
				require.Zero(t, tx.Report.Counts[ops.CountThinking], "%s: no thinking block removed", name)
			}
			got := thinkingWrittenCount(t, s, tx)
			require.Equal(t, got, tx.Report.Tokens.After, "%s: the figure after is the written count", name)
			require.LessOrEqual(t, got, target, name)
		}
	}
}

// thinkingWrittenCount is info's count of what tx writes of s.
func thinkingWrittenCount(t *testing.T, s *chain.Session, tx *ops.Txn) int {
	var buf bytes.Buffer
	require.NoError(t, tx.Render(s.Main)(&buf))
	f, err := chain.LoadBytes(s.Main.Path, buf.Bytes())
	require.NoError(t, err)
	return f.ResumeTokens().Total()
}

// TestEstimateAfterForkFollowsTheLastTurn: an operation that removes the
// last turn (fork-at-turn) makes an earlier turn the last, whose thinking
// a model that keeps only the last turn's is sent again: the estimate
// after (EstimateAfter, what a printed "after" reads) is the count of the
// written result, for each model class.
func TestEstimateAfterForkFollowsTheLastTurn(t *testing.T) {
	for _, path := range []string{"../testdata/sessions/2.1.328/multi-turn.jsonl", "../testdata/sessions/2.0.50/multi-turn.jsonl"} {
		for _, model := range []string{"claude-opus-4-7", "claude-sonnet-4-5-20250929"} {
			for _, n := range []int{1, 2} {
				s := sessionWithModel(t, path, model)
				before := s.Main.ResumeTokens()
				tx := ops.NewTxn(s)
				require.NoError(t, (ops.ForkAtTurn{N: n, Leaf: s.Main.Graph().ActiveLeaf()}).Apply(tx))
				after := ops.EstimateAfter(tx, before)
				require.NoError(t, tx.Finish())
				require.Equal(t, thinkingWrittenCount(t, s, tx), after.Total(), "%s %s: fork at turn %d", path, model, n)
			}
		}
	}
}
