package ops

import (
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// StripThinking removes thinking and redacted_thinking blocks. A block that
// is an entry of its own (2.1.x writes one entry per block) goes with its
// entry, and the entry's children are re-linked; a block that shares an
// entry loses just itself. A thinking block's text is never edited.
//
// When the session ends inside a tool-use loop, the API wants the final
// assistant turn to start with its thinking: the thinking of that last,
// unfinished turn stays.
type StripThinking struct {
	// BeforeTurn, when > 0, limits the stripping to turns before it.
	BeforeTurn int
}

// Name of the operation.
func (StripThinking) Name() string { return "strip-thinking" }

// Apply removes the thinking blocks.
func (o StripThinking) Apply(t *Txn) error {
	protected := unfinishedLoop(t.S.Main)
	var only map[int]bool
	if o.BeforeTurn > 0 {
		var err error
		if only, err = entriesBeforeTurn(t.S.Main, o.BeforeTurn); err != nil {
			return err
		}
	}
	kept := 0
	for _, f := range t.S.Files() {
		for i := range f.Entries {
			e := &f.Entries[i]
			if e.Type() != "assistant" || !(e.HasBlock(chain.BlockThinking) || e.HasBlock(chain.BlockRedactedThinking)) {
				continue
			}
			if f == t.S.Main && only != nil && !only[i] {
				continue
			}
			if f != t.S.Main && only != nil {
				continue
			}
			if f == t.S.Main && protected[i] {
				kept++
				continue
			}
			n, err := t.RemoveBlocks(f, i, isThinking)
			if err != nil {
				return err
			}
			t.Count(CountThinking, n)
		}
	}
	if kept > 0 {
		t.Note("kept %s of the last turn: the session ends inside a tool-use loop, and the API wants its final assistant turn to start with its thinking", chain.Plural(kept, "thinking block", "thinking blocks"))
	}
	return nil
}

func isThinking(b gjson.Result) bool {
	switch b.Get("type").Str {
	case "thinking", "redacted_thinking":
		return true
	}
	return false
}

// unfinishedLoop returns the assistant entries of the last turn of the
// active branch when that turn is an unfinished tool-use loop: the branch
// ends with a tool call or a tool result rather than a final answer.
func unfinishedLoop(f *chain.File) map[int]bool {
	g := f.Graph()
	p := g.ActivePath()
	// the messages of the branch's end only (chain.MessagesFrom), more of
	// them while the walk back does not reach the prompt: grouping every
	// message of a long branch held 24 MB on half a million entries
	for tail := unfinishedTail; ; tail *= 8 {
		from := max(0, len(p.Entries)-tail)
		out, found := unfinishedIn(f, f.MessagesFrom(p, from))
		if found || from == 0 {
			return out
		}
	}
}

// unfinishedTail is the number of entries at the branch's end unfinishedLoop
// groups first (a variable for tests).
var unfinishedTail = 64

// unfinishedIn is unfinishedLoop on the last messages of the branch;
// found is false when the walk back reached the first of msgs without
// meeting the prompt (more messages are needed to know).
func unfinishedIn(f *chain.File, msgs chain.MessageList) (out map[int]bool, found bool) {
	if msgs.Len() == 0 {
		return nil, false
	}
	last := msgs.At(msgs.Len() - 1)
	open := false
	for _, i := range last.Entries {
		e := &f.Entries[i]
		if (last.Role == "assistant" && len(e.ToolUseIDs()) > 0) || (last.Role == "user" && e.IsToolResult()) {
			open = true
		}
	}
	if !open {
		return nil, true
	}
	out = map[int]bool{}
	// walk back to the prompt that started the turn
	for k := msgs.Len() - 1; k >= 0; k-- {
		m := msgs.At(k)
		if m.Role == "user" {
			isResult := false
			for _, i := range m.Entries {
				if f.Entries[i].IsToolResult() {
					isResult = true
				}
			}
			if !isResult {
				return out, true
			}
			continue
		}
		for _, i := range m.Entries {
			out[i] = true
		}
	}
	return out, false
}

// entriesBeforeTurn returns the entries of the active branch's history that
// come before turn n starts.
func entriesBeforeTurn(f *chain.File, n int) (map[int]bool, error) {
	ts := f.ActiveTurns()
	if n < 1 || n > len(ts.List)+1 {
		return nil, &BeforeTurnError{N: n, Turns: len(ts.List)}
	}
	end := len(ts.History)
	if n <= len(ts.List) {
		end = ts.List[n-1].First
	}
	out := map[int]bool{}
	for _, i := range ts.History[:end] {
		out[i] = true
	}
	return out, nil
}

// BeforeTurnError says that strip-thinking cannot stop before turn N: the
// branch has Turns turns, and N is 1 to Turns+1 (all of them).
type BeforeTurnError struct{ N, Turns int }

func (e *BeforeTurnError) Error() string {
	return fmt.Sprintf("no turn %d to stop before: the branch has %d turns (%d means all of them)", e.N, e.Turns, e.Turns+1)
}
