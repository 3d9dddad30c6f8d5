package chain

// Message is an API message as the client sends it on resume: the
// consecutive user or assistant entries of a path, merged.
type Message struct {
	Role    string
	Entries []int
}

// Messages groups the message entries of a path as the client merges them
// into API messages: consecutive user entries, and consecutive assistant
// entries of one API response (one message.id; the client sends two
// responses in a row as two assistant messages, which the API rejects).
// Other entries (attachments, system records) are not messages of the
// conversation and are skipped.
func (f *File) Messages(p Path) []Message {
	// one array holds the entries of every message (each message's slice
	// is capped at its end), and out is made once: on a million-entry
	// branch, growing slices was most of the memory this took
	all := make([]int, 0, len(p.Entries))
	n := 0
	for _, i := range p.Entries {
		if f.Entries[i].IsMessage() {
			n++
		}
	}
	out := make([]Message, 0, n)
	start := 0
	for _, i := range p.Entries {
		e := &f.Entries[i]
		if !e.IsMessage() {
			continue
		}
		role := e.Role()
		if role == "" {
			role = e.Type()
		}
		all = append(all, i)
		if n := len(out); n > 0 && out[n-1].Role == role && !(role == "assistant" && differentResponse(f, out[n-1], e)) {
			out[n-1].Entries = all[start:len(all):len(all)]
			continue
		}
		start = len(all) - 1
		out = append(out, Message{Role: role, Entries: all[start:len(all):len(all)]})
	}
	return out
}

// differentResponse reports whether assistant entry e belongs to another
// API response than message m.
func differentResponse(f *File, m Message, e *Entry) bool {
	last := &f.Entries[m.Entries[len(m.Entries)-1]]
	return last.MsgID() != "" && e.MsgID() != "" && last.MsgID() != e.MsgID()
}
