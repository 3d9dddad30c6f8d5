package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairCommandSaysWhatItCannotFix: two answers in a row (the prompt
// between them deleted) is an error repair has no safe fix for: it says
// so and why, exits 1 as validate does, and writes nothing.
func TestRepairCommandSaysWhatItCannotFix(t *testing.T) {
	clean := malLines()
	m := newMalEnv(t)
	p := m.write(t, join([]string{clean[0], clean[1], clean[2], malLine("assistant", 5, 3, `[{"type":"text","text":"done"}]`)}, "\n"))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	h0 := hashTree(t, m.root)
	r := runWithRepair(t, "--config-dir", m.cfg, "repair", malSession)
	checkRun(t, "repair", r, want{1, "line 4: not fixed: two assistant messages in a row", ""})
	assert.Contains(t, r.stdout, "repair has no safe fix for the 1 problem above")
	assert.Empty(t, changes(h0, hashTree(t, m.root)), "repair changed a file")
}
