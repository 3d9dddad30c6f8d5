package ops_test

import (
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/require"
)

// TestThinkingRuleFollowsTheModelTheUserLastUsed: the model a resume will
// talk to is the user's current one; the file records, response by
// response, the model each was asked of (--model switched between turns
// with the newest client, against the mock, which answers as the model
// asked). The estimate takes the last: after a turn with a model that keeps
// every turn's thinking (claude-opus-4-7) it counts all of it; after a turn
// with one that keeps only the last turn's (claude-haiku-4-5) the earlier
// turns' thinking drops out, the last turn's stays.
func TestThinkingRuleFollowsTheModelTheUserLastUsed(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	c := harness.Latest(t)
	turn := func(sid, prompt, model string) string {
		res, err := env.TurnErr(c, sid, prompt, []harness.Reply{harness.Thinking("Let me think about "+prompt+" with some care, step by step.", "Done: "+prompt)},
			"--dangerously-skip-permissions", "--model", model)
		require.NoError(t, err)
		return res.SessionID
	}
	id := turn("", "First question.", "claude-haiku-4-5-20251001")
	turn(id, "Second question.", "claude-opus-4-7")
	load := func() chain.ResumeEstimate {
		f, err := chain.LoadFile(env.SessionPath(id))
		require.NoError(t, err)
		defer f.Close()
		return f.ResumeTokens()
	}
	est := load()
	require.Equal(t, "claude-opus-4-7", est.Model)
	require.True(t, est.Thinking.KeepAll)
	require.Zero(t, est.ThinkingDropped)
	all := est.Tokens[chain.TokThinking]

	turn(id, "Third question.", "claude-haiku-4-5-20251001")
	est = load()
	require.Equal(t, "claude-haiku-4-5-20251001", est.Model)
	require.False(t, est.Thinking.KeepAll)
	// the third turn's thinking is about as long as each earlier one's (the
	// same words, prompts within a character): about half of what the
	// first two held counts
	require.Positive(t, est.Tokens[chain.TokThinking])
	require.InDelta(t, all, est.ThinkingDropped, 2, "the first two turns' thinking dropped (all %d after two turns)", all)
	require.InDelta(t, all/2, est.Tokens[chain.TokThinking], 2, "the last turn's thinking counts")
}
