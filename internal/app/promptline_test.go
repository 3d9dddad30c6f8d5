package app

import (
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/require"
)

// TestPromptLineIsTheWholePromptsLine: the line 'turns' shows from a
// prompt's head is the line of the whole prompt, on every prompt of the
// generated sessions, with heads so small that most prompts are cut.
func TestPromptLineIsTheWholePromptsLine(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "sessions", "*", "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	defer func(n int) { promptHeadBytes = n }(promptHeadBytes)
	n := 0
	for _, p := range files {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		for i := range f.Entries {
			if f.Entries[i].Type() != "user" || !f.Entries[i].IsMessage() {
				continue
			}
			whole, err := f.PromptText(i)
			require.NoError(t, err)
			for _, head := range []int{1, 9, 40, 4096} {
				promptHeadBytes = head
				for _, max := range []int{3, 12, 90} {
					got, err := promptLine(f, i, max)
					require.NoError(t, err)
					require.Equal(t, oneLine(whole, max), got, "%s line %d, head %d, max %d", p, f.Entries[i].Line, head, max)
					n++
				}
			}
		}
		f.Close()
	}
	t.Logf("%d lines the same", n)
	require.Greater(t, n, 100)
}
