package ops_test

import (
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairedForOldClients: a session of Claude Code 2.1.29 whose Stop
// hook's summary hangs below the hook's progress entry (corpus
// claudeless/v2.1.29/hook-stop): 2.1.332 resumes it whole, 2.0.50 reads
// no progress entry and sends the /exit caveat alone, the history above
// lost without an error. validate says so (progress-parent, a warning);
// after repair both clients send the conversation 2.1.332 sent for the
// original. (2.1.38's streaming calls, the other member, are resumed by
// both after repair in TestStreamingToolsProgressBetweenCalls.)
func TestRepairedForOldClients(t *testing.T) {
	t.Parallel()
	src := filepath.Join(testcorpus.Require(t), "claudeless", "v2.1.29", "hook-stop", "d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl")
	newest, old := harness.Latest(t), harness.Old(t)
	fx := newFixture(t, newest, src)
	orig := fx.original(t)
	sent := spec.FromAPI(orig.Messages)
	oldFx := &fixture{env: fx.env, client: old, id: fx.id, src: src}
	before := oldFx.originalResult(t)
	require.Less(t, len(withoutSynthetic(sentKey(before))), len(withoutSynthetic(sent.Key())), "%s loses the history above the progress entry: %s", old, before)

	s, err := chain.Load(fx.env.SessionPath(fx.id))
	require.NoError(t, err)
	codes := map[string]int{}
	for _, p := range validate.Session(s).Problems {
		codes[p.Code+"/"+string(p.Severity)] = p.Line
	}
	s.Close()
	assert.Equal(t, 16, codes["progress-parent/warning"], "validate names the line %s resumes from", old)

	code, stderr := runCLI(fx.env.ConfigDir, "repair", fx.id, "--force")
	require.Equal(t, 0, code, stderr)
	for _, c := range []harness.Client{newest, old} {
		got := fx.env.MustResume(t, c, fx.id)
		assert.Equal(t, withoutSynthetic(spec.Repair(sent).Key()), sentKey(got), "after repair, what %s sends", c)
	}
}
