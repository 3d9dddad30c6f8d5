package ops_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	gen "github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// TestCutReadsOnlyLinesItMayCut: compress-old-turns and every cut of
// --target-tokens decide from the index alone (needsCut) which lines to
// read and walk. A line is read only for a part the cut may shorten: a
// tool result or tool input over the limit, a toolUseResult, an image or a
// document; never for a big block the cut leaves as it is (a prompt's or an
// answer's text, thinking): on the secrets shape every 8 KB prompt was
// read and walked three times by the rescue, and once by
// compress-old-turns, for nothing (a third of the rescue's CPU there).
// And the other way: a line the index passes over is one the cut leaves
// as it is (the oracle test holds that on testdata and the corpus; here on
// every generated shape). The failure names the kind of block that made a
// line be read for nothing, per shape.
func TestCutReadsOnlyLinesItMayCut(t *testing.T) {
	type cutKind struct {
		Max          int
		Text, Images bool
	}
	cuts := []cutKind{
		{Max: ops.DefaultMaxResult, Text: true, Images: true}, // compress-old-turns
		{Max: ops.DefaultMaxResult, Text: true},               // --target-tokens, in order
		{Images: true},
		{Max: 500, Text: true},
		{Max: 100, Text: true},
	}
	files := generateShapes(t, 7, "secrets", "bulk", "agentic", "dense")
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		files["testdata and corpus"+"\x00"+p] = p
	}
	needless := map[string]map[string]int{} // source → block kind → lines read for nothing
	read, cut := 0, 0
	for name, p := range files {
		src, _, _ := strings.Cut(name, "\x00")
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		for i := range f.Entries {
			e := &f.Entries[i]
			if !e.IsMessage() {
				continue
			}
			raw, err := f.Raw(i)
			require.NoError(t, err)
			for _, c := range cuts {
				read1, changed := ops.CutReadForTest(e, raw, c.Max, c.Text, c.Images)
				if !read1 {
					require.False(t, changed, "%s line %d, cut %+v: the index passes over a line the cut changes", p, e.Line, c)
					continue
				}
				read++
				if changed {
					cut++
					continue
				}
				// read for nothing: which big block made it be read
				for _, b := range e.Blocks() {
					if c.Text && int(b.Size) > c.Max && !cuttableKind(b.Kind) {
						if needless[src] == nil {
							needless[src] = map[string]int{}
						}
						needless[src][blockKindName(b.Kind)]++
					}
				}
			}
		}
		f.Close()
	}
	t.Logf("(line, cut) pairs read: %d, of them cut: %d", read, cut)
	var bad []string
	for src, kinds := range needless {
		for k, n := range kinds {
			bad = append(bad, fmt.Sprintf("%s: %d lines read for a %s block the cut never shortens", src, n, k))
		}
	}
	sort.Strings(bad)
	require.Empty(t, bad)
	require.Positive(t, cut)
}

// cuttableKind: the blocks the cut may shorten in place, as the test
// sees them (what is not one of those is never cut: text, thinking).
func cuttableKind(k chain.BlockKind) bool {
	switch k {
	case chain.BlockText, chain.BlockThinking, chain.BlockRedactedThinking:
		return false
	}
	return true
}

func blockKindName(k chain.BlockKind) string {
	switch k {
	case chain.BlockText:
		return "text"
	case chain.BlockThinking:
		return "thinking"
	case chain.BlockRedactedThinking:
		return "redacted_thinking"
	}
	return fmt.Sprintf("kind %d", k)
}

// generateShapes writes a 1 MB session of each of the benchgen shapes
// named (seed seed) and returns their paths by shape.
func generateShapes(t *testing.T, seed int64, shapes ...string) map[string]string {
	files := map[string]string{}
	for _, shape := range shapes {
		sh, ok := gen.LookupShape(shape)
		require.True(t, ok, shape)
		res, err := sh.Generate(gen.Options{Size: 1 << 20, Seed: seed, Dir: t.TempDir()})
		require.NoError(t, err)
		files[shape] = res.Path
	}
	return files
}
