package ops_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealDamageTheGateMet: the members of TestNoOperationEndsInABugOnDamage
// that ended in "a bug in ccsurgeon", in both clients. Each damaged file
// is one the client resumes as it is (the API rules hold for what it
// sends), so the operation is made right on it rather than refused: its
// result sends what the specification says of what the client sent for
// the damaged file.
//   - result-twice on 2.0.50's parallel calls: the second result hangs on
//     a side branch below a call it does not answer, and no client sends
//     it; drop-tool-calls --tool Bash removed the entry between it and its
//     call, and the relink brought it below its call: two results.
//   - result-in-other-branch on 2.1.332's thinking entries: the result
//     hangs beside its call, below the thinking part of the call's
//     message (the client sends the call with the message, by its id);
//     strip-thinking removed that part, and the result went up to the
//     prompt, away from any part of the message: a result without its call.
//     2.0.50 gets a 400 on the damaged file itself (validate's
//     result-beside-call); after repair, both send what the newest sent.
func TestRealDamageTheGateMet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		damage, src string
		args        []string
		want        func(spec.Conversation) spec.Conversation
		// oldRefused: 2.0.50 sends the damaged file's conversation and the
		// API refuses it (it does not send the parts of a message that hang
		// on a side branch); what the newest client sent is then the
		// original for both
		oldRefused bool
	}{
		{"result-twice", "2.0.50/parallel-tools.jsonl", []string{"drop-tool-calls", "--tool", "Bash"}, func(c spec.Conversation) spec.Conversation {
			return spec.DropToolCalls(c, func(use spec.Block, _ int) bool { return use.Name == "Bash" })
		}, false},
		{"result-in-other-branch", "2.1.328/shapes/empty-thinking.jsonl", []string{"strip-thinking"}, func(c spec.Conversation) spec.Conversation {
			return spec.StripThinking(c, 0)
		}, true},
		{"result-in-other-branch", "2.1.328/shapes/empty-thinking.jsonl", []string{"repair"}, spec.Repair, true},
	} {
		t.Run(tc.damage+"/"+tc.args[0], func(t *testing.T) {
			t.Parallel()
			src := filepath.Join("..", "testdata", "sessions", filepath.FromSlash(tc.src))
			data, err := os.ReadFile(src)
			require.NoError(t, err)
			damaged, err := ops.DamageBy(tc.damage, src, data)
			require.NoError(t, err)
			require.NotNil(t, damaged)
			env := harness.NewEnv(t)
			id := env.InstallSession(t, src)
			require.NoError(t, os.WriteFile(env.SessionPath(id), damaged, 0o600))
			clients := harness.Clients(t)
			orig := map[string]spec.Conversation{}
			for _, c := range clients {
				if tc.oldRefused && c.IsOld() {
					r := damagedResume(t, env, c, id, damaged)
					assert.False(t, r.OK(), "%s on %s: %s sends what the API refuses: %s", tc.damage, tc.src, c, r)
					orig[c.Version] = orig[clients[0].Version]
					continue
				}
				r := damagedResume(t, env, c, id, damaged)
				require.True(t, r.OK(), "%s on %s: %s: %s", tc.damage, tc.src, c, r)
				orig[c.Version] = spec.FromAPI(r.Messages)
			}
			code, stderr := runCLI(env.ConfigDir, append(append([]string{}, tc.args...), id, "--force")...)
			require.Equal(t, 0, code, "%s on %s: %s", tc.damage, tc.src, stderr)
			for _, c := range clients {
				got := env.MustResume(t, c, id)
				assert.Equal(t, withoutSynthetic(tc.want(orig[c.Version]).Key()), sentKey(got),
					"%s on %s, then ccsurgeon %v: what %s sends", tc.damage, tc.src, tc.args, c)
			}
		})
	}
}

// damagedResumes holds what each client sent for each damaged file of
// TestRealDamageTheGateMet: result-in-other-branch is resumed before
// strip-thinking and before repair, the same bytes with both clients
// (CCSURGEON_RUN_LOG: the same input digest and arguments twice). The
// subtests use only whether the API accepted it and its spec key, which
// holds no path of the env.
var damagedResumes sync.Map // client version + digest of the file -> *originalResume

// damagedResume resumes session id of env, whose file holds damaged, with
// c, once for the package per client and file.
func damagedResume(t *testing.T, env *harness.Env, c harness.Client, id string, damaged []byte) harness.ResumeResult {
	t.Helper()
	v, _ := damagedResumes.LoadOrStore(fmt.Sprintf("%s\x00%x", c.Version, sha256.Sum256(damaged)), &originalResume{})
	o := v.(*originalResume)
	o.once.Do(func() { o.r = env.Resume(t, c, id) })
	return o.r
}
