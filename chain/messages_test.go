package chain

import (
	"slices"
	"testing"
)

// TestMessagesFromIsTheTailOfMessages: for every session of testdata and
// the corpus and every start s on its active branch, MessagesFrom(p, s)
// is the tail of Messages(p) that begins with the message holding entry
// s (or the first message after it), entry for entry.
func TestMessagesFromIsTheTailOfMessages(t *testing.T) {
	n := 0
	for _, path := range corpusFiles(t) {
		f, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := f.Graph().ActivePath()
		all := f.Messages(p)
		// the message holding each entry of the path (-1: none)
		holder := make(map[int]int)
		for k, m := range all.All() {
			for _, i := range m.Entries {
				holder[i] = k
			}
		}
		// every start near the end (what unfinishedLoop asks), and some
		// hundred across the branch
		step := max(1, len(p.Entries)/100)
		for s := 0; s <= len(p.Entries); s++ {
			if s%step != 0 && s < len(p.Entries)-64 {
				continue
			}
			want := all.Len()
			for j := s; j < len(p.Entries); j++ {
				if k, ok := holder[p.Entries[j]]; ok {
					want = k
					break
				}
			}
			got := f.MessagesFrom(p, s)
			same := got.Len() == all.Len()-want
			for k := 0; same && k < got.Len(); k++ {
				a, b := got.At(k), all.At(want+k)
				same = a.Role == b.Role && slices.Equal(a.Entries, b.Entries)
			}
			if !same {
				t.Fatalf("%s: MessagesFrom(p, %d) = %d messages, want the last %d of Messages(p)", path, s, got.Len(), all.Len()-want)
			}
			n++
		}
		f.Close()
	}
	if n == 0 {
		t.Fatal("no session was read")
	}
	t.Logf("%d starts checked", n)
}
