package chain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Holder and Holds answer without a look-up when no uuid repeats
// (Graph.ownUUID): on every session of testdata, as read and with one of
// its uuids repeated at the end (so that the fast path is off), they give
// what the table of the graph gives, and the leaves are the same.
func TestHolderIsTheLookUp(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no sessions in testdata")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		// the first line with a uuid, again at the end: a repeated uuid
		again := ""
		for _, l := range lines {
			if strings.Contains(l, `"uuid":"`) && strings.Contains(l, `"parentUuid"`) {
				again = l
				break
			}
		}
		for _, v := range []struct {
			name string
			body string
			dups bool
		}{{"as read", string(b), false}, {"a uuid repeated", strings.Join(append(lines, again), "\n") + "\n", true}} {
			if v.dups && again == "" {
				continue
			}
			dir := t.TempDir()
			fp := filepath.Join(dir, "s.jsonl")
			if err := os.WriteFile(fp, []byte(v.body), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := LoadFile(fp)
			if err != nil {
				t.Fatal(err)
			}
			g := f.Graph()
			if v.dups && len(g.Dups) == 0 {
				t.Fatalf("%s, %s: no repeated uuid: the look-up is not tested", p, v.name)
			}
			for i := range f.Entries {
				e := &f.Entries[i]
				want := -1
				if k, ok := e.uuidKey(); ok {
					want = g.holder(k)
				}
				if got := g.Holder(i); got != want {
					t.Errorf("%s, %s: Holder(%d) = %d, the table says %d", filepath.Base(p), v.name, i, got, want)
				}
				if got := g.Holds(i); got != (want == i) {
					t.Errorf("%s, %s: Holds(%d) = %v, the table says %v", filepath.Base(p), v.name, i, got, want == i)
				}
			}
			var leaves []int
			for i := range f.Entries {
				e := &f.Entries[i]
				if !e.IsChain() || e.IsSidechain() != f.Sidechain || len(g.ChildrenOf(i)) > 0 {
					continue
				}
				if k, _ := e.uuidKey(); g.holder(k) == i {
					leaves = append(leaves, i)
				}
			}
			if !slices.Equal(leaves, g.Leaves) {
				t.Errorf("%s, %s: leaves %v, the table's %v", filepath.Base(p), v.name, g.Leaves, leaves)
			}
			f.Close()
		}
	}
}
