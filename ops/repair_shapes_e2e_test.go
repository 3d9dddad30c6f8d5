package ops_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolIDs lists the tool_use ids and tool_result ids of a conversation in
// the order they are sent, with the role of the message holding each: the
// tool calls of two clients compare equal although their system messages
// and reminders differ.
func toolIDs(t *testing.T, msgs []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		var v struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		require.NoError(t, json.Unmarshal(m, &v))
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(v.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				out = append(out, v.Role+":use:"+b.ID)
			case "tool_result":
				out = append(out, v.Role+":result:"+b.ToolUseID)
			}
		}
	}
	return out
}

// TestRepairOrphanResultOfParallelCalls: a tool_use entry of the active
// branch deleted (its children re-linked to its parent, as a bad
// edit leaves it) orphans its tool_result, which in a 2.1.x file of
// parallel calls is the entry the conversation continues from. After
// repair, the newest client sends what it rebuilt from the damaged file,
// and the other client sends the same tool calls and results, without a
// 400 (2.0.50 used to send two assistant messages in a row, or the orphan).
func TestRepairOrphanResultOfParallelCalls(t *testing.T) {
	t.Parallel()
	latest, old := harness.Latest(t), harness.Old(t)
	for _, v := range []string{latest.Version, old.Version} {
		// which tool_use entry goes: the last of three parallel calls, and
		// the first call of a tool loop (the loop's next answer then follows
		// the thinking the call shared its message with)
		for _, tc := range []struct {
			name  string
			first bool
		}{{"parallel-tools", false}, {"thinking-tool-loop", true}} {
			name := tc.name
			t.Run(v+"/"+name, func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, latest, filepath.Join("..", "testdata", "sessions", harness.SessionsFolder(v), name+".jsonl"))
				path := fx.env.SessionPath(fx.id)
				rewriteSession(t, path, func(t *testing.T, f *chain.File, tx *ops.Txn) {
					last := -1
					for _, i := range f.Graph().ActivePath().Entries {
						if len(f.Entries[i].ToolUseIDs()) > 0 && (last < 0 || !tc.first) {
							last = i
						}
					}
					require.GreaterOrEqual(t, last, 0)
					tx.Drop(f, last)
				})
				want := fx.env.Resume(t, latest, fx.id)
				require.NotNil(t, want.Request, "%s", want)

				var out bytes.Buffer
				a := &app.Env{ConfigDir: fx.env.ConfigDir, Out: &out, Err: &out}
				require.NoError(t, a.RunRepair(fx.id, app.Dest{Force: true}), out.String())
				require.Contains(t, out.String(), "removed tool_result", out.String())

				got := fx.env.MustResume(t, latest, fx.id)
				// the API reads a string content as one text block: a prompt
				// that no longer shares its message with the orphan is sent
				// as the string it is in the file
				harness.AssertSameConversation(t, harness.NewNormalizer(fx.env), textBlocks(t, want), textBlocks(t, got))
				other := fx.env.MustResume(t, old, fx.id)
				assert.Equal(t, toolIDs(t, got.Messages), toolIDs(t, other.Messages), "2.0.50 sends other tool calls than 2.1.x:\n%s", harness.MessageSummary(other.Messages))
			})
		}
	}
}

// textBlocks returns r with every string content written as one text
// block, which is how the API reads it.
func textBlocks(t *testing.T, r harness.ResumeResult) harness.ResumeResult {
	t.Helper()
	out := make([]json.RawMessage, 0, len(r.Messages))
	for _, m := range r.Messages {
		var v map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(m, &v))
		var s string
		if json.Unmarshal(v["content"], &s) == nil {
			b, err := json.Marshal([]map[string]string{{"type": "text", "text": s}})
			require.NoError(t, err)
			v["content"] = b
			m, err = json.Marshal(v)
			require.NoError(t, err)
		}
		out = append(out, m)
	}
	r.Messages = out
	return r
}

// TestRepairDifferentDuplicates: the second prompt written twice with one
// uuid and different text (as an edit gone wrong leaves it). The client
// reads the last copy; after repair the file is valid and both clients
// send what they sent from the damaged file.
func TestRepairDifferentDuplicates(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, filepath.Join("..", "testdata", "sessions", c.Sessions, "multi-turn.jsonl"))
			path := fx.env.SessionPath(fx.id)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			f, err := chain.LoadBytes(path, data)
			require.NoError(t, err)
			e := &f.Entries[f.ActiveTurns().List[1].Entry]
			line := data[e.Off : e.Off+e.TotalBytes()]
			edited := bytes.Replace(line, []byte("Why do session logs use it?"), []byte("Why do session logs use JSONL?"), 1)
			require.NotEqual(t, line, edited)
			var broken []byte
			broken = append(broken, data[:e.Off+e.TotalBytes()]...)
			broken = append(broken, edited...)
			broken = append(broken, data[e.Off+e.TotalBytes():]...)
			require.NoError(t, os.WriteFile(path, broken, 0o644))
			want := fx.resume(t, fx.id)
			assert.Contains(t, string(bytes.Join(rawMsgs(want), nil)), "use JSONL?", "the client reads the last copy")

			var out bytes.Buffer
			a := &app.Env{ConfigDir: fx.env.ConfigDir, Out: &out, Err: &out}
			require.NoError(t, a.RunRepair(fx.id, app.Dest{Force: true}), out.String())
			s, err := chain.Load(path)
			require.NoError(t, err)
			rep := validate.Session(s)
			s.Close()
			assert.True(t, rep.Valid(), "still invalid after repair: %v\n%s", rep.Problems, out.String())
			harness.AssertSameConversation(t, harness.NewNormalizer(fx.env), want, fx.resume(t, fx.id))
		})
	}
}

func rawMsgs(r harness.ResumeResult) [][]byte {
	out := make([][]byte, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m
	}
	return out
}
