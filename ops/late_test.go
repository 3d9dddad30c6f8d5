package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/require"
)

// TestLateLinesThatAreTheirInput: the workers that make late lines read
// each line into one buffer per batch and the writer recycles what it
// wrote. A LateFunc that returns its input (or a part of it), as compress
// does for a line it leaves alone, must still write that line, not the
// bytes read after it; a line made in a recycled buffer must be whole.
func TestLateLinesThatAreTheirInput(t *testing.T) {
	paths, err := filepath.Glob("../testdata/sessions/2.1.328/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := chain.LoadBytes(path, data)
		require.NoError(t, err)
		s := &chain.Session{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path, ProjectDir: filepath.Dir(path), Main: f}
		tx := NewTxn(s)
		n := 0
		for i := range f.Entries {
			if f.Entries[i].Kind == chain.KindBlank {
				continue
			}
			var fn LateFunc
			switch i % 3 {
			case 0: // the input itself
				fn = func(_ int, raw []byte) ([]byte, error) { return raw, nil }
			case 1: // a part of the input that is the whole line
				fn = func(_ int, raw []byte) ([]byte, error) { return raw[:len(raw):len(raw)], nil }
			default: // a copy in a recycled buffer
				fn = func(_ int, raw []byte) ([]byte, error) { return append(lineBuf(len(raw)), raw...), nil }
			}
			require.NoError(t, tx.SetLate(f, i, fn))
			n++
		}
		require.Positive(t, n)
		var out bytes.Buffer
		require.NoError(t, tx.Render(f)(&out))
		require.Equal(t, string(data), out.String(), "%s: %d lines made as written", path, n)
	}
}
