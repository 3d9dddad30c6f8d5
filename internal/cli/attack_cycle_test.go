package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoBranchToResumeIsSaidSo: a session whose parent links leave no
// branch to resume (a parent cycle through its first entry: no entry is
// a leaf) has prompts a person typed. turns said it "holds no prompt a
// person typed" (exit 0) and fork and clone "no conversation to work on"
// with no hint; each now says the links are why and names the command
// that mends them.
func TestNoBranchToResumeIsSaidSo(t *testing.T) {
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	uuids := regexp.MustCompile(`"uuid":"([0-9a-f-]{36})"`).FindAllSubmatch(b, -1)
	last := uuids[len(uuids)-1][1]
	b = bytes.Replace(b, []byte(`"parentUuid":null`), []byte(`"parentUuid":"`+string(last)+`"`), 1)
	require.Contains(t, string(b), `"parentUuid":"`+string(last)+`"`)
	path := filepath.Join(t.TempDir(), "cycle.jsonl")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	out, _, code := cliRun(t, "validate", path)
	require.Equal(t, 1, code)
	require.Contains(t, out, "cycle", "the test's session has the damage it means to have")

	stdout, stderr, code := cliRun(t, "turns", path)
	assert.NotContains(t, stdout, "holds no prompt a person typed")
	assert.Contains(t, stdout+stderr, "repair")
	for _, args := range [][]string{{"fork", path, "1", "-o", filepath.Join(t.TempDir(), "f.jsonl")}, {"clone", path, "--branch", "1", "-o", filepath.Join(t.TempDir(), "c.jsonl")}} {
		_, stderr, code = cliRun(t, args...)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "ccsurgeon: hint: ")
		assert.Contains(t, stderr, "repair", "%v: %s", args[0], stderr)
	}
}
