package chain

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWriteAllocatesPerFileNotPerLine: compress-old-turns writes the
// agentic shape as short runs of unchanged lines between removed and
// changed ones; the writer made a reader for each run and a copy of the
// line end for each line it wrote itself (42,000 allocations at 100 MB,
// garbage the collector then ran for). The output is the same bytes.
func TestWriteAllocatesPerFileNotPerLine(t *testing.T) {
	var b strings.Builder
	const n = 6000
	for i := range n {
		eol := "\n"
		if i%7 == 3 {
			eol = "\r\n"
		}
		fmt.Fprintf(&b, `{"type":"user","uuid":"00000000-0000-4000-8000-%012d","message":{"role":"user","content":"line %d"}}%s`, i, i, eol)
	}
	f, err := LoadBytes("t.jsonl", []byte(b.String()))
	require.NoError(t, err)
	defer f.Close()
	lines := strings.SplitAfter(b.String(), "\n")
	ed := NewEdits()
	var want strings.Builder
	for i := range n {
		switch i % 3 {
		case 0: // kept as it is: runs of one line
			want.WriteString(lines[i])
		case 1: // given other bytes
			raw := fmt.Sprintf(`{"type":"user","edited":%d}`, i)
			ed.Get(i).Raw = []byte(raw)
			want.WriteString(raw + lines[i][strings.LastIndexByte(strings.TrimRight(lines[i], "\r\n"), '}')+1:])
		case 2: // left out
			ed.Get(i).Drop = true
		}
	}
	var out bytes.Buffer
	_, err = f.WriteWith(&out, ed, nil, nil)
	require.NoError(t, err)
	require.Equal(t, want.String(), out.String())
	allocs := testing.AllocsPerRun(3, func() {
		_, err := f.WriteWith(io.Discard, ed, nil, nil)
		require.NoError(t, err)
	})
	require.LessOrEqual(t, allocs, 8.0, "allocations writing %d lines, a third kept, a third changed", n)
}
