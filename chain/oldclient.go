package chain

// OldClientMiss is what Claude Code 2.0.x rebuilds short of the newest
// client from the branch that ends at a leaf. 2.0.x (2.0.50 measured)
// walks the parents up from the leaf, reads no progress entry, and sends
// the tool calls whose results it met on that walk; the newest client
// treats progress entries as links of the chain and gathers the parts and
// results of parallel calls from side branches (withParallelResults).
// A file the writing client and the newest resume whole is then cut or
// thinned by 2.0.x.
type OldClientMiss struct {
	// BelowProgress are the entries of the branch, leaf first, whose
	// parent is a progress entry (2.1.29 hooks; 2.1.37-2.1.39 streaming
	// tool execution, a call written below the progress of the one
	// before): 2.0.x stops its walk there and sends only what follows
	// the first of them; when that starts with an answer the API refuses
	// it ("first message must use the user role").
	BelowProgress []int
	// Above holds, for each of BelowProgress, the nearest entry above it
	// that is no progress entry: where 2.0.x would go on. (An entry with
	// nothing but progress entries above it is not in BelowProgress:
	// 2.0.x loses nothing there.)
	Above []int
	// SideParts are the entries, in the order the newest client sends
	// them, that the newest client sends with a message of the branch
	// but that hang on a side branch: results of parallel calls hanging
	// off their own call (2.1.x writes them so), calls written after the
	// one whose result came last. 2.0.x sends none of them, and drops a
	// call whose result it does not meet.
	SideParts []int
}

// Any reports whether 2.0.x misses anything.
func (m OldClientMiss) Any() bool { return len(m.BelowProgress) > 0 || len(m.SideParts) > 0 }

// OldClientMisses returns what 2.0.x misses of the branch ending at leaf
// (none for leaf < 0).
func (f *File) OldClientMisses(leaf int) OldClientMiss {
	var m OldClientMiss
	if leaf < 0 {
		return m
	}
	g := f.Graph()
	walk, _ := ancestors[int32](g, leaf) // half the memory of ints on a long branch
	for k := len(walk) - 1; k >= 0; k-- {
		j := int(walk[k])
		p := g.Parent[j]
		if p < 0 || f.Entries[j].Type() == "progress" || f.Entries[p].Type() != "progress" {
			continue
		}
		for n := 0; p >= 0 && f.Entries[p].Type() == "progress" && n < len(walk); n++ {
			p = g.Parent[p]
		}
		if p < 0 || f.Entries[p].Type() == "progress" {
			continue // nothing but progress above it: 2.0.x loses nothing
		}
		m.BelowProgress = append(m.BelowProgress, j)
		m.Above = append(m.Above, p)
	}
	// the entries withParallelResults puts on the path that are not
	// above the leaf; the preserved segment of a compaction is not among
	// them (2.0.x rebuilds a compaction its own way): the active path,
	// made once, serves where the branch has none
	var path []int
	if top := &f.Entries[walk[0]]; top.PreservedTail() == "" || top.PreservedHead() == "" {
		path = g.pathTo(leaf).Entries // withPreserved adds nothing
	} else {
		own := make([]int, len(walk))
		for k, j := range walk {
			own[k] = int(j)
		}
		path = g.withParallelResults(own)
	}
	if len(path) == len(walk) {
		return m // nothing put back: every entry sent is above the leaf
	}
	onWalk := make([]bool, len(f.Entries))
	for _, j := range walk {
		onWalk[j] = true
	}
	for _, j := range path {
		if !onWalk[j] && f.Entries[j].IsMessage() {
			m.SideParts = append(m.SideParts, j)
		}
	}
	return m
}
