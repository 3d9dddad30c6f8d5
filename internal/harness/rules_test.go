package harness

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckRequestRules(t *testing.T) {
	sig := Sign("thought")
	tests := []struct {
		name  string
		msgs  string
		rules []Rule
	}{
		{"valid text", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`, nil},
		{"valid tool loop", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t2","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"},{"type":"tool_result","tool_use_id":"t2","content":"y"}]}]`, nil},
		{"inline system messages are transparent", `[{"role":"user","content":"hi"},{"role":"system","content":[]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"system","content":"env"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`, nil},
		{"no messages", `[]`, []Rule{RuleNoMessages}},
		{"first is assistant", `[{"role":"assistant","content":"x"},{"role":"user","content":"y"}]`, []Rule{RuleFirstNotUser}},
		{"two users in a row", `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`, []Rule{RuleAlternation}},
		{"missing tool_result", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"user","content":"next"}]`, []Rule{RuleMissingToolResult}},
		{"one of two results missing", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t2","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`, []Rule{RuleMissingToolResult}},
		{"tool_use as last message", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}]`, []Rule{RuleMissingToolResult}},
		{"orphan tool_result", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}]`, []Rule{RuleOrphanToolResult}},
		{"tool_result in first message", `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}]`, []Rule{RuleOrphanToolResult}},
		{"empty user content", `[{"role":"user","content":[]},{"role":"assistant","content":"a"}]`, []Rule{RuleEmptyContent}},
		{"empty string content", `[{"role":"user","content":""}]`, []Rule{RuleEmptyContent}},
		{"empty final assistant allowed", `[{"role":"user","content":"hi"},{"role":"assistant","content":[]}]`, nil},
		{"empty middle assistant", `[{"role":"user","content":"hi"},{"role":"assistant","content":[]},{"role":"user","content":"x"}]`, []Rule{RuleEmptyContent}},
		{"empty text block", `[{"role":"user","content":[{"type":"text","text":""}]}]`, []Rule{RuleEmptyText}},
		{"whitespace text block", `[{"role":"user","content":[{"type":"text","text":"  \n"}]}]`, []Rule{RuleEmptyText}},
		{"duplicate tool_use id", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`, []Rule{RuleDuplicateToolUse}},
		{"valid signature", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"thought","signature":"` + sig + `"},{"type":"text","text":"a"}]}]`, nil},
		{"edited thinking", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"thought EDITED","signature":"` + sig + `"},{"type":"text","text":"a"}]}]`, []Rule{RuleThinkingSignature}},
		{"unknown signature", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"thought","signature":"Eqsomethingelse"},{"type":"text","text":"a"}]}]`, []Rule{RuleThinkingSignature}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]json.RawMessage{"messages": json.RawMessage(tc.msgs)})
			vs := CheckRequest(body, func(s, th string) bool { return Sign(th) == s })
			var got []Rule
			for _, v := range vs {
				got = append(got, v.Rule)
				assert.NotEmpty(t, v.Message)
			}
			assert.Equal(t, tc.rules, got, "violations: %v", vs)
		})
	}
}

func TestViolationMessagesMatchRealAPI(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"x"}]}]}`)
	vs := CheckRequest(body, nil)
	require.Len(t, vs, 2)
	assert.Contains(t, vs[0].Message, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1")
	assert.Contains(t, vs[1].Message, "unexpected `tool_use_id` found in `tool_result` blocks: toolu_2")
}

func TestStripPrompt(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	msgs := []json.RawMessage{raw(`{"role":"user","content":"a"}`), raw(`{"role":"assistant","content":"b"}`),
		raw(`{"role":"user","content":"` + ResumePrompt + `"}`), raw(`{"role":"system","content":"env"}`)}
	assert.Len(t, StripPrompt(msgs, ResumePrompt), 2)
	merged := []json.RawMessage{raw(`{"role":"user","content":"a"}`), raw(`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}`),
		raw(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"` + ResumePrompt + `"}]}`)}
	out := StripPrompt(merged, ResumePrompt)
	require.Len(t, out, 3)
	assert.NotContains(t, string(out[2]), ResumePrompt)
	assert.Contains(t, string(out[2]), "tool_result")
}

func TestNormalizer(t *testing.T) {
	n := NewNormalizer(nil, "sess-1")
	a := []json.RawMessage{json.RawMessage(`{"role":"user","content":[{"type":"text","text":"Today's date is 2026-11-21. session sess-1","cache_control":{"type":"ephemeral"}}]}`)}
	b := []json.RawMessage{json.RawMessage(`{"content":[{"text":"Today's date is 2027-01-02. session <SESSION-1>","type":"text"}],"role":"user"}`)}
	assert.Empty(t, n.DiffMessages(a, b))
}

// Two resumes made in different environments hold their own paths (the
// system reminder names the primary working directory): a result shared
// between tests (the originals of ops) is compared with one of another
// env. Each is normalized with the paths of the env it ran in; a path of
// neither env still differs.
func TestDiffResultsOfTwoEnvironments(t *testing.T) {
	e1, err := NewEnvAt(t.TempDir(), nil)
	require.NoError(t, err)
	e2, err := NewEnvAt(t.TempDir(), nil)
	require.NoError(t, err)
	msg := func(cwd string) []json.RawMessage {
		return []json.RawMessage{json.RawMessage(`{"role":"user","content":"Primary working directory: ` + cwd + ` in ` + Slug(cwd) + `"}`)}
	}
	n := NewNormalizer(e2)
	a := ResumeResult{Messages: msg(e1.Cwd), Env: e1}
	b := ResumeResult{Messages: msg(e2.Cwd), Env: e2}
	assert.NotEmpty(t, n.DiffMessages(a.Messages, b.Messages), "the env paths differ without each result's env")
	assert.Empty(t, n.DiffResults(a, b))
	assert.Empty(t, n.DiffResults(b, a))
	c := ResumeResult{Messages: msg("/srv/elsewhere"), Env: e1}
	assert.NotEmpty(t, n.DiffResults(c, b), "a path of neither env is not a placeholder")
}
