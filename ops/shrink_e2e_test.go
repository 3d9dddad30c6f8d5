package ops_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type msg struct {
	Role    string
	Content []map[string]any
}

func decode(t *testing.T, raw []json.RawMessage) []msg {
	t.Helper()
	var out []msg
	for _, r := range raw {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		require.NoError(t, json.Unmarshal(r, &m))
		var blocks []map[string]any
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			blocks = []map[string]any{{"type": "text", "text": s}}
		} else {
			require.NoError(t, json.Unmarshal(m.Content, &blocks))
		}
		out = append(out, msg{Role: m.Role, Content: blocks})
	}
	return out
}

func encode(ms []msg) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range ms {
		b, _ := json.Marshal(map[string]any{"role": m.Role, "content": m.Content})
		out = append(out, b)
	}
	return out
}

// withoutBlocks removes the blocks drop selects, and the messages left empty.
func withoutBlocks(ms []msg, drop func(k int, b map[string]any) bool) []msg {
	var out []msg
	for k, m := range ms {
		keep := []map[string]any{}
		for _, b := range m.Content {
			if !drop(k, b) {
				keep = append(keep, b)
			}
		}
		if len(keep) > 0 || len(m.Content) == 0 {
			out = append(out, msg{Role: m.Role, Content: keep})
		}
	}
	return out
}

// normalizeStrings makes string content and one-text-block content alike.
func normalized(t *testing.T, raw []json.RawMessage) []json.RawMessage { return encode(decode(t, raw)) }

func countType(ms []msg, typ string) int {
	n := 0
	for _, m := range ms {
		for _, b := range m.Content {
			if b["type"] == typ {
				n++
			}
		}
	}
	return n
}

// openLoopStart returns the index of the first message of the last turn
// when the conversation ends inside a tool-use loop, else len(ms).
func openLoopStart(ms []msg) int {
	if n := len(ms); n > 0 && ms[n-1].Role == "assistant" && len(ms[n-1].Content) == 1 && ms[n-1].Content[0]["text"] == "No response requested." {
		ms = ms[:n-1] // 2.0.x makes this message up on resume
	}
	if len(ms) == 0 {
		return 0
	}
	last := ms[len(ms)-1]
	open := false
	for _, b := range last.Content {
		if b["type"] == "tool_result" || b["type"] == "tool_use" {
			open = true
		}
	}
	if !open {
		return len(ms)
	}
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].Role != "user" {
			continue
		}
		typed := false
		for _, b := range ms[k].Content {
			if b["type"] == "text" {
				if s, _ := b["text"].(string); !strings.HasPrefix(strings.TrimSpace(s), "<") {
					typed = true
				}
			}
		}
		if typed {
			return k
		}
	}
	return 0
}

// TestStripThinkingResumes: after strip-thinking the resumed request holds
// no thinking block (but the last turn of an unfinished tool loop) and is
// otherwise the original's.
func TestStripThinkingResumes(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				orig := fx.original(t)
				r := fx.ccsurgeon(t, func(a *app.Env) error {
					return a.RunOps(fx.id, app.OpSpec{StripThinking: true}, app.Dest{New: true})
				})
				om := decode(t, orig.Messages)
				if len(r.Counts) == 0 {
					// no thinking to strip: the result is a clone (what
					// TestCloneResumesTheSameConversation resumes), and the
					// original sends none
					assert.Zero(t, countType(om, "thinking"), "thinking in the request, none stripped")
					return
				}
				got := fx.resume(t, r.SessionID)
				keepFrom := openLoopStart(om)
				want := withoutBlocks(om, func(k int, b map[string]any) bool {
					return k < keepFrom && (b["type"] == "thinking" || b["type"] == "redacted_thinking")
				})
				gm := decode(t, got.Messages)
				if keepFrom == len(om) {
					assert.Zero(t, countType(gm, "thinking"), "thinking left in the request")
				}
				harness.AssertSameConversation(t, sameNormalizer(fx.env, fx.id, r.SessionID),
					harness.ResumeResult{Messages: encode(want)}, harness.ResumeResult{Messages: normalized(t, got.Messages)})
			})
		}
	}
}

// TestDropToolCallsResumes drops each tool in turn: the request then holds
// no call or result of it, nothing orphaned (the mock enforces the API's
// pairing rules), and the rest of the conversation.
func TestDropToolCallsResumes(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				orig := fx.original(t)
				om := decode(t, orig.Messages)
				tools := map[string]bool{}
				for _, m := range om {
					for _, b := range m.Content {
						if b["type"] == "tool_use" {
							tools[b["name"].(string)] = true
						}
					}
				}
				for tool := range tools {
					r := fx.ccsurgeon(t, func(a *app.Env) error {
						return a.RunOps(fx.id, app.OpSpec{Drop: true, DropTools: []string{tool}}, app.Dest{New: true})
					})
					got := fx.resume(t, r.SessionID)
					gm := decode(t, got.Messages)
					for _, m := range gm {
						for _, b := range m.Content {
							if b["type"] == "tool_use" {
								assert.NotEqual(t, tool, b["name"], "a %s call survived", tool)
							}
						}
					}
					assert.Less(t, countType(gm, "tool_use"), countType(om, "tool_use")+1)
					// the conversation still ends with the original's final answer, in place
					if want := finalText(om); want != "" {
						assert.Equal(t, want, finalText(gm), "the final answer moved")
					}
				}
			})
		}
	}
}

// TestCompressKeepsLastTurns: after compress-old-turns --keep-turns 1 the
// request ends with the original's last turn, unchanged, and is accepted.
func TestCompressKeepsLastTurns(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				orig := fx.original(t)
				r := fx.ccsurgeon(t, func(a *app.Env) error {
					return a.RunOps(fx.id, app.OpSpec{Compress: true, KeepTurns: 1, MaxResult: "200B"}, app.Dest{New: true})
				})
				got := fx.resume(t, r.SessionID)
				om, gm := decode(t, orig.Messages), decode(t, got.Messages)
				lastPrompt := lastTypedPrompt(om)
				require.GreaterOrEqual(t, lastPrompt, 0)
				gLast := lastTypedPrompt(gm)
				require.GreaterOrEqual(t, gLast, 0)
				harness.AssertSameConversation(t, sameNormalizer(fx.env, fx.id, r.SessionID),
					harness.ResumeResult{Messages: encode(om[lastPrompt:])}, harness.ResumeResult{Messages: encode(gm[gLast:])})
			})
		}
	}
}

func lastTypedPrompt(ms []msg) int {
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].Role != "user" {
			continue
		}
		for _, b := range ms[k].Content {
			if s, _ := b["text"].(string); b["type"] == "text" && s != "" && !strings.HasPrefix(strings.TrimSpace(s), "<") && s != harness.ResumePrompt {
				return k
			}
		}
	}
	return -1
}

// TestAllOperationsCombinedResume runs every operation in one rewrite, in
// place (with a backup), and resumes the result with both clients.
func TestAllOperationsCombinedResume(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, src := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(src), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				old := time.Now().Add(-time.Hour)
				require.NoError(t, filepath.Walk(fx.env.ProjectDir(), func(p string, _ os.FileInfo, err error) error {
					if err != nil {
						return err
					}
					return os.Chtimes(p, old, old)
				}))
				r := fx.ccsurgeon(t, func(a *app.Env) error {
					return a.RunOps(fx.id, app.OpSpec{Redact: true, StripThinking: true, Drop: true, DropTools: []string{"Bash"}, Compress: true, KeepTurns: 1}, app.Dest{})
				})
				require.NotNil(t, r.Backup)
				fx.resume(t, fx.id)
			})
		}
	}
}

// finalText is the text of the last message when it is an assistant answer.
func finalText(ms []msg) string {
	if n := len(ms); n > 0 && ms[n-1].Role == "assistant" {
		var parts []string
		for _, b := range ms[n-1].Content {
			if s, ok := b["text"].(string); ok && b["type"] == "text" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
