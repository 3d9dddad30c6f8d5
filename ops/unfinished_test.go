package ops

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
)

// TestUnfinishedLoopReadsTheEndOnly: unfinishedLoop, which groups the
// messages of the branch's end only, more of them until the walk back
// meets the prompt, finds what the walk over every message of the branch
// finds, on every session of testdata and the corpus, starting from a
// tail of 1, 2 and 64 entries (the retries are what a short tail tests).
func TestUnfinishedLoopReadsTheEndOnly(t *testing.T) {
	saved := unfinishedTail
	defer func() { unfinishedTail = saved }()
	open, retried := 0, 0
	for _, path := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		f, err := chain.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p := f.Graph().ActivePath()
		want, _ := unfinishedIn(f, f.Messages(p))
		if want != nil {
			open++
		}
		if _, found := unfinishedIn(f, f.MessagesFrom(p, len(p.Entries)-1)); !found && len(p.Entries) > 1 {
			retried++
		}
		for _, tail := range []int{1, 2, 64} {
			unfinishedTail = tail
			if got := unfinishedLoop(f); !maps.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("%s, first tail %d: unfinishedLoop = %v, the walk over every message %v", path, tail, got, want)
			}
		}
		f.Close()
	}
	t.Logf("%d sessions end in an unfinished loop; %d needed more than their last entry", open, retried)
	if open == 0 || retried == 0 {
		t.Fatal("no session ends in an unfinished tool loop, or none needed a second look: nothing was tested")
	}
}
