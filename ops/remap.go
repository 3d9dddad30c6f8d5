package ops

import (
	"io"
	"sync"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/google/uuid"
)

// Remapper gives every identifier of a session a fresh UUID, the same one
// wherever the identifier appears: entry uuids and every reference to them,
// the session id (wherever a sessionId names this session), and identifiers
// that future client versions add. Message content is left as it is.
type Remapper struct {
	NewID  string
	mu     sync.Mutex
	ids    map[string]string
	oldIDs map[string]bool // session ids to map to NewID
}

// NewRemapper prepares a remapping of s to the session id newID.
func NewRemapper(s *chain.Session, newID string) *Remapper {
	r := &Remapper{NewID: newID, ids: map[string]string{}, oldIDs: map[string]bool{s.ID: true}}
	for _, f := range s.Files() {
		for i := range f.Entries {
			if id := f.Entries[i].SessionID; id != "" {
				r.oldIDs[id] = true
			}
		}
	}
	return r
}

// Map returns the new identifier for old.
func (r *Remapper) Map(old string) string {
	if old == nilUUID {
		return old
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.oldIDs[old] {
		return r.NewID
	}
	n, ok := r.ids[old]
	if !ok {
		n = uuid.NewString()
		r.ids[old] = n
	}
	return n
}

// Line rewrites the identifiers of one line in place (UUIDs keep their
// length, so nothing else moves) and returns it.
func (r *Remapper) Line(raw []byte) []byte {
	out := raw
	copied := false
	uuidTokens(raw, func(off int) {
		old := string(raw[off : off+36])
		n := r.Map(old)
		if n == old {
			return
		}
		if !copied {
			out = append([]byte(nil), raw...)
			copied = true
		}
		copy(out[off:off+36], n)
	})
	return out
}

// JSON rewrites every identifier in a small JSON document (a subagent's
// meta.json) that is not inside content.
func (r *Remapper) JSON(doc []byte) []byte { return r.Line(doc) }

func (t *Txn) remap() error {
	t.remapper = NewRemapper(t.S, t.NewID)
	return nil
}

// Render returns the function that writes file f of the result.
func (t *Txn) Render(f *chain.File) func(w io.Writer) error {
	return func(w io.Writer) error {
		var tr chain.Transform
		if t.remapper != nil {
			tr = t.remapper.Line
		}
		_, err := f.Write(w, t.edits[f], tr)
		return err
	}
}

// Remapper returns the identifier remapping of a new session, or nil.
func (t *Txn) Remapper() *Remapper { return t.remapper }
