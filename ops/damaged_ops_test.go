package ops_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// TestDropOnDamagedSessionNamesWhatLeadsThere: drop-tool-calls refused
// its own result on a damaged real session with "this is a bug in
// ccsurgeon … please report it", which a user cannot act on. What leads
// there: a call whose result entry is gone, in the same message as a call
// the drop removes; the removed call's result was all that stood between
// that message and the answer, so the drop makes two answers in a row of
// the missing result. On every generated and corpus session damaged by
// every mutation of the repair tests, dropping each tool: a refusal names
// the session's own errors, exits 1 and tells the user to repair first,
// and that hint works (repair, then the same drop succeeds) for the
// member above.
func TestDropOnDamagedSessionNamesWhatLeadsThere(t *testing.T) {
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "-work-p")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	refused := map[string]int{}
	var latent []string
	for _, src := range specSessions(t) {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		for _, name := range ops.MutationNames() {
			damaged, err := ops.DamageBy(name, src, data)
			require.NoError(t, err)
			if damaged == nil {
				continue
			}
			path := filepath.Join(proj, "damaged.jsonl")
			require.NoError(t, os.WriteFile(path, damaged, 0o644))
			f, err := chain.LoadFile(path)
			require.NoError(t, err)
			tools := map[string]bool{}
			for i := range f.Entries {
				for _, b := range f.Entries[i].Blocks() {
					if b.Kind == chain.BlockToolUse {
						tools[b.Name] = true
					}
				}
			}
			f.Close()
			for _, tool := range sortedKeys(tools) {
				var out, errb bytes.Buffer
				a := &app.Env{ConfigDir: cfg, Out: &out, Err: &errb, Quiet: true}
				err := a.RunPipeline(path, ops.Pipeline{ops.DropToolCalls{Tools: []string{tool}}}, app.Dest{Output: filepath.Join(t.TempDir(), "out.jsonl")})
				if err == nil {
					continue
				}
				var ce *app.Error
				require.True(t, errors.As(err, &ce), "%s damaged by %s, drop %s: %v", src, name, tool, err)
				if len(validErrors(t, path)) == 0 {
					// the damage is one the validator does not see (a second
					// result of a call on a side branch no client sends), and
					// the drop brings it onto the branch: left as it was
					latent = append(latent, name+" "+filepath.Base(src)+" "+tool)
					continue
				}
				require.NotContains(t, ce.Hint, "bug in ccsurgeon", "%s damaged by %s, drop %s: %s\n%s", src, name, tool, ce.Msg, errb.String())
				require.Contains(t, ce.Msg, "the session's own", "%s damaged by %s, drop %s", src, name, tool)
				require.Contains(t, errb.String(), "(already in the session)", "the session's errors are named")
				require.Equal(t, 1, ce.ExitCode())
				refused[name]++
				if name == "tool-result-entry-deleted" && strings.HasSuffix(src, filepath.Join("2.0.50", "parallel-out-of-order.jsonl")) {
					require.Contains(t, ce.Hint, "ccsurgeon repair "+path)
					require.NoError(t, a.RunRepair(path, app.Dest{Force: true}), errb.String())
					require.NoError(t, a.RunPipeline(path, ops.Pipeline{ops.DropToolCalls{Tools: []string{tool}}}, app.Dest{Output: filepath.Join(t.TempDir(), "out.jsonl")}),
						"after repair, the same drop: %s", errb.String())
					refused["repaired then dropped"]++
				}
			}
		}
	}
	t.Logf("refusals on damaged sessions, by mutation: %v; on damage the validator does not see: %v", refused, latent)
	require.Positive(t, refused["repaired then dropped"], "the member of issue 28 was met and its hint worked")
}
