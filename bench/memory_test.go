package bench

import (
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	gen "github.com/ccsurgeon/ccsurgeon/internal/benchgen"
)

// TestIndexOfSmallEntriesFitsItsBudget holds the index of a chain of small
// entries (the 571-byte lines of the 2.0.50 templates, the shape issue 30
// measured) to what each line may cost: every command must stay under half
// the file, and the index is only a part of what a command holds (the
// graph, the turns, the token rows, the GC's slack and the runtime come on
// top). It measures the live heap a loaded index holds, per line.
func TestIndexOfSmallEntriesFitsItsBudget(t *testing.T) {
	const n = 40_000
	r := smallChain(t, n)
	before := live()
	f, err := chain.LoadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	held := live() - before
	perLine := float64(held) / n
	lineBytes := float64(r.Bytes) / n
	t.Logf("%d lines of %.0f bytes: the index holds %.1f bytes a line (%.2f of the file)", n, lineBytes, perLine, perLine/lineBytes)
	// an Entry (96 bytes) and half a message id (28 bytes for an answer,
	// none for a prompt): the content blocks of such lines are alike, and
	// shared (placeBlocks)
	if perLine > 120 {
		t.Errorf("the index holds %.1f bytes a line, over the 120 it may (Entry %d bytes)", perLine, unsafe.Sizeof(chain.Entry{}))
	}
	runtime.KeepAlive(f)
}

// TestResumeEstimateOfSmallEntriesFitsItsBudget holds the per-entry token
// rows of a resume estimate (what info, compress and the rescue keep beside
// the index while they look at every entry) to what each entry sent may
// cost: on the chain of a million 571-byte entries they were 32 bytes an
// entry held, and the slice of the entries sent grown by doubling came on
// top at the estimate's peak, which made info and the rescue pass half the
// file. It measures the live heap the estimate holds, per entry sent.
func TestResumeEstimateOfSmallEntriesFitsItsBudget(t *testing.T) {
	const n = 40_000
	f, p := loadedChain(t, n)
	// a first estimate fills what the file keeps of its reads (the block
	// cache); the second one's cost is the estimate's own
	runtime.KeepAlive(f.ResumeTokensWith(p, nil))
	before := live()
	est := f.ResumeTokensWith(p, nil)
	held := live() - before
	sent := 0
	est.Each(func(int, chain.Tokens) { sent++ })
	if sent < n*9/10 {
		t.Fatalf("%d of %d entries sent: not the chain of messages this measures", sent, n)
	}
	perEntry := float64(held) / float64(sent)
	t.Logf("%d entries sent: the estimate holds %.1f bytes an entry", sent, perEntry)
	// an entry's index (4 bytes) and its seven counts, each in 2 bytes
	// when it fits (a count over 65,535 tokens goes to a map)
	if perEntry > 19 {
		t.Errorf("the estimate holds %.1f bytes an entry sent, over the 19 it may", perEntry)
	}
	runtime.KeepAlive(est)
}

// TestMessagesOfSmallEntriesFitTheirBudget holds the API messages of a
// chain of small entries (one message an entry: what repair, validate and
// info's validation group) to what each may cost: a []Message was 40
// bytes a message and 8 an entry, made at once, 20 MB on the chain of
// 500,000 entries.
func TestMessagesOfSmallEntriesFitTheirBudget(t *testing.T) {
	const n = 40_000
	f, p := loadedChain(t, n)
	before := live()
	msgs := f.Messages(p)
	held := live() - before
	if msgs.Len() < n/2 {
		t.Fatalf("%d messages of %d entries: not the chain this measures", msgs.Len(), n)
	}
	per := float64(held) / float64(msgs.Len())
	t.Logf("%d messages of %d entries: %.1f bytes a message", msgs.Len(), n, per)
	// an entry's index (8 bytes), where the message starts (4) and its
	// role (2)
	if per > 16 {
		t.Errorf("the messages hold %.1f bytes a message, over the 16 they may", per)
	}
	runtime.KeepAlive(msgs)
}

// smallChain writes a chain of n entries of the 571-byte lines of the
// 2.0.50 templates (the shape issue 30 measured).
func smallChain(t *testing.T, n int) *gen.Result {
	t.Helper()
	r, err := gen.GenerateChain(gen.Options{Seed: 1, Dir: t.TempDir(), Templates: filepath.Join("..", "testdata", "sessions", "2.0.50")}, n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// live is the live heap after a full collection.
func live() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadedChain is smallChain loaded, with its active path (closed when the
// test ends).
func loadedChain(t *testing.T, n int) (*chain.File, chain.Path) {
	t.Helper()
	f, err := chain.LoadFile(smallChain(t, n).Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, f.Graph().ActivePath()
}

// TestGraphOfSmallEntriesFitsItsBudget holds the graph of a chain of small
// entries (every command that walks the branch builds it beside the
// index) to what each entry may cost: its parent (8 bytes), where its
// children start (4), the child itself (4: it was 8, an int, and the graph
// 27 bytes an entry), and the uuid table (8 a slot, a slot and a half an
// entry).
func TestGraphOfSmallEntriesFitsItsBudget(t *testing.T) {
	const n = 40_000
	f, err := chain.LoadFile(smallChain(t, n).Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := live()
	g := f.Graph()
	held := live() - before
	per := float64(held) / n
	t.Logf("%d entries: the graph holds %.1f bytes an entry", n, per)
	if per > 25 {
		t.Errorf("the graph holds %.1f bytes an entry, over the 25 it may", per)
	}
	runtime.KeepAlive(g)
}
