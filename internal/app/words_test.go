package app

import (
	"errors"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetRefusalWords: a --target-tokens the cuts cannot meet reads as
// it did when ops worded it (the strings below are ops' of before issue
// 29), naming the flag of the command that keeps the recent turns:
// --keep-turns for compress-old-turns, --compress-old-turns for rewrite;
// every figure in the one token format (a target given as 150k echoed as
// 150k), but the hint's, which is run as printed; the hint names what
// blocks (the first prompt the system prompt is measured by, when it is).
func TestTargetRefusalWords(t *testing.T) {
	floor := &ops.TargetError{Target: 1000, Total: 5200, Floor: 5200, Overhead: 4000, Last: 1100, Rest: 100, Measured: true}
	unmeasured := &ops.TargetError{Target: 150000, Total: 207123, Floor: 207123, Overhead: 17000, Last: 188889, Rest: 1234}
	recent := &ops.TargetError{Target: 1000, Total: 5200, Floor: 5200, Overhead: 4000, Last: 900, Rest: 300, KeptRecent: true, KeepTurns: 1, KeepExchanges: 4}
	for _, c := range []struct {
		spec      OpSpec
		te        *ops.TargetError
		msg, hint string
	}{
		{OpSpec{}, floor,
			"cannot fit 1,000 tokens: after every cut the estimate is 5,200 tokens (system prompt and tools with the first prompt they are measured by ~4,000, the last prompt and its answer ~1,100, what is left of the other turns ~100); nothing was written",
			"the system prompt and tools with the first prompt they are measured by, and the last prompt with its answer, need that much: give a --target-tokens of at least 5200"},
		{OpSpec{}, unmeasured,
			"cannot fit 150k tokens: after every cut the estimate is 207k tokens (system prompt and tools ~17,000, the last prompt and its answer ~189k, what is left of the other turns ~1,234); nothing was written",
			"the system prompt and tools and the last prompt with its answer need that much: give a --target-tokens of at least 207123"},
		{OpSpec{}, recent,
			"cannot fit 1,000 tokens without touching the recent context (the last turn and 4 tool exchanges, kept by --keep-turns and --keep-exchanges): after every other cut the estimate is 5,200 tokens (system prompt and tools ~4,000, the last prompt and its answer ~900, the other turns ~300); nothing was written",
			"leave out --keep-turns and --keep-exchanges (--target-tokens then cuts the recent turns too), or give a --target-tokens of at least 5200"},
		{OpSpec{KeepTurnsFlag: "--compress-old-turns"}, recent,
			"cannot fit 1,000 tokens without touching the recent context (the last turn and 4 tool exchanges, kept by --compress-old-turns and --keep-exchanges): after every other cut the estimate is 5,200 tokens (system prompt and tools ~4,000, the last prompt and its answer ~900, the other turns ~300); nothing was written",
			"leave out --compress-old-turns and --keep-exchanges (--target-tokens then cuts the recent turns too), or give a --target-tokens of at least 5200"},
	} {
		err := c.spec.targetWords(c.te)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, c.msg, e.Msg)
		assert.Equal(t, c.hint, e.Hint)
		assert.Equal(t, 1, e.ExitCode())
		var te *ops.TargetError
		assert.True(t, errors.As(err, &te), "the facts stay reachable")
	}
}

// TestRemedyWords: the remedies ops states as facts (a note ending in
// ops.RepairFirst, a fix left with KeepOne) read as ops wrote them before
// issue 29, naming the commands that do them.
func TestRemedyWords(t *testing.T) {
	note := "line 3 of /p/s.jsonl is not a JSON entry and holds 1 secret that cannot be replaced without changing its structure: they are still in the output; " + ops.RepairFirst
	assert.Equal(t, []string{"line 3 of /p/s.jsonl is not a JSON entry and holds 1 secret that cannot be replaced without changing its structure: they are still in the output; remove or repair the line (ccsurgeon repair) first", "other"},
		noteWords([]string{note, "other"}))
	assert.Nil(t, noteWords(nil), "no notes stay none (omitted from --json)")
	fixes := fixWords([]ops.Fix{{Code: "consecutive-assistant", Message: "two answers; repair does not merge two answers into one or choose between them", KeepOne: true}, {Code: "x", Message: "m"}})
	assert.Equal(t, "two answers; repair does not merge two answers into one or choose between them; keep the one you want with 'fork-at-turn' or 'clone --branch'", fixes[0].Message)
	assert.Equal(t, "m", fixes[1].Message)
}
