package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWritesAsIsIsTheInput: a result the gate does not index again
// because it is its input byte for byte (Txn.WritesAsIs: strip-thinking
// of a session without thinking, a line set to its own bytes) renders
// exactly the input; any change of a byte, a remap or a rewrite of every
// line makes it indexed and checked again.
func TestWritesAsIsIsTheInput(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	require.NotEmpty(t, paths)
	asIs := 0
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		require.NoError(t, err)
		s, err := chain.Load(p)
		require.NoError(t, err)
		tx := NewTxn(s)
		require.NoError(t, Pipeline{StripThinking{}}.Apply(tx))
		if len(s.Main.Entries) > 0 {
			raw, err := s.Main.Raw(0)
			require.NoError(t, err)
			tx.Set(s.Main, 0, bytes.Clone(raw)) // its own bytes: still as is
		}
		var out bytes.Buffer
		require.NoError(t, tx.Render(s.Main)(&out))
		if tx.WritesAsIs(s.Main) {
			asIs++
			assert.Equal(t, string(doc), out.String(), p)
		} else {
			assert.NotEqual(t, string(doc), out.String(), p)
		}
		if len(s.Main.Entries) > 1 {
			tx.Drop(s.Main, 1)
			assert.False(t, tx.WritesAsIs(s.Main), p)
		}
		fresh := NewTxn(s)
		fresh.NewID = "00000000-0000-4000-8000-00000000abcd"
		require.NoError(t, Pipeline{}.Apply(fresh))
		assert.False(t, fresh.WritesAsIs(s.Main), "%s: a remap changes the ids", p)
		s.Close()
	}
	assert.Positive(t, asIs)
	assert.Less(t, asIs, len(paths), "some sessions have thinking to strip")
}
