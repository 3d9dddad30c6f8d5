package chain

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// unpairedToolsRef is UnpairedTools as it was written first (a map of the
// next message's results for each assistant message, one of the message
// before's calls for each user message): the oracle of the one that does
// without maps on small messages.
func unpairedToolsRef(f *File, msgs MessageList) []UnpairedTool {
	var out []UnpairedTool
	for k, m := range msgs.All() {
		switch m.Role {
		case "assistant":
			last := k == msgs.Len()-1
			var got map[string]int
			if !last && msgs.At(k+1).Role == "user" {
				for _, j := range msgs.At(k + 1).Entries {
					for _, id := range f.Entries[j].ToolResultIDs() {
						if got == nil {
							got = map[string]int{}
						}
						got[id]++
					}
				}
			}
			for _, j := range m.Entries {
				for _, id := range f.Entries[j].ToolUseIDs() {
					if n := got[id]; last || n != 1 {
						out = append(out, UnpairedTool{Message: k, Entry: j, ID: id, Results: n, Open: last})
					}
				}
			}
		case "user":
			var prev map[string]bool
			for _, j := range m.Entries {
				for _, id := range f.Entries[j].ToolResultIDs() {
					if prev == nil {
						prev = map[string]bool{}
						if k > 0 && msgs.At(k-1).Role == "assistant" {
							for _, a := range msgs.At(k - 1).Entries {
								for _, u := range f.Entries[a].ToolUseIDs() {
									prev[u] = true
								}
							}
						}
					}
					if !prev[id] {
						out = append(out, UnpairedTool{Message: k, Entry: j, ID: id, Result: true})
					}
				}
			}
		}
	}
	return out
}

// toolSession writes a chain of exchanges: assistant messages of one to
// three entries (one message id) with zero to `wide` tool calls each, and
// user messages of one or two entries answering them. With flaws, a call
// is answered once, twice, never, by an id of an older message or of
// none, and a prompt or a second answer comes between.
func toolSession(r *rand.Rand, exchanges, wide int, flaws bool) []byte {
	var b strings.Builder
	parent, n, tool := "null", 0, 0
	line := func(typ, content string, msgID string) {
		n++
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		msg := fmt.Sprintf(`{"role":"user","content":%s}`, content)
		if typ == "assistant" {
			msg = fmt.Sprintf(`{"id":"%s","role":"assistant","model":"claude-x","content":%s}`, msgID, content)
		}
		fmt.Fprintf(&b, `{"type":"%s","uuid":"%s","parentUuid":%s,"sessionId":"s","message":%s}`+"\n", typ, id, parent, msg)
		parent = `"` + id + `"`
	}
	line("user", `"start"`, "")
	var older []string
	for x := range exchanges {
		var calls []string
		for e := range 1 + r.Intn(3) {
			var blocks []string
			if e == 0 {
				blocks = append(blocks, `{"type":"text","text":"on it"}`)
			}
			for range r.Intn(wide + 1) {
				tool++
				id := fmt.Sprintf("toolu_%06d", tool)
				calls = append(calls, id)
				blocks = append(blocks, fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"ls"}}`, id))
			}
			line("assistant", "["+strings.Join(blocks, ",")+"]", fmt.Sprintf("msg_%d", x))
		}
		if flaws && r.Intn(10) == 0 {
			line("user", `"a prompt between"`, "")
		}
		var results []string
		for _, id := range calls {
			k := 1
			if flaws {
				k = []int{0, 1, 1, 1, 2}[r.Intn(5)]
			}
			for range k {
				results = append(results, id)
			}
		}
		if flaws && r.Intn(4) == 0 && len(older) > 0 {
			results = append(results, older[r.Intn(len(older))])
		}
		if flaws && r.Intn(6) == 0 {
			results = append(results, "toolu_none")
		}
		r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		older = append(older, calls...)
		for len(results) > 0 {
			m := 1 + r.Intn(len(results))
			var blocks []string
			for _, id := range results[:m] {
				blocks = append(blocks, fmt.Sprintf(`{"type":"tool_result","tool_use_id":"%s","content":"ok"}`, id))
			}
			line("user", "["+strings.Join(blocks, ",")+"]", "")
			results = results[m:]
		}
	}
	return []byte(b.String())
}

// TestUnpairedToolsIsTheMapsOne holds UnpairedTools to the first one on
// sessions of every flaw it reports (missing, doubled, foreign and orphan
// results, a message between a call and its results), from messages of
// one call to messages of more calls than it checks without a map.
func TestUnpairedToolsIsTheMapsOne(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	flawsSeen := 0
	for run := range 200 {
		wide := []int{1, 3, 12, 40}[run%4]
		f, err := LoadBytes("t.jsonl", toolSession(r, 1+r.Intn(30), wide, run%5 != 0))
		require.NoError(t, err)
		msgs := f.Messages(f.Graph().ActivePath())
		want := unpairedToolsRef(f, msgs)
		require.Equal(t, want, f.UnpairedTools(msgs), "run %d (wide %d)", run, wide)
		flawsSeen += len(want)
		f.Close()
	}
	require.Greater(t, flawsSeen, 1000, "the sessions have flaws to find")
}

// TestUnpairedToolsAllocatesPerFlawNotPerMessage: on the agentic shape
// (thousands of exchanges of one call each) validate lists the unpaired
// tools of the input and of the output, serially; the list made two maps
// and two slices per exchange: 60% of compress-old-turns' allocations
// there and a tenth of its CPU with the collector's share.
func TestUnpairedToolsAllocatesPerFlawNotPerMessage(t *testing.T) {
	f, err := LoadBytes("t.jsonl", toolSession(rand.New(rand.NewSource(2)), 2000, 3, false))
	require.NoError(t, err)
	defer f.Close()
	msgs := f.Messages(f.Graph().ActivePath())
	require.Greater(t, msgs.Len(), 3000)
	var got []UnpairedTool
	allocs := testing.AllocsPerRun(5, func() { got = f.UnpairedTools(msgs) })
	require.Empty(t, unpairedToolsRef(f, msgs))
	require.Empty(t, got)
	require.LessOrEqual(t, allocs, 4.0, "allocations of a list of %d messages with nothing unpaired", msgs.Len())
}

// resultsBesideCallsRef is ResultsBesideCalls as it was written first
// (each entry's ids copied out, the map of calls grown as it went).
func resultsBesideCallsRef(f *File, leaf int) []BesideCall {
	anc, _ := ancestors[int32](f.Graph(), leaf)
	var out []BesideCall
	calls := map[string]bool{}
	for _, j32 := range anc {
		j := int(j32)
		e := &f.Entries[j]
		for _, id := range e.ToolUseIDs() {
			calls[id] = true
		}
		if !e.IsToolResult() {
			continue
		}
		var ids []string
		for _, id := range e.ToolResultIDs() {
			if !calls[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			out = append(out, BesideCall{Entry: j, IDs: ids})
		}
	}
	return out
}

// TestResultsBesideCallsIsTheFirstOne holds ResultsBesideCalls to the
// first one on the sessions of TestUnpairedToolsIsTheMapsOne, from every
// leaf of a few (a result above its call: a leaf between the two), and
// its allocations on a sound session of thousands of calls to a few, not
// two an entry.
func TestResultsBesideCallsIsTheFirstOne(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	found := 0
	for run := range 100 {
		f, err := LoadBytes("t.jsonl", toolSession(r, 1+r.Intn(30), []int{1, 3, 12}[run%3], true))
		require.NoError(t, err)
		leaves := []int{f.Graph().ActiveLeaf()}
		if run%10 == 0 {
			for j := range f.Entries {
				leaves = append(leaves, j)
			}
		}
		for _, leaf := range leaves {
			want := resultsBesideCallsRef(f, leaf)
			require.Equal(t, want, f.ResultsBesideCalls(leaf), "run %d, leaf %d", run, leaf)
			found += len(want)
		}
		f.Close()
	}
	require.Greater(t, found, 20, "the sessions have results beside their calls")

	f, err := LoadBytes("t.jsonl", toolSession(rand.New(rand.NewSource(2)), 2000, 3, false))
	require.NoError(t, err)
	defer f.Close()
	leaf := f.Graph().ActiveLeaf()
	require.Empty(t, resultsBesideCallsRef(f, leaf))
	allocs := testing.AllocsPerRun(5, func() { require.Empty(t, f.ResultsBesideCalls(leaf)) })
	require.LessOrEqual(t, allocs, 32.0, "allocations on a branch of %d entries with every result below its call", len(f.Entries))
}

// TestCyclesAllocatesOnceNotPerEntry: validate looks for loops of parents
// in the input and again in the output of every write; the walk made a
// stack for every entry it started from (98,305 allocations in one
// compress-old-turns of the agentic shape at 100 MB). The loops it finds
// are the same (a loop, a loop under a chain, two loops, none).
func TestCyclesAllocatesOnceNotPerEntry(t *testing.T) {
	for _, c := range []struct {
		parent []int
		want   []int
	}{
		{[]int{-1, 0, 1, 2}, nil},
		{[]int{1, 2, 0}, []int{0}},
		{[]int{-1, 0, 3, 2, 3}, []int{2}},
		{[]int{1, 0, 3, 2, 2, 4}, []int{0, 2}},
		{[]int{0}, []int{0}},
	} {
		g := &Graph{Parent: c.parent}
		require.Equal(t, c.want, g.Cycles(), "parents %v", c.parent)
	}
	parent := make([]int, 100_000)
	for i := range parent {
		parent[i] = i - 1
	}
	g := &Graph{Parent: parent}
	allocs := testing.AllocsPerRun(3, func() { require.Empty(t, g.Cycles()) })
	require.LessOrEqual(t, allocs, 4.0, "allocations of a chain of %d entries", len(parent))
}
