package ops_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestDropToolCallsDropsTheirProgress: drop-tool-calls drops the progress
// entries of the calls it drops (their toolUseID or parentToolUseID names
// one) and no other, on sessions of both client families. The index no
// longer holds those ids (chain.File.ToolIDs reads them from the line):
// the ids are read here with gjson, and the calls dropped are those whose
// tool_use the result no longer holds.
func TestDropToolCallsDropsTheirProgress(t *testing.T) {
	for _, version := range []string{"2.1.328", "2.0.50"} {
		t.Run(version, func(t *testing.T) {
			path := agenticSession(t, version, t.TempDir(), agenticOpts{Prompts: 3, Exchanges: 6, ResultBytes: 300, Seed: 3})
			// as the client writes them, a tool progress entry names the
			// call by parentToolUseID only (toolUseID "bash-progress-N");
			// every other one here names it by toolUseID only, so that
			// each field is what drops some
			doc, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := bytes.Split(doc, []byte("\n"))
			k := 0
			for i, l := range lines {
				if !bytes.Contains(l, []byte(`"bash_progress"`)) {
					continue
				}
				field := []string{"toolUseID", "parentToolUseID"}[k%2]
				lines[i], err = sjson.SetBytes(l, field, fmt.Sprintf("bash-progress-%d", k))
				require.NoError(t, err)
				k++
			}
			require.Greater(t, k, 4)
			require.NoError(t, os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o600))
			s, err := chain.Load(path)
			require.NoError(t, err)
			defer s.Close()
			tx := ops.NewTxn(s)
			require.NoError(t, ops.Pipeline{ops.DropToolCalls{Turns: &ops.TurnRange{From: 2, To: 2}}}.Apply(tx))
			var out bytes.Buffer
			require.NoError(t, tx.Render(s.Main)(&out))

			uses := func(doc []byte) map[string]bool {
				ids := map[string]bool{}
				for _, l := range bytes.Split(doc, []byte("\n")) {
					gjson.GetBytes(l, "message.content").ForEach(func(_, b gjson.Result) bool {
						if b.Get("type").Str == "tool_use" {
							ids[b.Get("id").Str] = true
						}
						return true
					})
				}
				return ids
			}
			f := s.Main
			in, err := os.ReadFile(path)
			require.NoError(t, err)
			before, after := uses(in), uses(out.Bytes())
			dropped := map[string]bool{}
			for id := range before {
				if !after[id] {
					dropped[id] = true
				}
			}
			require.NotEmpty(t, dropped, "turn 2 has tool calls")
			require.Less(t, len(dropped), len(before), "turns 1 and 3 keep theirs")
			progress, gone := 0, 0
			for i := range f.Entries {
				raw, err := f.Raw(i)
				require.NoError(t, err)
				if gjson.GetBytes(raw, "type").Str != "progress" {
					continue
				}
				progress++
				use, parent := gjson.GetBytes(raw, "toolUseID").Str, gjson.GetBytes(raw, "parentToolUseID").Str
				want := dropped[use] || dropped[parent]
				require.Equal(t, want, tx.Dropped(f, i), "line %d: toolUseID %q parentToolUseID %q", i+1, use, parent)
				if want {
					gone++
				}
			}
			require.Positive(t, gone, "progress entries of the dropped calls")
			require.Less(t, gone, progress, "progress entries of the kept calls")
			require.Equal(t, gone, tx.Report.Counts[ops.CountProgress])
		})
	}
}
