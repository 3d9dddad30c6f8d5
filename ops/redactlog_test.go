package ops

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session dense with secrets: the list goes to a scratch file and comes
// back whole, in order, with the same values.
func TestRedactionLogSpillsToAScratchFileAndReadsBackInOrder(t *testing.T) {
	old := redactLogMem
	redactLogMem = 3 * redactRecLen
	defer func() { redactLogMem = old }()
	var l RedactionLog
	defer l.Close()
	var want []Redaction
	for k := 0; k < 10; k++ {
		sum := [16]byte{byte(k), 0xab, 0xcd, 0xef}
		num := uint32(k + 1)
		if k == 4 {
			num = 0 // left in place: no placeholder
		}
		rule := []string{"github-pat", "aws-access-key-id"}[k%2]
		l.add("/s/a.jsonl", fmt.Sprintf("message.content.%d.text", k), rule, 100+k, num, sum, k == 7)
		r := Redaction{File: "/s/a.jsonl", Line: 100 + k, Field: fmt.Sprintf("message.content.%d.text", k), Rule: rule,
			Fingerprint: fmt.Sprintf("%02xabcdef", k), InThinking: k == 7}
		if num > 0 {
			r.Placeholder = fmt.Sprintf("[REDACTED:%s:%d]", rule, num)
		}
		want = append(want, r)
	}
	require.NotNil(t, l.spill, "past the memory budget the records go to a file")
	got, err := l.Slice()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, 10, l.Len())
	assert.Equal(t, map[string]int{"github-pat": 5, "aws-access-key-id": 5}, l.ByRule())
	// read twice (the text report, then --json)
	again, err := l.Slice()
	require.NoError(t, err)
	assert.Equal(t, want, again)
}
