package chain

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOldClientMissesStreamingCalls: in 2.1.38's streaming calls (the
// 3rd call, line 7, below the 1st call's progress, lines 5-6, the 1st
// and 2nd results, lines 13-14, below their own calls), 2.0.x stops at
// line 7 (it would go on at line 4, the 1st call) and does not send the
// two results on side branches; the 3rd result, on the walk, it sends.
func TestOldClientMissesStreamingCalls(t *testing.T) {
	f, err := LoadFile("testdata/streaming-progress-between-calls.jsonl")
	require.NoError(t, err)
	defer f.Close()
	lines := func(is []int) (out []int) {
		for _, i := range is {
			out = append(out, int(f.Entries[i].Line))
		}
		return out
	}
	m := f.OldClientMisses(f.Graph().ActiveLeaf())
	require.True(t, m.Any())
	require.Equal(t, []int{7}, lines(m.BelowProgress))
	require.Equal(t, []int{4}, lines(m.Above))
	require.Equal(t, []int{13, 14}, lines(m.SideParts))
	require.False(t, f.OldClientMisses(-1).Any())
}
