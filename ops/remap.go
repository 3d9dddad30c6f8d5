package ops

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"io"
	"sync"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/google/uuid"
)

// Remapper gives every identifier of a session a fresh UUID, the same one
// wherever the identifier appears: entry uuids and every reference to them,
// the session id (wherever a sessionId names this session), and identifiers
// that future client versions add. Message content is left as it is.
//
// A uuid in canonical form gets the image of its 16 bytes under AES with
// a random key of this Remapper (with the version 4 bits set): the same
// id always gets the same new one, different ids different ones (as with
// random uuids, the 6 fixed bits leave a chance of a clash of about
// n²/2¹²³), and no table of a million ids is kept.
type Remapper struct {
	NewID  string
	perm   cipher.Block
	mu     sync.Mutex            // guards other
	other  map[[36]byte][36]byte // uuids written with capitals: a fresh one each
	oldIDs map[[36]byte]bool     // session ids to map to NewID (read-only once made)
	// the session ids of oldIDs in canonical form, parsed: a uuid of a
	// line is parsed anyway, and its 16 bytes compared with these few
	// instead of hashing its 36 (made by index)
	oldParsed []chain.ID
	newID     [36]byte
}

func key(s string) (k [36]byte, ok bool) {
	if len(s) != 36 {
		return k, false
	}
	copy(k[:], s)
	return k, true
}

// NewRemapper prepares a remapping of s to the session id newID.
func NewRemapper(s *chain.Session, newID string) *Remapper {
	r := newRemapper(newID)
	r.addID(s.ID)
	for _, f := range s.Files() {
		for i := range f.Entries {
			r.addID(f.Entries[i].SessionID())
		}
	}
	r.index()
	return r
}

// NewRemapperFor prepares a remapping to the session id newID of a session
// whose entries carry the session ids ids (its file name's and each
// entry's; repeats and ids that are no uuid are fine).
func NewRemapperFor(newID string, ids ...string) *Remapper {
	r := newRemapper(newID)
	for _, id := range ids {
		r.addID(id)
	}
	r.index()
	return r
}

// newRemapper makes a Remapper with a random permutation and no session
// ids yet (addID them, then index).
func newRemapper(newID string) *Remapper {
	var k [16]byte
	if _, err := rand.Read(k[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	perm, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err)
	}
	r := &Remapper{NewID: newID, perm: perm, other: map[[36]byte][36]byte{}, oldIDs: map[[36]byte]bool{}}
	r.newID, _ = key(newID)
	return r
}

// addID adds a session id to map to NewID (one that is no 36-byte string
// names nothing a line can hold).
func (r *Remapper) addID(id string) {
	if k, ok := key(id); ok {
		r.oldIDs[k] = true
	}
}

// index makes oldParsed from oldIDs: when there are more than a few
// session ids, it stays empty and mapKey looks every uuid up in oldIDs.
func (r *Remapper) index() {
	r.oldParsed = nil
	if len(r.oldIDs) > maxParsedIDs {
		return
	}
	for k := range r.oldIDs {
		if id, ok := chain.ParseID(unsafe.String(&k[0], len(k))); ok {
			r.oldParsed = append(r.oldParsed, id)
		}
	}
}

// maxParsedIDs: up to this many session ids, a uuid is compared with each
// of them (a session has one, a continued one a few).
const maxParsedIDs = 8

// mapKey returns the new identifier for the 36-byte old one. A uuid in
// canonical form (every one the client writes) is parsed once: the nil
// uuid stays, a session id becomes NewID, any other its image under the
// permutation. Others (capitals) go through oldIDs and get a fresh one each.
func (r *Remapper) mapKey(old [36]byte) [36]byte {
	if id, ok := chain.ParseID(unsafe.String(&old[0], len(old))); ok {
		var ciph cipherScratch
		return r.mapID(id, &old, &ciph)
	}
	return r.mapOther(old)
}

// mapID is mapKey of the canonical uuid *old, parsed (id).
func (r *Remapper) mapID(id chain.ID, old *[36]byte, ciph *cipherScratch) [36]byte {
	if id == (chain.ID{}) {
		return *old // the nil uuid
	}
	if len(r.oldIDs) > maxParsedIDs {
		if r.oldIDs[*old] {
			return r.newID
		}
	} else {
		for _, s := range r.oldParsed {
			if s == id {
				return r.newID
			}
		}
	}
	ciph.in = id
	r.perm.Encrypt(ciph.out[:], ciph.in[:])
	n := ciph.out
	n[6] = n[6]&0x0f | 0x40
	n[8] = n[8]&0x3f | 0x80
	var out [36]byte
	n.Put(out[:])
	return out
}

// cipherScratch is where mapID enciphers: the permutation is an
// interface, and the slices passed to it escape, so an id's bytes on the
// stack would move to the heap for each call (two allocations an id, 4 %
// of a plain clone's samples): a pass keeps one of these for all its ids.
type cipherScratch struct {
	in, out chain.ID
}

// mapOther is mapKey of an identifier that is no canonical uuid.
func (r *Remapper) mapOther(old [36]byte) [36]byte {
	if r.oldIDs[old] {
		return r.newID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.other[old]
	if !ok {
		copy(n[:], uuid.NewString())
		r.other[old] = n
	}
	return n
}

// Map returns the new identifier for old.
func (r *Remapper) Map(old string) string {
	k, ok := key(old)
	if !ok {
		return old
	}
	n := r.mapKey(k)
	return string(n[:])
}

// Line rewrites the identifiers of one line in place (UUIDs keep their
// length, so nothing else moves) and returns it.
func (r *Remapper) Line(raw []byte) []byte {
	uuidTokens(raw, func(off int) {
		k := (*[36]byte)(raw[off : off+36])
		*k = r.mapKey(*k)
	})
	return raw
}

// JSON rewrites every identifier in a small JSON document (a subagent's
// meta.json) that is not inside content.
func (r *Remapper) JSON(doc []byte) []byte { return r.Line(append([]byte(nil), doc...)) }

func (t *Txn) remap() error {
	t.remapper = NewRemapper(t.S, t.NewID)
	return nil
}

// Render returns the function that writes file f of the result.
func (t *Txn) Render(f *chain.File) func(w io.Writer) error {
	return func(w io.Writer) error {
		var tr chain.TransformAt
		if rn := t.remapper; rn != nil {
			tr = func(_ int, raw []byte) []byte { return rn.Line(raw) }
		}
		if m := t.mapped[f]; m != nil {
			if rn := t.remapper; rn != nil {
				tr = func(i int, raw []byte) []byte { return rn.Line(m.fn(i, raw)) }
			} else {
				tr = m.fn
			}
		}
		fns := t.late[f]
		if len(fns) == 0 {
			_, err := f.WriteWithAt(w, t.edits[f], tr, nil)
			return err
		}
		lp := startLate(f, t.edits[f], func(i int, raw []byte) ([]byte, error) { return fns[i](i, raw) })
		defer lp.stop()
		_, err := f.WriteWithAt(w, t.edits[f], tr, lp.next)
		return err
	}
}

// KeepsIndex reports whether the result's file f indexes as f does but for
// the offsets and lengths of its lines: its only change is a MapLines
// rewrite of fields the index does not read (move's paths), which keeps
// each line JSON. It then has f's problems and no other, so it is not
// indexed again to be checked (on a chain of small entries that second
// index held as much memory as the first); TestMoveKeepsTheIndex holds
// the output to it.
func (t *Txn) KeepsIndex(f *chain.File) bool {
	m := t.mapped[f]
	return m != nil && m.keepsIndex && t.remapper == nil && t.edits[f].Len() == 0 && len(t.late[f]) == 0
}

// WritesAsIs reports whether the result's file f is f byte for byte: no
// line of it removed, added, made late or given other bytes, no identifier
// remapped, no line rewritten as it is written. It then has f's problems
// and no other (TestWritesAsIsIsTheInput).
func (t *Txn) WritesAsIs(f *chain.File) bool {
	return t.remapper == nil && t.mapped[f] == nil && !t.Touches(f)
}

// Remapper returns the identifier remapping of a new session, or nil.
func (t *Txn) Remapper() *Remapper { return t.remapper }

// OnlyRenames reports whether the result's file f is f with its
// identifiers renamed and nothing else: a new session (clone) whose
// operations changed no line of f. Its lines are f's with each uuid
// outside content replaced by its image under one permutation, the
// session ids by the new one: every link resolves, or fails to, as in f,
// and every line is JSON exactly when f's is.
func (t *Txn) OnlyRenames(f *chain.File) bool {
	return t.remapper != nil && t.edits[f].Len() == 0 && len(t.late[f]) == 0 && t.mapped[f] == nil
}
