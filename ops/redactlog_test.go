package ops

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
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

// The report of --json is encoded on every core, a batch at a time: what
// WriteEach writes is what Each gives, record after record in the order
// they were added, whether they come from the scratch file, from memory or
// from both, with the batches cut anywhere (one record, a few, more than
// the list holds), and a writer's failure is returned.
func TestRedactionLogWriteEachIsEachInOrder(t *testing.T) {
	oldMem, oldBatch := redactLogMem, redactWriteBatch
	defer func() { redactLogMem, redactWriteBatch = oldMem, oldBatch }()
	for _, tc := range []struct {
		name       string
		n, mem     int
		batches    []int
		wantSpills bool
	}{
		{"in memory", 500, 1 << 20, []int{1, 7, 2048}, false},
		{"spilled and in memory", 1003, 40 * redactRecLen, []int{1, 3, 40, 41, 5000}, true},
	} {
		redactLogMem = tc.mem
		var l RedactionLog
		for k := 0; k < tc.n; k++ {
			sum := [16]byte{byte(k), byte(k >> 8), 0xcd, 0xef}
			l.add(fmt.Sprintf("/s/%d.jsonl", k%3), fmt.Sprintf("message.content.%d.text", k%5), []string{"github-pat", "jwt"}[k%2], 10+k, uint32(k%4), sum, k%9 == 0)
		}
		require.Equal(t, tc.wantSpills, l.spill != nil, tc.name)
		var want strings.Builder
		require.NoError(t, l.Each(func(r Redaction) (bool, error) {
			fmt.Fprintf(&want, "%+v\n", r)
			return true, nil
		}))
		require.Equal(t, tc.n, strings.Count(want.String(), "\n"))
		for _, per := range tc.batches {
			redactWriteBatch = per
			var got bytes.Buffer
			require.NoError(t, l.WriteEach(&got, func() func([]byte, int, *RedactionRec) []byte {
				next := 0
				return func(b []byte, k int, r *RedactionRec) []byte {
					// k counts the records of the list, across batches
					require.GreaterOrEqual(t, k, next)
					next = k + 1
					return fmt.Appendf(b, "%+v\n", r.Redaction())
				}
			}), "%s, batches of %d", tc.name, per)
			assert.Equal(t, want.String(), got.String(), "%s, batches of %d", tc.name, per)
			err := l.WriteEach(failingWriter{}, func() func([]byte, int, *RedactionRec) []byte {
				return func(b []byte, k int, r *RedactionRec) []byte { return append(b, 'x') }
			})
			assert.ErrorIs(t, err, errFull, "%s, batches of %d", tc.name, per)
		}
		l.Close()
	}
}

var errFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFull }
