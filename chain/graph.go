package chain

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
)

// Graph is the parentUuid graph of one file.
type Graph struct {
	f *File
	// byID and byStr map a uuid to the entry that holds it (byStr: uuids
	// not in canonical form). When a uuid repeats, the last entry wins, as
	// in the client's Map.
	byID  idTable
	byStr map[string]int32
	// Dups lists entries whose uuid an earlier entry already holds.
	Dups []int
	// Parent is the index of each entry's parent, or -1 (root, dangling
	// parent, metadata entry).
	Parent []int
	// children of entry i, in file order, are childList[childStart[i]:childStart[i+1]]
	// (one array for all: a million entries do not make a million slices)
	childStart []int32
	childList  []int32
	// Roots are chain entries with parentUuid null.
	Roots []int
	// Dangling are chain entries whose parentUuid resolves to no entry.
	Dangling []int
	// Leaves are non-sidechain chain entries that no entry names as parent.
	Leaves []int
	// Attached maps a chain entry to the metadata entries (no uuid) that
	// reference it by leafUuid or messageId.
	Attached map[int][]int

	branches   []int // memo of Branches
	branchDone bool
	active     int // memo of ActiveLeaf
	activeDone bool
	activePath *Path    // ActivePath, made once
	parts      []int32  // messageParts: by message id, then in file order; made once
	partAt     []int32  // position in parts of each entry, -1 for none (made with parts)
	partStart  []uint64 // bit k: parts[k] is the first of its message's parts
	partSeed   maphash.Seed
	partsDone  bool
}

// Graph returns the file's chain graph, building it on first use.
func (f *File) Graph() *Graph {
	if f.graph == nil {
		f.graph = buildGraph(f)
	}
	return f.graph
}

func buildGraph(f *File) *Graph {
	n := len(f.Entries)
	g := &Graph{f: f, byID: newIDTable(f.Entries), byStr: map[string]int32{}, Parent: make([]int, n), Attached: map[int][]int{}}
	for i := range f.Entries {
		e := &f.Entries[i]
		g.Parent[i] = -1
		k, ok := e.uuidKey()
		if !ok || e.Kind != KindEntry {
			continue
		}
		if _, dup := g.lookupKey(k); dup {
			g.Dups = append(g.Dups, i)
		}
		if k.str != "" {
			g.byStr[k.str] = int32(i)
		} else {
			g.byID.put(int32(i))
		}
	}
	hasChild := make([]bool, n)
	for i := range f.Entries {
		e := &f.Entries[i]
		if !e.IsChain() {
			if e.Kind == KindEntry {
				for _, ref := range []string{e.LeafUUID(), e.MessageID()} {
					if j, ok := g.Lookup(ref); ok && ref != "" {
						g.Attached[j] = append(g.Attached[j], i)
					}
				}
			}
			continue
		}
		if !e.HasParent() {
			g.Roots = append(g.Roots, i)
			continue
		}
		pk, _ := e.parentKey()
		p, ok := g.lookupKey(pk)
		if !ok {
			g.Dangling = append(g.Dangling, i)
			continue
		}
		g.Parent[i] = p
		hasChild[p] = true
	}
	g.childStart = make([]int32, n+1)
	for _, p := range g.Parent {
		if p >= 0 {
			g.childStart[p+1]++
		}
	}
	for i := 0; i < n; i++ {
		g.childStart[i+1] += g.childStart[i]
	}
	g.childList = make([]int32, g.childStart[n])
	fill := make([]int32, n)
	for i, p := range g.Parent {
		if p >= 0 {
			g.childList[g.childStart[p]+fill[p]] = int32(i)
			fill[p]++
		}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if !e.IsChain() || e.IsSidechain() != f.Sidechain || hasChild[i] {
			continue
		}
		if k, _ := e.uuidKey(); g.ownUUID(e) || g.holder(k) == i {
			g.Leaves = append(g.Leaves, i)
		}
	}
	return g
}

func (g *Graph) lookupKey(k key) (int, bool) {
	var i int32
	var ok bool
	if k.str != "" {
		i, ok = g.byStr[k.str]
	} else {
		i, ok = g.byID.get(k.id)
	}
	return int(i), ok
}

// Holder returns the entry the uuid of entry i resolves to (i itself, or
// the last copy of a uuid that repeats), or -1 when i has no uuid.
func (g *Graph) Holder(i int) int {
	e := &g.f.Entries[i]
	k, ok := e.uuidKey()
	if !ok {
		return -1
	}
	if g.ownUUID(e) {
		return i
	}
	return g.holder(k)
}

// ownUUID reports, without a look-up, that entry e (whose uuid is known
// to be valid) holds its uuid: when no uuid repeats (no Dups), every entry
// the graph put in its table resolves to itself. relink asks it of every
// entry a compression keeps and drops (two look-ups an entry were a third
// of its serial time on a session of 180,000 entries).
func (g *Graph) ownUUID(e *Entry) bool { return len(g.Dups) == 0 && e.Kind == KindEntry }

// holder is the entry the uuid of k resolves to, or -1.
func (g *Graph) holder(k key) int {
	if i, ok := g.lookupKey(k); ok {
		return i
	}
	return -1
}

// Copies returns the groups of chain entries that share a uuid (two or
// more each), each group in file order, the groups in the order of their
// first entries. Only the uuids that repeat are gathered.
func (g *Graph) Copies() [][]int {
	if len(g.Dups) == 0 {
		return nil
	}
	groups := map[int][]int{} // holder of the uuid -> its entries
	for _, i := range g.Dups {
		k, _ := g.f.Entries[i].uuidKey()
		groups[g.holder(k)] = nil
	}
	var order []int
	for i := range g.f.Entries {
		e := &g.f.Entries[i]
		if !e.IsChain() {
			continue
		}
		k, _ := e.uuidKey()
		h := g.holder(k)
		grp, ok := groups[h]
		if !ok {
			continue
		}
		if grp == nil {
			order = append(order, h)
		}
		groups[h] = append(grp, i)
	}
	out := make([][]int, len(order))
	for k, h := range order {
		out[k] = groups[h]
	}
	return out
}

// Holds reports whether uuid resolves to entry i (false for an earlier
// entry with the same uuid: the last one wins).
func (g *Graph) Holds(i int) bool {
	e := &g.f.Entries[i]
	k, ok := e.uuidKey()
	return ok && (g.ownUUID(e) || g.holder(k) == i)
}

// ForgetGraph lets the file's graph go (to free its memory); the next
// Graph builds it again.
func (f *File) ForgetGraph() { f.graph, f.active = nil, nil }

// ChildrenOf returns the entries whose parent is entry i, in file order.
func (g *Graph) ChildrenOf(i int) []int32 { return g.childList[g.childStart[i]:g.childStart[i+1]] }

// Lookup returns the entry index holding uuid.
func (g *Graph) Lookup(uuid string) (int, bool) {
	if uuid == "" {
		return 0, false
	}
	return g.lookupKey(keyOf(uuid))
}

// Ancestors walks from entry i up the parentUuid links and returns the
// path root-first. cycle reports a parent loop (the walk stops there).
func (g *Graph) Ancestors(i int) (path []int, cycle bool) { return ancestors[int](g, i) }

// ancestors is Ancestors in entry numbers of type T (int32 for what is
// only looked at: half the memory on a branch of a million entries).
func ancestors[T int | int32](g *Graph, i int) (path []T, cycle bool) {
	// count the steps first, then fill the path from its end: a
	// million-entry chain makes one slice, not twenty doublings
	n, cycle := g.walkUp(i, func(int) {})
	path = make([]T, n)
	k := n
	g.walkUp(i, func(j int) { k--; path[k] = T(j) })
	return path, cycle
}

// walkUp calls fn with i and its ancestors, nearest first, and stops at a
// root or before an entry comes round again (a parent cycle); it returns
// how many it saw and whether it met a cycle.
func (g *Graph) walkUp(i int, fn func(j int)) (n int, cycle bool) {
	var seen []bool // made only for long walks: most paths are short
	var short [64]int
	for j := i; j >= 0; j = g.Parent[j] {
		if n >= len(short) {
			if seen == nil {
				seen = make([]bool, len(g.Parent))
				for _, k := range short {
					seen[k] = true
				}
			}
			if seen[j] {
				return n, true
			}
			seen[j] = true
		} else {
			if slices.Contains(short[:n], j) {
				return n, true
			}
			short[n] = j
		}
		fn(j)
		n++
	}
	return n, false
}

// Cycles returns one entry of every parent cycle in the file.
func (g *Graph) Cycles() []int {
	const (
		white = 0
		grey  = 1
		black = 2
	)
	state := make([]uint8, len(g.Parent))
	var out []int
	var stack []int // the walk from i, one buffer for every i
	for i := range g.Parent {
		if state[i] != white {
			continue
		}
		stack = stack[:0]
		j := i
		for j >= 0 && state[j] == white {
			state[j] = grey
			stack = append(stack, j)
			j = g.Parent[j]
		}
		if j >= 0 && state[j] == grey {
			out = append(out, j)
		}
		for _, k := range stack {
			state[k] = black
		}
	}
	return out
}

// isParallelSibling reports whether leaf i is the tool_result of one of
// several parallel tool calls whose conversation continues on a sibling
// branch: the client sends it with the continuing branch, so it is not a
// branch of its own.
func (g *Graph) isParallelSibling(i int) bool {
	e := &g.f.Entries[i]
	if !e.IsToolResult() {
		return false
	}
	p := g.Parent[i]
	if p < 0 || g.f.Entries[p].Type() != "assistant" {
		return false
	}
	msg := g.f.Entries[p].MsgID()
	// The continuing branch hangs below another part of the same API
	// message: a later tool_use entry, or a result that has children.
	prev := i
	for q := p; q >= 0 && g.f.Entries[q].Type() == "assistant" && g.f.Entries[q].MsgID() == msg && msg != ""; q = g.Parent[q] {
		for _, c32 := range g.ChildrenOf(q) {
			c := int(c32)
			if c == prev {
				continue
			}
			ce := &g.f.Entries[c]
			if len(g.ChildrenOf(c)) > 0 || (ce.Type() == "assistant" && ce.MsgID() == msg) {
				return true
			}
		}
		prev = q
	}
	return false
}

// Branches returns the leaves that end a conversation branch, in file
// order: every leaf but the tool results of parallel calls that the client
// sends together with a sibling branch, and but progress-only dead ends
// (a dead end below an entry with nothing else below it ends a branch at
// that entry: a file that ends in progress entries).
func (g *Graph) Branches() []int {
	if g.branchDone {
		return g.branches
	}
	g.branches, g.branchDone = g.branchLeaves(), true
	return g.branches
}

func (g *Graph) branchLeaves() []int {
	// The last entry before a compaction is continued by the compact
	// boundary through logicalParentUuid: not a branch of its own.
	continued := map[int]bool{}
	for i := range g.f.Entries {
		if e := &g.f.Entries[i]; e.LogicalParentUUID() != "" || e.Subtype() == "compact_boundary" {
			if j := g.compactedBefore(i); j >= 0 {
				continued[j] = true
			}
		}
	}
	var out []int
	var ended map[int]bool // the entries a progress-only dead end ends
	for _, l := range g.Leaves {
		e := &g.f.Entries[l]
		if e.Type() == "progress" {
			// a progress-only dead end below an entry that has nothing
			// else below it (a client stopped while a hook or a tool ran):
			// the branch ends at that entry
			// (ended: each such entry looked at once, for the many
			// progress entries of one call)
			top := g.aboveProgress(l)
			if top < 0 || ended[top] {
				continue
			}
			if ended == nil {
				ended = map[int]bool{}
			}
			ended[top] = true
			if !isConversational(&g.f.Entries[top]) || g.isParallelSibling(top) || continued[top] || g.leadsPastProgress(top) {
				continue
			}
			l = top
		} else if !isConversational(e) || g.isParallelSibling(l) || continued[l] {
			continue
		}
		out = append(out, l)
	}
	return out
}

// aboveProgress is the nearest entry above progress entry i that is no
// progress entry, or -1.
func (g *Graph) aboveProgress(i int) int {
	for n := 0; i >= 0 && g.f.Entries[i].Type() == "progress" && n < len(g.Parent); n++ {
		i = g.Parent[i]
	}
	if i >= 0 && g.f.Entries[i].Type() == "progress" {
		return -1
	}
	return i
}

// leadsPastProgress reports whether an entry below i is no progress
// entry (i goes on in a conversation, not only in progress dead ends).
func (g *Graph) leadsPastProgress(i int) bool {
	stack := []int{i}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range g.ChildrenOf(j) {
			if g.f.Entries[c].Type() != "progress" {
				return true
			}
			stack = append(stack, int(c))
		}
	}
	return false
}

func isConversational(e *Entry) bool {
	switch e.Type() {
	case "user", "assistant", "system", "attachment":
		return true
	}
	return false
}

// ActiveLeaf returns the leaf of the branch the client resumes, or -1 for
// a file without one. Observed on the real clients: 2.1.x follows the
// leafUuid of the last last-prompt entry (continuing to the newest leaf
// below it when the entry has since got children); without one, the branch
// leaf that comes last in the file. 2.0.x takes the leaf with the newest
// timestamp, which in a file the client wrote is the same leaf.
func (g *Graph) ActiveLeaf() int {
	if !g.activeDone {
		g.active, g.activeDone = g.activeLeaf(), true
	}
	return g.active
}

func (g *Graph) activeLeaf() int {
	b := g.Branches()
	if len(b) == 0 {
		return -1
	}
	if lp := g.lastPromptLeaf(); lp >= 0 {
		if slices.Contains(b, lp) {
			return lp
		}
		for k := len(b) - 1; k >= 0; k-- {
			if g.isAncestor(lp, b[k]) {
				return b[k]
			}
		}
	}
	return b[len(b)-1]
}

// lastPromptLeaf returns the entry named by the leafUuid of the last
// last-prompt entry, or -1.
func (g *Graph) lastPromptLeaf() int {
	for i := len(g.f.Entries) - 1; i >= 0; i-- {
		e := &g.f.Entries[i]
		if e.Kind == KindEntry && e.Type() == "last-prompt" {
			if j, ok := g.Lookup(e.LeafUUID()); ok {
				return j
			}
			return -1
		}
	}
	return -1
}

// isAncestor reports whether a is on the parent chain of d.
func (g *Graph) isAncestor(a, d int) bool {
	steps := 0
	for j := d; j >= 0 && steps <= len(g.Parent); j = g.Parent[j] {
		if j == a {
			return true
		}
		steps++
	}
	return false
}

// Path is a conversation as the client rebuilds it: the entries from a root
// to a leaf, with the tool results of parallel calls put back after the
// assistant message that made the calls.
type Path struct {
	Entries []int // entry indices, oldest first
	Cycle   bool  // the walk met a parent loop and stopped
	// Dangling is true when the walk ended at an entry whose parentUuid
	// resolves nowhere: the client loses everything above it.
	Dangling bool
}

// PathTo returns the conversation ending at leaf, as the client sends it.
func (g *Graph) PathTo(leaf int) Path {
	if leaf < 0 {
		return Path{}
	}
	anc, cycle := g.Ancestors(leaf)
	p := Path{Cycle: cycle}
	if len(anc) > 0 {
		top := &g.f.Entries[anc[0]]
		p.Dangling = top.HasParent() && !cycle
	}
	p.Entries = g.withParallelResults(g.withPreserved(anc))
	return p
}

// withPreserved inserts, after the anchor of a compact boundary at the top
// of path, the pre-compaction segment the boundary preserves (2.1.x).
func (g *Graph) withPreserved(path []int) []int {
	if len(path) == 0 {
		return path
	}
	top := &g.f.Entries[path[0]]
	if top.PreservedTail() == "" || top.PreservedHead() == "" {
		return path
	}
	tail, ok1 := g.Lookup(top.PreservedTail())
	head, ok2 := g.Lookup(top.PreservedHead())
	if !ok1 || !ok2 {
		return path
	}
	var seg []int
	seen := map[int]bool{}
	for j := tail; j >= 0 && !seen[j]; j = g.Parent[j] {
		seen[j] = true
		seg = append(seg, j)
		if j == head {
			break
		}
	}
	if seg[len(seg)-1] != head {
		return path
	}
	slices.Reverse(seg)
	// an entry is sent once: one of the segment already on the path (a
	// damaged file's segment hanging below its boundary) stays where it is
	var dup map[int]bool
	for _, i := range path {
		if seen[i] { // seen: the segment's entries
			if dup == nil {
				dup = map[int]bool{}
			}
			dup[i] = true
		}
	}
	if dup != nil {
		seg = slices.DeleteFunc(seg, func(j int) bool { return dup[j] })
	}
	at := 0 // after the boundary when the anchor is not on the path
	for k, i := range path {
		if g.f.Entries[i].UUID() == top.PreservedAnchor() {
			at = k
			break
		}
	}
	out := make([]int, 0, len(path)+len(seg))
	out = append(out, path[:at+1]...)
	out = append(out, seg...)
	return append(out, path[at+1:]...)
}

// withParallelResults inserts, after each run of assistant entries of one
// API message, the tool_result entries that answer that run's tool calls
// but hang on a sibling branch.
func (g *Graph) withParallelResults(path []int) []int {
	onPath := make([]bool, len(g.f.Entries))
	for _, i := range path {
		onPath[i] = true
	}
	out := make([]int, 0, len(path))
	for k := 0; k < len(path); k++ {
		i := path[k]
		out = append(out, i)
		e := &g.f.Entries[i]
		if e.Type() != "assistant" {
			continue
		}
		// at the end of a run of one API message's entries? Entries that
		// are no messages (progress) do not end it: with streaming tool
		// execution (2.1.37-2.1.39) a call's progress entries come between
		// two tool_use entries of the message on the path, and the client
		// still sends one message, the results after its last part
		if n := g.nextMessage(path, k); n >= 0 {
			if ne := &g.f.Entries[path[n]]; ne.Type() == "assistant" && ne.MsgID() == e.MsgID() && e.MsgID() != "" {
				continue
			}
		}
		// the run's entries, with the parts of the same message that hang
		// on side branches: calls written after one whose result came last
		run := []int{}
		for r := k; r >= 0; r-- {
			a := &g.f.Entries[path[r]]
			if r < k && !a.IsMessage() {
				continue
			}
			if a.Type() != "assistant" || (r < k && (a.MsgID() != e.MsgID() || e.MsgID() == "")) {
				break
			}
			run = append(run, path[r])
		}
		side := g.sideParts(run, onPath)
		out = append(out, side...)
		run = append(run, side...)
		// collect siblings' results for every entry of this run
		var extra []int
		for _, i := range run {
			ids := g.f.Entries[i].ToolUseIDs()
			if len(ids) == 0 {
				continue
			}
			for _, c32 := range g.ChildrenOf(i) {
				c := int(c32)
				if onPath[c] {
					continue
				}
				if g.AnswersCallOf(c, i) {
					extra = append(extra, c)
				}
			}
		}
		slices.Sort(extra)
		for _, c := range extra {
			onPath[c] = true
		}
		out = append(out, extra...)
	}
	return out
}

// nextMessage returns the position in path of the first message entry
// after position k (the entries Messages groups), or -1.
func (g *Graph) nextMessage(path []int, k int) int {
	for n := k + 1; n < len(path); n++ {
		if g.f.Entries[path[n]].IsMessage() {
			return n
		}
	}
	return -1
}

// AnswersCallOf reports whether entry c is a tool result that answers a
// call of entry i: hanging below i off the conversation's path, it is sent
// with i's message (withParallelResults); below an entry whose calls it
// does not answer, it is not.
func (g *Graph) AnswersCallOf(c, i int) bool {
	ce := &g.f.Entries[c]
	return ce.IsToolResult() && anyIn(ce.ToolResultIDs(), g.f.Entries[i].ToolUseIDs())
}

// sideParts returns, in file order, the assistant entries of the same API
// message as the run's entries that are off the path: when parallel calls
// finish out of order, the conversation continues below an earlier call's
// result and the later calls sit on a side branch (FORMAT.md "Parallel
// calls finish in any order"); when the client runs the calls while the
// model still writes the next one (2.1.37-2.1.39), a call's progress
// entries come between two tool_use entries and the later call hangs below
// a progress entry. The newest client sends every entry of the file that
// carries the message's id with the message, wherever it hangs. They are
// marked on the path.
func (g *Graph) sideParts(run []int, onPath []bool) []int {
	if len(run) == 0 {
		return nil
	}
	msg := g.f.Entries[run[0]].MsgID()
	if msg == "" {
		return nil
	}
	var side []int
	for _, c := range g.messageParts(run[0], msg) {
		if c := int(c); !onPath[c] {
			onPath[c] = true
			side = append(side, c)
		}
	}
	return side
}

// messageParts returns the assistant entries of the file's own chain
// (main or sidechain, as the file is) that carry the API message id msg
// of entry i, in file order. They are found in one list of those entries
// grouped by message id, made once (makeParts): 4 bytes an entry, where a
// map of the ids to their entries took some 110 (29 MB on a chain of half
// a million entries, held as long as the graph). Each entry's position in
// the list (4 bytes more) and a bit marking where each message's parts
// start give them without a search: searching the list for every message
// of the path took a quarter of `info` on a chain of 200,000 entries.
func (g *Graph) messageParts(i int, msg string) []int32 {
	id := func(i int32) string { return g.f.Entries[i].MsgID() }
	if !g.partsDone {
		g.makeParts()
	}
	if at := g.partAt[i]; at >= 0 {
		start := func(k int) bool { return g.partStart[k/64]&(1<<(k%64)) != 0 }
		lo, hi := int(at), int(at)+1
		for !start(lo) {
			lo--
		}
		for hi < len(g.parts) && !start(hi) {
			hi++
		}
		return g.parts[lo:hi]
	}
	// (an entry of another chain: the list is searched, in its order)
	h := g.partHash(msg)
	key := func(k int) (uint32, string) { s := id(g.parts[k]); return g.partHash(s), s }
	lo := sort.Search(len(g.parts), func(k int) bool {
		kh, ks := key(k)
		return kh > h || kh == h && ks >= msg
	})
	hi := lo
	for hi < len(g.parts) && id(g.parts[hi]) == msg {
		hi++
	}
	return g.parts[lo:hi]
}

// partHash is the hash messageParts are sorted by (a collision only
// costs a comparison of the ids).
func (g *Graph) partHash(msg string) uint32 { return uint32(maphash.String(g.partSeed, msg)) }

// makeParts makes the list of messageParts: sorted by the hash of the
// message id, then the id, then file order (comparing the ids themselves
// took most of the sort on a chain of 200,000 entries), with the first of
// each message's parts marked.
func (g *Graph) makeParts() {
	g.partsDone = true
	g.partSeed = maphash.MakeSeed()
	type keyed struct { // 8 bytes a part while the list is made
		h uint32
		i int32
	}
	var ks []keyed
	for i := range g.f.Entries {
		e := &g.f.Entries[i]
		if e.Type() != "assistant" || !e.IsChain() || e.IsSidechain() != g.f.Sidechain || !g.Holds(i) {
			continue
		}
		if m := e.MsgID(); m != "" {
			ks = append(ks, keyed{g.partHash(m), int32(i)})
		}
	}
	id := func(i int32) string { return g.f.Entries[i].MsgID() }
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		if c := strings.Compare(id(a.i), id(b.i)); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	g.parts = make([]int32, len(ks))
	g.partStart = make([]uint64, (len(ks)+63)/64)
	g.partAt = make([]int32, len(g.f.Entries))
	for k := range g.partAt {
		g.partAt[k] = -1
	}
	for k, x := range ks {
		g.parts[k] = x.i
		g.partAt[x.i] = int32(k)
		if k == 0 || ks[k-1].h != x.h || id(ks[k-1].i) != id(x.i) {
			g.partStart[k/64] |= 1 << (k % 64)
		}
	}
}

func anyIn(xs, set []string) bool {
	for _, x := range xs {
		if slices.Contains(set, x) {
			return true
		}
	}
	return false
}

// ActivePath is the conversation the client resumes.
//
// It is made once (info and the operations it runs unwritten each ask for
// it); its Entries are shared and must not be changed.
func (g *Graph) ActivePath() Path {
	if g.activePath == nil {
		p := g.PathTo(g.ActiveLeaf())
		p.Entries = slices.Clip(p.Entries) // an append by a caller copies
		g.activePath = &p
	}
	return *g.activePath
}

// pathTo is PathTo, the active path made once: info, the turns and the
// check each walk it (three walks were a quarter of `info` on a chain of
// 200,000 entries). Its Entries are shared and must not be changed.
func (g *Graph) pathTo(leaf int) Path {
	if leaf >= 0 && leaf == g.ActiveLeaf() {
		return g.ActivePath()
	}
	return g.PathTo(leaf)
}

// Segment is a stretch of history between compactions.
type Segment struct {
	Entries   []int
	Compacted bool // a later compaction summarized this segment
}

// History returns the whole history that leads to leaf, bridging compact
// boundaries through logicalParentUuid: the oldest segment first. The last
// segment is what the client sends. The segments may share their Entries
// with the active path: they must not be changed.
func (g *Graph) History(leaf int) []Segment {
	var segs []Segment
	seen := map[int]bool{}
	cur := leaf
	for cur >= 0 && !seen[cur] {
		seen[cur] = true
		p := g.pathTo(cur)
		segs = append(segs, Segment{Entries: p.Entries, Compacted: len(segs) > 0})
		if len(p.Entries) == 0 || p.Cycle {
			break
		}
		next := g.compactedBefore(p.Entries[0])
		if next < 0 {
			break
		}
		cur = next
	}
	slices.Reverse(segs)
	return segs
}
