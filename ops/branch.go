package ops

import (
	"fmt"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
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
	// the last last-prompt entry said another branch's last prompt: it
	// says this one's (the leafUuid of every one is set below)
	lp := lastPromptEntry(f)
	named, ok := -1, false
	if lp >= 0 {
		named, ok = g.Lookup(f.Entries[lp].LeafUUID())
	}
	if ts := f.TurnsOf(o.Leaf).List; lp >= 0 && len(ts) > 0 && (!ok || !keep[named]) {
		if err := t.sayLastPrompt(f, lp, ts[len(ts)-1].Entry, o.Leaf); err != nil {
			return err
		}
	}
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
		for _, c32 := range g.ChildrenOf(i) {
			c := int(c32)
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

// ForkAtTurn keeps the first N turns (1-based, as `turns` numbers them)
// of the branch ending at Leaf as they happened, and removes everything
// after them. Turn N is kept whatever it holds: a complete answer, an
// answer the person interrupted, or the calls of a turn the file ends in
// the middle of (the calls ran: the files on disk are as they left them).
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
		return &chain.Error{Msg: "the session has no turns to fork at"}
	}
	if o.N < 1 || o.N > len(ts.List) {
		return turnRangeError(o.N, len(ts.List))
	}
	turn := ts.List[o.N-1]
	end := turn.Last
	if o.N < len(ts.List) {
		end = beforeCompaction(f, ts.History, turn)
	}
	last := turnEnd(f, ts.History, turn.First, end, o.N < len(ts.List))
	keep := map[int]bool{}
	lastOff := int64(-1)
	for _, i := range ts.History[:last+1] {
		keep[i] = true
	}
	// the parallel tool results the client sends with the kept entries
	p := g.PathTo(ts.History[last])
	for _, i := range p.Entries {
		keep[i] = true
	}
	for i := range keep {
		lastOff = max(lastOff, f.Entries[i].Off)
	}
	if turn.Interrupted {
		t.Note("turn %d was interrupted (\"[Request interrupted by user]\"): the fork keeps it as it stands", o.N)
	} else if o.N == len(ts.List) && !answeredAt(f, ts.History, turn.First, last) {
		t.Note("turn %d has no answer yet (the session ends inside it): the fork keeps it as it stands", o.N)
	}
	drop := map[int]bool{}
	for i := range f.Entries {
		e := &f.Entries[i]
		if keep[i] || e.Kind != chain.KindEntry {
			continue
		}
		switch {
		case e.IsSidechain() && e.Off < lastOff:
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
	if err := t.keepLastPrompt(f, drop, turn.Entry, ts.History[last]); err != nil {
		return err
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

// beforeCompaction returns the position in hist where turn t ends when
// another turn follows it: before a compaction that follows the turn (a
// /compact between two turns belongs to neither: the fork keeps the turn
// as it was sent, with the history the compaction summarized), else the
// turn's last entry. A compaction the client made on its own inside the
// turn's tool loop is part of the turn: its answer comes after.
func beforeCompaction(f *chain.File, hist []int, t chain.Turn) int {
	for k := t.First + 1; k <= t.Last; k++ {
		e := &f.Entries[hist[k]]
		if e.Type() != "system" || e.Subtype() != "compact_boundary" {
			continue
		}
		if manualCompaction(f, hist[k]) || answeredAt(f, hist, t.First, k-1) || interruptedIn(f, hist[t.First:k]) {
			return k - 1
		}
	}
	return t.Last
}

// manualCompaction reports whether compact boundary i records a /compact
// the person typed (compactMetadata.trigger "manual").
func manualCompaction(f *chain.File, i int) bool {
	raw, err := f.Raw(i)
	return err == nil && gjson.GetBytes(raw, "compactMetadata.trigger").Str == "manual"
}

// interruptedIn reports whether entries hold the marker of an interruption.
func interruptedIn(f *chain.File, entries []int) bool {
	for _, i := range entries {
		if e := &f.Entries[i]; e.Type() == "user" && strings.HasPrefix(strings.TrimLeft(e.TextHead(), " \t\r\n"), chain.InterruptedPrefix) {
			return true
		}
	}
	return false
}

// turnEnd returns the position in hist, from first to end, of the turn's
// last entry: for the last turn (next false) end, all of it. When another
// turn follows, what prefaces that turn's prompt is not part of this one:
// the client merges a local command's records, IDE context and
// attachments into the next prompt's message (the tool results and the
// interruption marker that end this turn stay); trailing records that
// hang off the turn's last entry (progress, hook records) are kept as side
// records, and a compaction boundary the turn ends on is not part of it.
func turnEnd(f *chain.File, hist []int, first, end int, next bool) int {
	if !next {
		return end // the last turn: all of it, as a clone has it
	}
	for k := end; k > first; k-- {
		e := &f.Entries[hist[k]]
		switch e.Type() {
		case "user":
			if e.IsToolResult() || !e.IsMessage() || strings.HasPrefix(strings.TrimLeft(e.TextHead(), " \t\r\n"), chain.InterruptedPrefix) {
				return k
			}
		case "assistant":
			return k
		case "system":
			if e.Subtype() != "compact_boundary" && e.Subtype() != "local_command" {
				return k
			}
		}
	}
	return first
}

// answeredAt reports whether hist[first:last+1] holds an assistant
// message that waits for no tool result.
func answeredAt(f *chain.File, hist []int, first, last int) bool {
	for k := last; k >= first; k-- {
		e := &f.Entries[hist[k]]
		if e.Type() == "assistant" && e.IsMessage() && !groupHasToolUse(f, hist, k) {
			return true
		}
	}
	return false
}

func isConversationalEntry(e *chain.Entry) bool {
	return e.Type() == "user" || e.Type() == "assistant" || e.Type() == "attachment"
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

func turnRangeError(n, max int) error { return &TurnRangeError{N: n, Last: max} }

// TurnRangeError says that turn N (or the turns of Range) is not a turn of
// the branch, whose turns are 1 to Last. The command layer words it
// (which command lists them, the exit code of a usage error).
type TurnRangeError struct {
	N     int
	Range string // a range of turns as given ("2-7"), else N
	Last  int
}

func (e *TurnRangeError) Error() string {
	if e.Range != "" {
		return fmt.Sprintf("turn range %q is out of range: the branch has turns 1-%d", e.Range, e.Last)
	}
	return fmt.Sprintf("turn %d is out of range: the branch has turns 1-%d", e.N, e.Last)
}

// OptionError says that an operation was given an option outside its
// domain: Option is the field (KeepTurns), Want what it takes. The command
// layer checks its flags before it builds an operation; this guards every
// other caller.
type OptionError struct {
	Option string
	Value  int
	Want   string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s is %d: it must be %s", e.Option, e.Value, e.Want)
}

// keepLastPrompt: 2.1.x's picker shows a session as the lastPrompt of its
// file's last last-prompt entry, and resumes the branch its leafUuid names
// (the nil UUID of a rewind marker names none). When the last such entry
// lies beyond the fork point, it is kept, saying turn N's prompt (the
// entry at prompt) and naming the fork's last entry (leaf); else the
// fork's last one would be whatever the client wrote before the fork
// point, turn 1's prompt say, or none.
func (t *Txn) keepLastPrompt(f *chain.File, drop map[int]bool, prompt, leaf int) error {
	lp := lastPromptEntry(f)
	if lp < 0 || !drop[lp] {
		return nil
	}
	delete(drop, lp)
	return t.sayLastPrompt(f, lp, prompt, leaf)
}

// lastPromptEntry is the file's last last-prompt entry that names an entry
// (a rewind marker's nil UUID names none), or -1.
func lastPromptEntry(f *chain.File) int {
	lp := -1
	for i := range f.Entries {
		if e := &f.Entries[i]; e.Kind == chain.KindEntry && e.Type() == "last-prompt" && e.LeafUUID() != nilUUID {
			lp = i
		}
	}
	return lp
}

// sayLastPrompt makes last-prompt entry lp say the prompt of entry prompt
// as the client writes it, and name entry leaf.
func (t *Txn) sayLastPrompt(f *chain.File, lp, prompt, leaf int) error {
	text, err := f.PromptText(prompt)
	if err != nil {
		return err
	}
	raw, err := t.Raw(f, lp)
	if err != nil {
		return err
	}
	out, err := sjson.SetRawBytes(raw, "lastPrompt", EncodeString(normalizeLastPrompt(text)))
	if err == nil {
		out, err = sjson.SetRawBytes(out, "leafUuid", EncodeString(f.Entries[leaf].UUID()))
	}
	if err != nil {
		return err
	}
	t.Set(f, lp, out)
	return nil
}

// normalizeLastPrompt is a prompt as 2.1.x writes it in a last-prompt
// entry's lastPrompt (its normalizeLastPrompt): line breaks made spaces,
// trimmed, and past 200 characters cut to 200 and "…" (counted here in
// characters; the client's own count of a prompt that long was not
// measured).
func normalizeLastPrompt(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if r := []rune(s); len(r) > 200 {
		return strings.TrimSpace(string(r[:200])) + "…"
	}
	return s
}
