package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONListKeysAreThereWhenEmpty: `doctor --fix --json` with nothing to
// fix left out "fixed", so `jq '.fixed[]'` failed where it should list
// nothing. A list key of a --json object is there as [] when empty (never
// absent, never null): checked on the runs where each list is empty.
func TestJSONListKeysAreThereWhenEmpty(t *testing.T) {
	cfg := t.TempDir()
	// the session's project exists and it sits in the folder the client
	// names for it, so that doctor finds nothing: not the path the example
	// was made in (/tmp/ccsurgeon-gen/…), which exists only where some
	// other test made it (a fresh machine: project_gone, exit 1)
	proj := t.TempDir()
	p, _ := installSessionOf(t, cfg, chain.ProjectSlug(proj), proj)
	id := idOf(p)
	backdate(t, cfg)
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		keys []string
	}{
		{[]string{"doctor", "--fix"}, []string{"fixed", "left", "findings"}},
		{[]string{"doctor"}, []string{"fixed", "left", "findings"}},
		{[]string{"strip-thinking", id, "--dry-run"}, []string{"notes"}},
		{[]string{"drop-tool-calls", id, "--tool", "Nope", "-o", filepath.Join(out, "same.jsonl")}, []string{"notes"}},
		{[]string{"move", id, "--to", "/work/p", "--dry-run"}, []string{"sessions", "project_files", "path_rewrites", "recovered", "notes"}},
	} {
		stdout, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json"}, c.args...)...)
		require.Equal(t, 0, code, "%v: %s", c.args, errs)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &v), "%v: %s", c.args, stdout)
		for _, k := range c.keys {
			l, ok := v[k].([]any)
			assert.True(t, ok, "%v --json: %q is %#v, not a list (absent or null): jq '.%s[]' fails", c.args, k, v[k], k)
			_ = l
		}
	}
}
