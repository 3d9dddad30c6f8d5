package ops

import (
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/sjson"
)

// SelectBranch keeps one branch of the main transcript — the history that
// leads to Leaf, across compactions — and removes the entries that only
// other branches hold, so that the branch is the one the client resumes.
// It is what `clone --leaf/--branch` adds to a plain clone.
type SelectBranch struct{ Leaf int }

// Name of the operation.
func (SelectBranch) Name() string { return "select-branch" }

// Apply removes every entry that belongs only to another branch.
func (o SelectBranch) Apply(t *Txn) error {
	f := t.S.Main
	g := f.Graph()
	keep := map[int]bool{}
	for _, seg := range g.History(o.Leaf) {
		for _, i := range seg.Entries {
			keep[i] = true
		}
	}
	drop := map[int]bool{}
	for _, l := range g.Branches() {
		if keep[l] {
			continue
		}
		for j := l; j >= 0 && !keep[j] && !drop[j]; j = g.Parent[j] {
			drop[j] = true
		}
	}
	t.dropSubtrees(f, drop, keep)
	t.Count(CountOtherBranches, len(drop))
	// 2.1.x resumes the branch named by the last last-prompt entry
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind == chain.KindEntry && e.Type() == "last-prompt" && !t.Dropped(f, i) {
			raw, err := t.Raw(f, i)
			if err != nil {
				return err
			}
			out, err := sjson.SetBytes(raw, "leafUuid", f.Entries[o.Leaf].UUID())
			if err != nil {
				return err
			}
			t.Set(f, i, out)
		}
	}
	return nil
}

// dropSubtrees removes the entries of drop and every descendant of them
// that keep does not hold (tool results of parallel calls, progress
// records), and the subagent transcripts of removed Agent/Task calls.
func (t *Txn) dropSubtrees(f *chain.File, drop, keep map[int]bool) {
	g := f.Graph()
	queue := make([]int, 0, len(drop))
	for i := range drop {
		queue = append(queue, i)
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range g.ChildrenOf(i) {
			if !keep[c] && !drop[c] {
				drop[c] = true
				queue = append(queue, c)
			}
		}
	}
	for i := range drop {
		t.Drop(f, i)
	}
	if f == t.S.Main {
		t.dropOrphanSubagents()
	}
}

// dropOrphanSubagents removes the subagent transcripts whose Agent/Task
// call is no longer in the main transcript.
func (t *Txn) dropOrphanSubagents() {
	for _, a := range t.S.Subagents {
		if a.ParentEntry >= 0 && t.Dropped(t.S.Main, a.ParentEntry) {
			t.RemoveFile(a.File)
		}
	}
}

// ForkAtTurn keeps the conversation up to and including the complete
// answer to turn N (1-based, as `turns` numbers them) of the branch ending
// at Leaf, and removes everything after it.
type ForkAtTurn struct {
	N    int
	Leaf int
}

// Name of the operation.
func (ForkAtTurn) Name() string { return "fork-at-turn" }

// Apply cuts the branch after turn N.
func (o ForkAtTurn) Apply(t *Txn) error {
	f := t.S.Main
	g := f.Graph()
	ts := f.TurnsOf(o.Leaf)
	if len(ts.List) == 0 {
		return &chain.Error{Msg: "the session has no turns to fork at", Code: 1}
	}
	if o.N < 1 || o.N > len(ts.List) {
		return turnRangeError(o.N, len(ts.List))
	}
	turn := ts.List[o.N-1]
	last := cleanEnd(f, ts.History[:beforeCompaction(f, ts.History, turn)+1])
	why := "has no complete answer"
	if turn.Interrupted {
		why = "was interrupted (\"[Request interrupted by user]\"), so it has no complete answer"
	}
	if last < 0 {
		return &chain.Error{Msg: fmt.Sprintf("turn %d %s, and no turn before it has one, so there is nothing to fork", o.N, why), Hint: "fork at a later turn", Code: 1}
	}
	if last < turn.First {
		t.Note("turn %d %s: the fork ends with its prompt removed", o.N, why)
	}
	keep := map[int]bool{}
	for _, i := range ts.History[:last+1] {
		keep[i] = true
	}
	// the parallel tool results the client sends with the kept entries
	p := g.PathTo(ts.History[last])
	for _, i := range p.Entries {
		keep[i] = true
	}
	lastOff := f.Entries[ts.History[last]].Off
	drop := map[int]bool{}
	for i := range f.Entries {
		e := &f.Entries[i]
		if keep[i] || e.Kind != chain.KindEntry {
			continue
		}
		switch {
		case e.IsSidechain && e.Off < lastOff:
			// a subagent's run kept inline (1.0.x), written during the kept
			// turns: it stays, as a 2.1.x fork keeps the subagent files of
			// the calls it keeps (the client sends no sidechain entry)
		case e.IsChain():
			// entries of this or other branches beyond the fork point; side
			// records of kept entries (progress, and the progress entries
			// that 2.1.37-2.1.39 chain below them) that precede it stay
			if e.Off > lastOff || isConversationalEntry(e) || g.Parent[i] < 0 || !keep[g.Parent[i]] {
				drop[i] = true
			} else {
				keep[i] = true
			}
		case e.Off > lastOff:
			drop[i] = true // metadata written after the fork point
		}
	}
	t.dropSubtrees(f, drop, keep)
	// what follows the fork point in the file, and what the file holds
	// before it that the fork leaves out (other branches, their records)
	after := 0
	for i := range drop {
		if f.Entries[i].Off > lastOff {
			after++
		}
	}
	t.Count(CountAfterFork, after)
	if len(drop) > after {
		t.Count(CountOtherBranches, len(drop)-after)
	}
	return nil
}

// beforeCompaction returns the position in hist where turn t ends: before
// a compaction that follows its answer (a /compact between two turns
// belongs to neither: the fork keeps the turn as it was sent, with the
// history the compaction summarized), else the turn's last entry.
func beforeCompaction(f *chain.File, hist []int, t chain.Turn) int {
	for k := t.First; k <= t.Last; k++ {
		if e := &f.Entries[hist[k]]; e.Type() == "system" && e.Subtype() == "compact_boundary" {
			if cleanEnd(f, hist[t.First:k]) >= 0 {
				return k - 1
			}
			break // compacted inside the turn's tool loop: the answer comes after
		}
	}
	return t.Last
}

func isConversationalEntry(e *chain.Entry) bool {
	return e.Type() == "user" || e.Type() == "assistant" || e.Type() == "attachment"
}

// cleanEnd returns the position in hist of the last entry that ends the
// conversation cleanly: an assistant message with no tool call waiting for
// its result, and the client's records right after it. It returns -1 when
// no such point exists.
func cleanEnd(f *chain.File, hist []int) int {
	for k := len(hist) - 1; k >= 0; k-- {
		e := &f.Entries[hist[k]]
		if e.Type() == "assistant" && e.IsMessage() {
			if groupHasToolUse(f, hist, k) {
				continue
			}
			// keep trailing bookkeeping (turn_duration, ...) that follows it
			end := k
			for end+1 < len(hist) {
				n := &f.Entries[hist[end+1]]
				if n.Type() != "system" || n.Subtype() == "compact_boundary" {
					break
				}
				end++
			}
			return end
		}
		if e.Type() == "user" && e.IsMessage() && !e.IsToolResult() && !e.IsMeta {
			// a prompt that got no answer: cut before it
			continue
		}
	}
	return -1
}

// groupHasToolUse reports whether the API message that entry hist[k] is a
// part of (the neighbouring entries with its message.id) calls a tool.
func groupHasToolUse(f *chain.File, hist []int, k int) bool {
	id := f.Entries[hist[k]].MsgID()
	for _, dir := range []int{-1, 1} {
		for j := k; j >= 0 && j < len(hist); j += dir {
			e := &f.Entries[hist[j]]
			// one message as chain.Messages groups them: entries without a
			// message.id join their neighbours
			if e.Type() != "assistant" || (j != k && id != "" && e.MsgID() != "" && e.MsgID() != id) {
				break
			}
			if len(e.ToolUseIDs()) > 0 {
				return true
			}
		}
	}
	return false
}

// Clone marks a copy: the identifiers are remapped by the destination (a
// new session id makes Txn.Finish give every entry a fresh uuid); the
// operation itself changes nothing else.
type Clone struct{}

// Name of the operation.
func (Clone) Name() string { return "clone" }

// Apply does nothing: cloning is the remapping that a new session gets.
func (Clone) Apply(*Txn) error { return nil }

func turnRangeError(n, max int) error {
	return &chain.Error{Msg: fmt.Sprintf("turn %d is out of range: the branch has turns 1-%d", n, max), Hint: "list them with 'ccsurgeon turns SESSION'", Code: 2}
}
