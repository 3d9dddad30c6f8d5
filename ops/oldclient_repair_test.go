package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairForOldClientsLosesNothing: on every real session where
// Claude Code 2.0.x misses part of the branch the newest client resumes
// (an entry below a progress entry, results of parallel calls on side
// branches: chain.OldClientMisses, validate's progress-parent and
// side-branch-calls), repair leaves nothing for 2.0.x to miss, and
// changes nothing else: the conversation chain rebuilds (what 2.1.332
// sends, TestRepairedForOldClients) is the same, every line is kept
// with every byte but its parentUuid's value, and no problem validate
// reports is brought in. Each member of the family is named: the test
// fails if one of them stops being found.
func TestRepairForOldClientsLosesNothing(t *testing.T) {
	files := realSessions(t)
	shapes, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", "2.1.328", "shapes", "*.jsonl"))
	require.NoError(t, err)
	files = append(append(files, shapes...), filepath.Join("..", "chain", "testdata", "streaming-progress-between-calls.jsonl"))
	parentValue := regexp.MustCompile(`"parentUuid":("[^"]*"|null)`)
	seen := map[string]int{}
	for _, src := range files {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		f, err := chain.LoadBytes(src, data)
		require.NoError(t, err)
		miss := f.OldClientMisses(f.Graph().ActiveLeaf())
		if !miss.Any() {
			continue
		}
		if len(miss.BelowProgress) > 0 {
			seen["progress-parent"]++
		}
		if len(miss.SideParts) > 0 {
			seen["side-branch-calls"]++
		}
		id := filepath.Base(src[:len(src)-len(".jsonl")])
		if !chain.IsUUID(id) {
			id = "11111111-1111-1111-1111-111111111111"
		}
		s := &chain.Session{ID: id, Path: src, ProjectDir: filepath.Dir(src), Main: f}
		before := validate.Session(s)
		rep := &Repair{}
		tx := NewTxn(s)
		require.NoError(t, Pipeline{rep}.Apply(tx), src)
		var buf bytes.Buffer
		require.NoError(t, tx.Render(f)(&buf))
		res, err := chain.LoadBytes(src, buf.Bytes())
		require.NoError(t, err)

		assert.False(t, res.OldClientMisses(res.Graph().ActiveLeaf()).Any(), "%s: 2.0.x still misses %+v after %v", src, res.OldClientMisses(res.Graph().ActiveLeaf()), rep.Fixes)
		for _, fx := range rep.Fixes {
			assert.True(t, fx.Fixed, "%s: %s", src, fx)
			assert.Contains(t, []string{"progress-parent", "side-branch-calls"}, fx.Code, "%s: %s", src, fx)
		}
		want, err := spec.Active(f)
		require.NoError(t, err)
		got, err := spec.Active(res)
		require.NoError(t, err)
		assert.Equal(t, want.Key(), got.Key(), "%s: the conversation the newest client sends", src)
		in, out := sessionLines(data), sessionLines(buf.Bytes())
		require.Len(t, out, len(in), "%s: every line kept", src)
		changed := 0
		for k := range in {
			if !bytes.Equal(in[k], out[k]) {
				changed++
				assert.Equal(t, string(parentValue.ReplaceAll(in[k], nil)), string(parentValue.ReplaceAll(out[k], nil)), "%s line %d: only the parentUuid's value changes", src, k+1)
			}
		}
		assert.Positive(t, changed, src)
		after := validate.File(res, id)
		assert.Empty(t, validate.Introduced(before, validate.Report{Problems: after}), src)
	}
	// the members of the family, each found and repaired: 4 sessions of
	// the corpus (2.1.29 hooks) and 2.1.38's streaming calls; 2.1.328's
	// parallel calls (parallel-tools, parallel-out-of-order, 3 shapes)
	// and the streaming calls again
	want := map[string]int{"progress-parent": 5, "side-branch-calls": 6}
	if testcorpus.Optional(t) == "" {
		want["progress-parent"] = 1 // the streaming calls alone
	}
	assert.Equal(t, want, seen)
}
