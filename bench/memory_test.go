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
	dir := t.TempDir()
	r, err := gen.GenerateChain(gen.Options{Seed: 1, Dir: dir, Templates: filepath.Join("..", "testdata", "sessions", "2.0.50")}, n)
	if err != nil {
		t.Fatal(err)
	}
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
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
