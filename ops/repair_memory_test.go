package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// TestLineUpResultsOfASoundChainAllocatesNothingALine: repair's step that
// lines up the results of a call whose message lost an entry looks at
// nothing on a path where no message lost one. It made a map of every
// entry of the path's position first: on the chain of a million small
// entries, 23 MB of repair --dry-run's peak, the most of what put it over
// half the file.
func TestLineUpResultsOfASoundChainAllocatesNothingALine(t *testing.T) {
	const n = 20_000
	f, s := soundChain(t, n)
	defer s.Close()
	tx := NewTxn(s)
	kept := identity(len(f.Entries))
	path := f.Graph().ActivePath()
	msgs := f.Messages(path)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if _, err := lineUpResults(tx, f, f, kept, f.Graph().ActiveLeaf(), path.Entries, msgs); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if tx.ChangesAnything() {
		t.Fatal("lineUpResults changed a sound chain")
	}
	if per := float64(m1.TotalAlloc-m0.TotalAlloc) / n; per >= 1 {
		t.Errorf("lineUpResults allocated %.1f bytes a line of a chain where no message lost an entry, want none", per)
	}
}

// TestResultsBelowCallsOfASoundChainAddsNothingALine: the step that moves a
// result hanging beside its call below it looks up the message of each
// result found beside its call, and there is none on a sound chain. It
// made a map of every entry's message first: 19 MB of repair --dry-run's
// peak on the chain of 500,000 small entries.
func TestResultsBelowCallsOfASoundChainAddsNothingALine(t *testing.T) {
	f, s := soundChain(t, 20_000)
	defer s.Close()
	tx := NewTxn(s)
	kept := identity(len(f.Entries))
	leaf := f.Graph().ActiveLeaf()
	msgs := f.Messages(f.Graph().ActivePath())
	allocated := func(fn func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		fn()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	find := allocated(func() { f.ResultsBesideCalls(leaf) })
	var err error
	step := allocated(func() { err = (&Repair{}).resultsBelowCalls(tx, f, f, kept, leaf, msgs) })
	if err != nil {
		t.Fatal(err)
	}
	if tx.ChangesAnything() {
		t.Fatal("resultsBelowCalls changed a sound chain")
	}
	if per := (float64(step) - float64(find)) / float64(len(f.Entries)); per >= 1 {
		t.Errorf("resultsBelowCalls allocated %.1f bytes a line more than finding the results beside calls (%d vs %d bytes), want none", per, step, find)
	}
}

// soundChain writes and loads a session of n entries, prompts and answers
// in one chain, one tool call in every fourth answer with its result in
// the next prompt: nothing for repair to fix.
func soundChain(t *testing.T, n int) (*chain.File, *chain.Session) {
	t.Helper()
	// a chain of prompts and answers, one tool call in every fourth answer
	// with its result in the next prompt
	var b strings.Builder
	id := func(k int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", k) }
	for k := 0; k < n; k++ {
		parent := "null"
		if k > 0 {
			parent = `"` + id(k-1) + `"`
		}
		var msg string
		switch {
		case k%2 == 0 && k%8 == 2:
			msg = fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"ok"}]}`, k-1)
		case k%2 == 0:
			msg = fmt.Sprintf(`"type":"user","message":{"role":"user","content":"prompt %d"}`, k)
		case k%8 == 1:
			msg = fmt.Sprintf(`"type":"assistant","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"ls"}}]}`, k, k)
		default:
			msg = fmt.Sprintf(`"type":"assistant","message":{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":"answer %d"}]}`, k, k)
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"%s","version":"2.0.50",%s,"uuid":"%s","timestamp":"2026-01-05T09:00:00.000Z"}`+"\n", parent, id(999999), msg, id(k))
	}
	p := filepath.Join(t.TempDir(), id(999999)+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := chain.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if v := validate.File(s.Main, s.ID); len(v) != 0 {
		s.Close()
		t.Fatalf("the chain is not sound: %v", v[0])
	}
	return s.Main, s
}

// identity is kept when no line was dropped: entry k of the file as fixed
// is entry k of the input.
func identity(n int) []int {
	kept := make([]int, n)
	for i := range kept {
		kept[i] = i
	}
	return kept
}
