package chain

import (
	"encoding/binary"
	"math/bits"
)

// idTable maps a binary uuid to the last entry that holds it. It is a
// hash table of entry indices only (open addressing, linear probing): the
// key of a slot is the uuid of the entry it names, read from the index,
// so a million uuids cost 4 to 8 MB instead of the 30 to 50 MB of a map
// from ID to index.
type idTable struct {
	entries []Entry
	slots   []int32 // entry index + 1; 0: empty
	mask    uint64
}

// newIDTable makes a table for the canonical uuids of entries (kept at
// most three quarters full).
func newIDTable(entries []Entry) idTable {
	n := 0
	for i := range entries {
		if entries[i].flags&flagUUID != 0 {
			n++
		}
	}
	size := uint64(8)
	for size*3 < uint64(n)*4 {
		size *= 2
	}
	return idTable{entries: entries, slots: make([]int32, size), mask: size - 1}
}

// hashID mixes the two halves of a uuid (uuids of other versions than 4
// and hand-made ones are not random in every byte).
func hashID(id ID) uint64 {
	a := binary.LittleEndian.Uint64(id[:8])
	b := binary.LittleEndian.Uint64(id[8:])
	hi, lo := bits.Mul64(a^0x9e3779b97f4a7c15, b^0xbf58476d1ce4e5b9)
	return hi ^ lo
}

// put records entry i (which holds a canonical uuid) as the holder of its
// uuid, in place of an earlier holder.
func (t *idTable) put(i int32) {
	id := t.entries[i].uuid
	for s := hashID(id) & t.mask; ; s = (s + 1) & t.mask {
		j := t.slots[s]
		if j == 0 || t.entries[j-1].uuid == id {
			t.slots[s] = i + 1
			return
		}
	}
}

// get returns the entry holding id.
func (t *idTable) get(id ID) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	for s := hashID(id) & t.mask; ; s = (s + 1) & t.mask {
		j := t.slots[s]
		if j == 0 {
			return 0, false
		}
		if t.entries[j-1].uuid == id {
			return j - 1, true
		}
	}
}
