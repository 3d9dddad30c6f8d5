//go:build windows

package chain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session LoadFile holds open can be replaced by a rename (a change in
// place renames the new file over it while the loaded one is still open),
// and the loaded one still reads the old bytes.
func TestLoadedSessionCanBeReplaced(t *testing.T) {
	dir := t.TempDir()
	p, tmp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, ".s.jsonl.tmp")
	old := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"old"}}` + "\n"
	require.NoError(t, os.WriteFile(p, []byte(old), 0o600))
	require.NoError(t, os.WriteFile(tmp, []byte(`{"type":"user","uuid":"u2"}`+"\n"), 0o600))
	f, err := LoadFile(p)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.Rename(tmp, p), "the loaded session does not block its replacement")
	raw, err := f.Raw(0)
	require.NoError(t, err)
	assert.Equal(t, old[:len(old)-1], string(raw))
}
