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
func (f *File) UnpairedTools(msgs []Message) []UnpairedTool {
	var out []UnpairedTool
	for k, m := range msgs {
		switch m.Role {
		case "assistant":
			last := k == len(msgs)-1
			var got map[string]int
			if !last && msgs[k+1].Role == "user" {
				for _, j := range msgs[k+1].Entries {
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
						if k > 0 && msgs[k-1].Role == "assistant" {
							for _, a := range msgs[k-1].Entries {
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
