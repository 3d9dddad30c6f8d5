package ops

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// TestRepairResultWithoutEditsIsInput: when repair has nothing to change,
// the problems of its result are taken from the input instead of from a
// second index of the rendered result; on every session of testdata and
// ../shared/corpus they are what the second index finds.
func TestRepairResultWithoutEditsIsInput(t *testing.T) {
	var files []string
	for _, root := range []string{testcorpus.Optional(t), filepath.Join("..", "testdata")} {
		if root == "" {
			continue
		}
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "subagents") {
				files = append(files, p)
			}
			return err
		}))
	}
	require.NotEmpty(t, files)
	for _, p := range files {
		s, err := chain.Load(p)
		require.NoError(t, err)
		f := s.Main
		tx := NewTxn(s)
		before := validate.File(f, s.ID)
		got, gotLines, err := resultProblems(tx, f, before)
		require.NoError(t, err)
		nf, err := chain.IndexOf(f.Path, len(f.Entries), tx.Render(f))
		require.NoError(t, err)
		want := validate.File(nf, s.ID)
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		require.Equal(t, want, got, p)
		require.Len(t, gotLines, len(f.Entries)+1, p)
		for i := range f.Entries {
			require.Equal(t, int(f.Entries[i].Line), gotLines[i+1], p)
		}
		s.Close()
	}
}
