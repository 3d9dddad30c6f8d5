package ops

import (
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineIndexIsTheLinesEntry: repair finds the entry of a problem's
// line without a map where line i+1 is entry i (every loaded file), and
// with one where it is not.
func TestLineIndexIsTheLinesEntry(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	require.NotEmpty(t, paths)
	for _, p := range paths {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		l := newLineIndex(f)
		assert.Nil(t, l.m, p)
		for i := range f.Entries {
			got, ok := l.get(int(f.Entries[i].Line))
			require.True(t, ok, p)
			require.Equal(t, i, got, p)
		}
		for _, line := range []int{0, -1, len(f.Entries) + 1} {
			_, ok := l.get(line)
			assert.False(t, ok, "%s: line %d", p, line)
		}
		f.Close()
	}
	l := newLineIndex(&chain.File{Entries: []chain.Entry{{Line: 3}, {Line: 7}}})
	i, ok := l.get(7)
	assert.True(t, ok)
	assert.Equal(t, 1, i)
	_, ok = l.get(1)
	assert.False(t, ok)
}
