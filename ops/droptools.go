package ops

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// DropToolCalls removes tool calls together with everything that belongs
// to them: the tool_use block, its tool_result with the result's
// toolUseResult, the progress entries of the call and, for an Agent/Task
// call, the subagent transcript. Entries left empty disappear and the chain
// is re-linked, on every branch, so no orphan is left behind.
//
// The selectors combine: a call is dropped when it matches all that are set.
type DropToolCalls struct {
	Tools      []string // tool names (any of them)
	LargerThan int64    // result size in bytes (tool_result + toolUseResult) above this
	Turns      *TurnRange
	Failed     bool // results with is_error
}

// TurnRange is an inclusive range of turn numbers.
type TurnRange struct{ From, To int }

// openEnd is the To of a range without an end ("5-").
const openEnd = 1 << 30

// String is the range as it is written.
func (r TurnRange) String() string {
	switch {
	case r.From == r.To:
		return strconv.Itoa(r.From)
	case r.To == openEnd:
		return fmt.Sprintf("%d-", r.From)
	case r.From == 1:
		return fmt.Sprintf("1-%d", r.To)
	}
	return fmt.Sprintf("%d-%d", r.From, r.To)
}

// ParseTurnRange reads "3", "1-10", "5-" or "-4".
func ParseTurnRange(s string) (*TurnRange, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("turn range %q: want N, A-B, A- or -B", s)
	if s == "" {
		return nil, bad
	}
	lo, hi, dash := strings.Cut(s, "-")
	r := &TurnRange{From: 1, To: openEnd}
	var err error
	if lo != "" {
		if r.From, err = strconv.Atoi(lo); err != nil || r.From < 1 {
			return nil, bad
		}
	}
	switch {
	case !dash:
		r.To = r.From
	case hi != "":
		if r.To, err = strconv.Atoi(hi); err != nil || r.To < r.From {
			return nil, bad
		}
	}
	return r, nil
}

// ParseSize reads a size such as 20KB, 1.5MB, 512 or 2k (decimal units).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range []struct {
		suf string
		m   float64
	}{{"KIB", 1024}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			mult = u.m
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suf))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (B, KB, MB, GB), e.g. 20KB", s)
	}
	// int64 of a float past its range is undefined (-2^63 on amd64): a
	// negative size would select every call or cut every output
	if v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: %w", s, ErrSizeTooLarge)
	}
	return int64(v * mult), nil
}

// ErrSizeTooLarge is a size past what an int64 holds.
var ErrSizeTooLarge = errors.New("too large")

// Name of the operation.
func (DropToolCalls) Name() string { return "drop-tool-calls" }

// call is one tool call and where its parts sit.
type call struct {
	id, name   string
	uses       []loc // entries with the tool_use block
	results    []loc // entries with the tool_result block
	resultSize int64
	failed     bool
}

type loc struct {
	f *chain.File
	i int
}

// Apply removes the selected calls.
func (o DropToolCalls) Apply(t *Txn) error {
	if len(o.Tools) == 0 && o.LargerThan == 0 && o.Turns == nil && !o.Failed {
		return ErrNoSelector
	}
	if r := o.Turns; r != nil {
		if n := len(t.S.Main.ActiveTurns().List); r.From > n || (r.To != openEnd && r.To > n) {
			return &TurnRangeError{Range: r.String(), Last: n}
		}
	}
	calls := map[string]*call{}
	var order []string
	get := func(id string) *call {
		c := calls[id]
		if c == nil {
			c = &call{id: id}
			calls[id] = c
			order = append(order, id)
		}
		return c
	}
	for _, f := range t.S.Files() {
		for i := range f.Entries {
			e := &f.Entries[i]
			for _, b := range e.Blocks() {
				switch b.Kind {
				case chain.BlockToolUse:
					c := get(b.ID)
					c.name = b.Name
					c.uses = append(c.uses, loc{f, i})
				case chain.BlockToolResult:
					c := get(b.ID)
					c.results = append(c.results, loc{f, i})
					c.resultSize += int64(b.Size) + int64(e.ToolUseResult)
					c.failed = c.failed || b.IsError
				}
			}
		}
	}
	var inTurns map[int]bool
	if o.Turns != nil {
		inTurns = entriesInTurns(t.S.Main, *o.Turns)
	}
	selected := map[string]bool{}
	for _, id := range order {
		c := calls[id]
		if len(o.Tools) > 0 && !containsFold(o.Tools, c.name) {
			continue
		}
		if o.LargerThan > 0 && c.resultSize <= o.LargerThan {
			continue
		}
		if o.Failed && !c.failed {
			continue
		}
		if inTurns != nil {
			in := false
			for _, u := range c.uses {
				if u.f == t.S.Main && inTurns[u.i] {
					in = true
				}
			}
			if !in {
				continue
			}
		}
		selected[id] = true
	}
	if len(selected) == 0 {
		t.Note("no tool call matches the selection")
		return nil
	}
	byTool := map[string]int{}
	// in the order of the calls, so that the entries are read in the
	// order of the file
	for _, id := range order {
		if !selected[id] {
			continue
		}
		c := calls[id]
		for _, l := range append(append([]loc{}, c.uses...), c.results...) {
			if _, err := t.RemoveBlocks(l.f, l.i, func(b gjson.Result) bool {
				return b.Get("id").Str == id && b.Get("type").Str != "tool_result" || b.Get("tool_use_id").Str == id
			}); err != nil {
				return err
			}
		}
		byTool[c.name]++
	}
	// progress records of the dropped calls, and subagents of dropped Agent/Task calls
	for _, f := range t.S.Files() {
		for i := range f.Entries {
			if !f.Entries[i].HasToolIDs() {
				continue
			}
			use, parent, err := f.ToolIDs(i)
			if err != nil {
				return err
			}
			if (use != "" && selected[use]) || (parent != "" && selected[parent]) {
				t.Drop(f, i)
				t.Count(CountProgress, 1)
			}
		}
	}
	for _, a := range t.S.Subagents {
		if a.ToolUseID != "" && selected[a.ToolUseID] {
			t.RemoveFile(a.File)
			t.Count(CountSubagents, 1)
		}
	}
	t.dropThinkingLeftAlone()
	if !keepsAnyEntry(t, t.S.Main) {
		return &chain.Error{Msg: "dropping these tool calls would leave the session without any entry", Hint: "the session holds nothing but the selected calls"}
	}
	for name, n := range byTool {
		t.CountOf(CountToolCalls, name, n)
	}
	return nil
}

// dropThinkingLeftAlone removes assistant API messages that hold nothing
// but thinking once their tool calls are gone: a thinking block that leads
// to nothing is no answer.
func (t *Txn) dropThinkingLeftAlone() {
	for _, f := range t.S.Files() {
		g := f.Graph()
		groups := map[string][]int{}
		var ids []string
		for i := range f.Entries {
			e := &f.Entries[i]
			if e.Type() == "assistant" && e.IsMessage() {
				id := e.MsgID()
				if id == "" {
					// no message.id: the client merges a run of assistant entries
					// into one message; the run's first entry names it
					j := i
					for p, n := g.Parent[j], 0; p >= 0 && n < len(f.Entries) && f.Entries[p].Type() == "assistant" && f.Entries[p].MsgID() == ""; p, n = g.Parent[p], n+1 {
						j = p
					}
					id = "#" + strconv.Itoa(j)
				}
				if _, ok := groups[id]; !ok {
					ids = append(ids, id)
				}
				groups[id] = append(groups[id], i)
			}
		}
		for _, id := range ids {
			g := groups[id]
			touched := slices.ContainsFunc(g, func(i int) bool { return t.Dropped(f, i) || t.Changed(f, i) })
			if _, alone := t.thinkingAlone(f, g); touched && alone {
				for _, i := range g {
					t.Drop(f, i)
				}
			}
		}
	}
}

// thinkingAlone reports whether the entries of one API message, as t
// leaves them, hold nothing but thinking (then the message is no answer,
// and the client does not send it), and which of them t keeps: the one
// rule drop-tool-calls and repair apply to a message that lost its tool
// calls.
func (t *Txn) thinkingAlone(f *chain.File, msg []int) (kept []int, alone bool) {
	alone = true
	for _, i := range msg {
		if t.Dropped(f, i) {
			continue
		}
		kept = append(kept, i)
		if t.Changed(f, i) {
			alone = alone && !stillHas(t, f, i)
			continue
		}
		for _, b := range f.Entries[i].Blocks() {
			alone = alone && b.Kind.IsThinking()
		}
	}
	return kept, alone
}

// stillHas reports whether edited entry i still holds a non-thinking block.
func stillHas(t *Txn, f *chain.File, i int) bool {
	raw, err := t.Raw(f, i)
	if err != nil {
		return true
	}
	has := false
	gjson.GetBytes(raw, "message.content").ForEach(func(_, b gjson.Result) bool {
		if !isThinking(b) {
			has = true
			return false
		}
		return true
	})
	return has
}

func containsFold(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(y, x) {
			return true
		}
	}
	return false
}

// entriesInTurns returns the entries of the active branch's history that
// belong to turns in r.
func entriesInTurns(f *chain.File, r TurnRange) map[int]bool {
	ts := f.ActiveTurns()
	out := map[int]bool{}
	for _, tn := range ts.List {
		if tn.Index < r.From || tn.Index > r.To {
			continue
		}
		for _, i := range ts.History[tn.First : tn.Last+1] {
			out[i] = true
		}
	}
	return out
}

// keepsAnyEntry reports whether an entry of f survives the pending edits
// (or f never had one).
func keepsAnyEntry(t *Txn, f *chain.File) bool {
	had := false
	for i := range f.Entries {
		if f.Entries[i].Kind == chain.KindEntry {
			had = true
			if !t.Dropped(f, i) {
				return true
			}
		}
	}
	return !had
}

// ErrNoSelector: DropToolCalls was given nothing that selects a call.
var ErrNoSelector = errors.New("no tool call selector")
