package chain

import (
	"math/rand/v2"
	"testing"
)

// The uuid table finds what a map from uuid to the last entry holding it
// finds: repeated uuids (the last holder wins), uuids that differ in one
// byte, entries without a uuid, and uuids that are not there.
func TestIDTableIsMapOfLastHolder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var entries []Entry
	var ids []ID
	for i := 0; i < 5000; i++ {
		var e Entry
		switch k := r.IntN(10); {
		case k == 0 && len(ids) > 0: // a copy of an earlier uuid
			e.uuid, e.flags = ids[r.IntN(len(ids))], flagUUID
		case k == 1: // no uuid
		case k == 2: // a sequential uuid: not random in every byte
			e.uuid[15], e.uuid[14], e.flags = byte(i), byte(i>>8), flagUUID
		default:
			for b := range e.uuid {
				e.uuid[b] = byte(r.UintN(256))
			}
			e.flags = flagUUID
		}
		if e.flags&flagUUID != 0 {
			ids = append(ids, e.uuid)
		}
		entries = append(entries, e)
	}
	want := map[ID]int32{}
	tab := newIDTable(entries)
	for i := range entries {
		if entries[i].flags&flagUUID != 0 {
			want[entries[i].uuid] = int32(i)
			tab.put(int32(i))
		}
	}
	for id, i := range want {
		if got, ok := tab.get(id); !ok || got != i {
			t.Fatalf("get(%v) = %d, %v; want %d", id, got, ok, i)
		}
		id[3] ^= 1
		if _, in := want[id]; !in {
			if got, ok := tab.get(id); ok {
				t.Fatalf("get(%v) = %d for a uuid no entry holds", id, got)
			}
		}
	}
	var empty idTable
	if _, ok := empty.get(ID{}); ok {
		t.Fatal("an empty table found an entry")
	}
}
