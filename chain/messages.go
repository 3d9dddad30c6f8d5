package chain

import "iter"

// Message is an API message as the client sends it on resume: the
// consecutive user or assistant entries of a path, merged.
type Message struct {
	Role    string
	Entries []int
}

// MessageList is the API messages of a path (File.Messages), held in a
// few bytes a message: the entries of every message in one array, where
// each starts, and its role as an index into the list's few roles. A
// []Message took 40 bytes a message besides its entries: on the chain of
// 500,000 small entries (a message each) that was 20 MB made at once, what
// put repair, validate and info over half the file.
type MessageList struct {
	all   []int    // the entries of every message, in order
	start []int32  // message k is all[start[k]:start[k+1]]
	role  []uint16 // message k's role is roles[role[k]]
	roles []string
}

// Len is the number of messages.
func (ms MessageList) Len() int { return len(ms.role) }

// At returns message k; its Entries share the list's array and are not to
// be changed.
func (ms MessageList) At(k int) Message {
	lo, hi := ms.start[k], ms.start[k+1]
	return Message{Role: ms.roles[ms.role[k]], Entries: ms.all[lo:hi:hi]}
}

// All yields each message with its index, in order.
func (ms MessageList) All() iter.Seq2[int, Message] {
	return func(yield func(int, Message) bool) {
		for k := range ms.role {
			if !yield(k, ms.At(k)) {
				return
			}
		}
	}
}

// Messages groups the message entries of a path as the client merges them
// into API messages: consecutive user entries, and consecutive assistant
// entries of one API response (one message.id; the client sends two
// responses in a row as two assistant messages, which the API rejects).
// Other entries (attachments, system records) are not messages of the
// conversation and are skipped.
func (f *File) Messages(p Path) MessageList {
	// every array is made once, of its size: on a million-entry branch,
	// growing slices was most of the memory this took
	n := 0
	for _, i := range p.Entries {
		if f.Entries[i].IsMessage() {
			n++
		}
	}
	ms := MessageList{all: make([]int, 0, n)}
	msgs := 0
	roleOf := func(e *Entry) string {
		if r := e.Role(); r != "" {
			return r
		}
		return e.Type()
	}
	// a first pass counts the messages, the second fills them
	for pass := 0; pass < 2; pass++ {
		last, lastRole := -1, ""
		k := 0
		for _, i := range p.Entries {
			e := &f.Entries[i]
			if !e.IsMessage() {
				continue
			}
			role := roleOf(e)
			same := last >= 0 && lastRole == role && !(role == "assistant" && differentResponse(f, last, e))
			last, lastRole = i, role
			if pass == 1 {
				if !same {
					ms.start = append(ms.start, int32(len(ms.all)))
					ms.role = append(ms.role, ms.roleIndex(role))
				}
				ms.all = append(ms.all, i)
			}
			if !same {
				k++
			}
		}
		if pass == 0 {
			msgs = k
			ms.start = make([]int32, 0, msgs+1)
			ms.role = make([]uint16, 0, msgs)
		}
	}
	ms.start = append(ms.start, int32(len(ms.all)))
	return ms
}

// roleIndex returns the index of role in ms.roles, adding it if new.
func (ms *MessageList) roleIndex(role string) uint16 {
	for k, r := range ms.roles {
		if r == role {
			return uint16(k)
		}
	}
	ms.roles = append(ms.roles, role)
	return uint16(len(ms.roles) - 1)
}

// differentResponse reports whether assistant entry e belongs to another
// API response than message m.
// (last is the message's last entry)
func differentResponse(f *File, lastEntry int, e *Entry) bool {
	last := &f.Entries[lastEntry]
	return last.MsgID() != "" && e.MsgID() != "" && last.MsgID() != e.MsgID()
}

// MessagesFrom returns the messages of p from the one that holds its
// entry s (or the first message entry after s) to the end: the tail of
// Messages(p), the same values, without grouping the whole path. It is
// for what looks at the last messages only (a branch of a million
// entries made 24 MB of messages for the few at its end).
func (f *File) MessagesFrom(p Path, s int) MessageList {
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
