package chain

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStreamingCallsSplitByProgress: testdata/streaming-progress-between-calls.jsonl
// was written by Claude Code 2.1.38 with streaming tool execution (ops
// TestStreamingToolsProgressBetweenCalls makes it): one API message of a
// text and 3 parallel Bash calls, the 1st call's progress entries written
// between its tool_use entry and the 2nd's (which hangs below the last
// progress entry), the answer below the 3rd call's result, the 1st and 2nd
// results on side branches. Resuming it, 2.1.332 sends ONE assistant
// message with the 3 calls and then one user message with the 3 results in
// the order they were written (captured by the harness mock). The member:
// the path's part of the message is split by non-message entries; chain
// put the side results after the first part and made two messages.
func TestStreamingCallsSplitByProgress(t *testing.T) {
	f, err := LoadFile("testdata/streaming-progress-between-calls.jsonl")
	require.NoError(t, err)
	defer f.Close()
	msgs := f.Messages(f.Graph().ActivePath())
	type sent struct {
		role string
		ids  []string // tool_use ids of an assistant message, tool_result ids of a user one
	}
	var got []sent
	for k := range 3 {
		m := msgs.At(k)
		s := sent{role: m.Role}
		for _, j := range m.Entries {
			if m.Role == "assistant" {
				s.ids = append(s.ids, f.Entries[j].ToolUseIDs()...)
			} else {
				s.ids = append(s.ids, f.Entries[j].ToolResultIDs()...)
			}
		}
		got = append(got, s)
	}
	calls := []string{"toolu_mock000000000000000002", "toolu_mock000000000000000003", "toolu_mock000000000000000004"}
	require.Equal(t, []sent{{"user", nil}, {"assistant", calls}, {"user", calls}}, got, "what 2.1.332 sends: one assistant message with the 3 calls, then their 3 results")
	require.Equal(t, "assistant", msgs.At(3).Role)
	require.Empty(t, f.UnpairedTools(msgs))
}
