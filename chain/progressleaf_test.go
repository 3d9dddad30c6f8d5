package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestBranchEndingInProgress: a file whose last entries are progress
// entries (a client stopped while a hook or a tool was running: 2.1.29's
// Stop hook writes its progress, line 15 of hook-stop, before the system
// entry of line 16) still has its conversation: the branch ends at the
// entry above those progress entries (line 14), with the turns of the
// whole file. Before, the progress dead end was no branch and the entry
// above it no leaf, so the file had no branch at all: turns said "no
// turns", and validate skipped every check of the active branch.
func TestBranchEndingInProgress(t *testing.T) {
	src := testcorpus.Path(t, "claudeless", "v2.1.29", "hook-stop", "d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl")
	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	lines := bytes.SplitAfter(raw, []byte("\n"))
	require.Contains(t, string(lines[14]), `"type":"progress"`, "line 15 of hook-stop is the Stop hook's progress")
	p := filepath.Join(t.TempDir(), "d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl")
	require.NoError(t, os.WriteFile(p, bytes.Join(lines[:15], nil), 0o600))

	f, err := LoadFile(p)
	require.NoError(t, err)
	defer f.Close()
	g := f.Graph()
	leaf := g.ActiveLeaf()
	require.GreaterOrEqual(t, leaf, 0, "a file ending in progress entries has a branch")
	require.Equal(t, 14, int(f.Entries[leaf].Line), "the branch ends above the progress entries")
	require.Equal(t, []int{leaf}, g.Branches())
}
