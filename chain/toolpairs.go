package chain

// UnpairedTool is a tool_use or tool_result block of a conversation that
// is not paired as the API wants: each tool_use of an assistant message
// answered by exactly one tool_result in the user message right after it,
// each tool_result answering a tool_use of the assistant message right
// before it.
type UnpairedTool struct {
	Message int    // index of the block's message in msgs
	Entry   int    // entry of the file holding the block
	ID      string // the tool_use id (of the call, or the one the result names)
	// Result: a tool_result whose id no tool_use of the message before has;
	// else a tool_use with Results tool_results in the next message (0, or
	// more than one)
	Result  bool
	Results int
	// Open: a tool_use of the last message, which has no next message yet:
	// the session ends inside the tool call (the client handles it)
	Open bool
}

// UnpairedTools lists the unpaired tool calls and results of msgs (the
// messages of a path of f), in the order of msgs, then of entries, then of
// blocks: the one rule validate reports and repair fixes. A tool_use is
// listed once for each entry holding it.
func (f *File) UnpairedTools(msgs MessageList) []UnpairedTool {
	var out []UnpairedTool
	p := pairIDs{ids: make([]string, 0, smallPairs)}
	for k, m := range msgs.All() {
		switch m.Role {
		case "assistant":
			last := k == msgs.Len()-1
			p.reset()
			if !last && msgs.At(k+1).Role == "user" {
				p.collect(f, msgs.At(k+1), BlockToolResult)
			}
			for _, j := range m.Entries {
				for _, b := range f.Entries[j].Blocks() {
					if b.Kind != BlockToolUse {
						continue
					}
					if n := p.count(b.ID); last || n != 1 {
						out = append(out, UnpairedTool{Message: k, Entry: j, ID: b.ID, Results: n, Open: last})
					}
				}
			}
		case "user":
			collected := false
			for _, j := range m.Entries {
				for _, b := range f.Entries[j].Blocks() {
					if b.Kind != BlockToolResult {
						continue
					}
					if !collected {
						collected = true
						p.reset()
						if k > 0 && msgs.At(k-1).Role == "assistant" {
							p.collect(f, msgs.At(k-1), BlockToolUse)
						}
					}
					if p.count(b.ID) == 0 {
						out = append(out, UnpairedTool{Message: k, Entry: j, ID: b.ID, Result: true})
					}
				}
			}
		}
	}
	return out
}

// smallPairs is the number of ids of a message up to which pairIDs finds
// an id by a scan: a message of the agentic shape holds one call or one
// result, and a map made for each (two an exchange, in validate's check
// of the input and again of the output) was most of what compress-old-
// turns allocated there (TestUnpairedToolsAllocatesPerFlawNotPerMessage).
const smallPairs = 16

// pairIDs are the tool ids of the blocks of one kind of one message, which
// UnpairedTools counts the other message's ids in; the buffers are reused
// from message to message.
type pairIDs struct {
	ids  []string
	byID map[string]int // the counts, when there are more than smallPairs ids
}

func (p *pairIDs) reset() { p.ids = p.ids[:0] }

// collect adds the ids of the blocks of kind kind of message m.
func (p *pairIDs) collect(f *File, m Message, kind BlockKind) {
	for _, j := range m.Entries {
		for _, b := range f.Entries[j].Blocks() {
			if b.Kind == kind {
				p.ids = append(p.ids, b.ID)
			}
		}
	}
	if len(p.ids) > smallPairs {
		if p.byID == nil {
			p.byID = map[string]int{}
		}
		clear(p.byID)
		for _, id := range p.ids {
			p.byID[id]++
		}
	}
}

// count is the number of times id was collected.
func (p *pairIDs) count(id string) int {
	if len(p.ids) > smallPairs {
		return p.byID[id]
	}
	n := 0
	for _, x := range p.ids {
		if x == id {
			n++
		}
	}
	return n
}

// BesideCall is a tool result on the branch from the root to a leaf whose
// call is not above it there (File.ResultsBesideCalls).
type BesideCall struct {
	Entry int      // the entry holding the results
	IDs   []string // the tool_use ids whose call is not above it
}

// ResultsBesideCalls lists, root first, the entries of tool results on the
// branch from the root to leaf (its parents, as 2.0.x walks them up from
// the leaf) whose call is not above them: the one rule validate reports
// (result-beside-call) and repair fixes. The newest client sends such a
// call with its message when a part of the message is above (it finds the
// parts by the message id); 2.0.x sends the result without its call.
func (f *File) ResultsBesideCalls(leaf int) []BesideCall {
	anc, _ := ancestors[int32](f.Graph(), leaf)
	var out []BesideCall
	// the calls of the branch, in a map made once at its size; the ids
	// are read from the blocks where they lie (a slice of each entry's
	// ids was two allocations an entry, on a session of many tool calls
	// most of what this check allocated)
	n := 0
	for _, j := range anc {
		for _, b := range f.Entries[j].Blocks() {
			if b.Kind == BlockToolUse {
				n++
			}
		}
	}
	calls := make(map[string]bool, n)
	for _, j32 := range anc {
		j := int(j32)
		e := &f.Entries[j]
		for _, b := range e.Blocks() {
			if b.Kind == BlockToolUse {
				calls[b.ID] = true
			}
		}
		if !e.IsToolResult() {
			continue
		}
		var ids []string
		for _, b := range e.Blocks() {
			if b.Kind == BlockToolResult && !calls[b.ID] {
				ids = append(ids, b.ID)
			}
		}
		if len(ids) > 0 {
			out = append(out, BesideCall{Entry: j, IDs: ids})
		}
	}
	return out
}
