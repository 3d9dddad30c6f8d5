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

// MessagesFrom returns the messages of p from the one that holds its
// entry s (or the first message entry after s) to the end: the tail of
// Messages(p), the same values, without grouping the whole path. It is
// for what looks at the last messages only (a branch of a million
// entries made 24 MB of messages for the few at its end).
func (f *File) MessagesFrom(p Path, s int) []Message {
	s = max(0, min(s, len(p.Entries)))
	role := func(e *Entry) string {
		if r := e.Role(); r != "" {
			return r
		}
		return e.Type()
	}
	// the first message entry at or after s
	for s < len(p.Entries) && !f.Entries[p.Entries[s]].IsMessage() {
		s++
	}
	// back to the first entry of its message: while the message entry
	// before it is one Messages merges it with
	for s < len(p.Entries) {
		q := s - 1
		for q >= 0 && !f.Entries[p.Entries[q]].IsMessage() {
			q--
		}
		if q < 0 {
			break
		}
		a, b := &f.Entries[p.Entries[q]], &f.Entries[p.Entries[s]]
		r := role(a)
		if r != role(b) || (r == "assistant" && a.MsgID() != "" && b.MsgID() != "" && a.MsgID() != b.MsgID()) {
			break
		}
		s = q
	}
	return f.Messages(Path{Entries: p.Entries[s:]})
}
