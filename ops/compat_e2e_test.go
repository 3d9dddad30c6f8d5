package ops_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/require"
)

// Conversation projects API messages onto what both sides must agree on:
// each message's role and, in order, its tool_use ids, tool_result ids,
// thinking signatures and images; assistant text verbatim; and the prompts
// a person typed. Text the client rewrites or adds on its own (system
// reminders, the local-command caveat) is not compared.
func projectAPI(msgs []json.RawMessage) []string {
	var out []string
	for _, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || (m.Role != "user" && m.Role != "assistant") {
			continue
		}
		var blocks []map[string]any
		var str string
		if json.Unmarshal(m.Content, &str) == nil {
			blocks = []map[string]any{{"type": "text", "text": str}}
		} else {
			_ = json.Unmarshal(m.Content, &blocks)
		}
		keys := blockKeys(m.Role, blocks)
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], m.Role+":") {
			out[n-1] += keys // the client's system messages split nothing for us
			continue
		}
		out = append(out, m.Role+":"+keys)
	}
	return out
}

func blockKeys(role string, blocks []map[string]any) string {
	var sb strings.Builder
	for _, b := range blocks {
		switch b["type"] {
		case "tool_use":
			fmt.Fprintf(&sb, " use(%v)", b["id"])
		case "tool_result":
			fmt.Fprintf(&sb, " result(%v)", b["tool_use_id"])
		case "thinking":
			fmt.Fprintf(&sb, " thinking(%v)", b["signature"])
		case "redacted_thinking":
			sb.WriteString(" redacted_thinking")
		case "image":
			sb.WriteString(" image")
		case "text":
			t, _ := b["text"].(string)
			if role == "assistant" {
				fmt.Fprintf(&sb, " text(%q)", t)
			} else if isTypedPrompt(t) {
				fmt.Fprintf(&sb, " prompt(%q)", t)
			}
		}
	}
	return sb.String()
}

func isTypedPrompt(t string) bool {
	t = strings.TrimSpace(t)
	return t != "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "This session is being continued") && !strings.HasPrefix(t, "[Request interrupted") && !strings.HasPrefix(t, "Caveat:")
}

// projectChain builds the same projection from what chain reconstructs.
func projectChain(t *testing.T, f *chain.File) []string {
	var msgs []json.RawMessage
	for _, m := range f.Messages(f.Graph().ActivePath()).All() {
		var content []json.RawMessage
		for _, i := range m.Entries {
			raw, err := f.Raw(i)
			require.NoError(t, err)
			var e struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			require.NoError(t, json.Unmarshal(raw, &e))
			var str string
			if json.Unmarshal(e.Message.Content, &str) == nil {
				b, _ := json.Marshal(map[string]string{"type": "text", "text": str})
				content = append(content, b)
				continue
			}
			var blocks []json.RawMessage
			_ = json.Unmarshal(e.Message.Content, &blocks)
			content = append(content, blocks...)
		}
		c, _ := json.Marshal(content)
		b, _ := json.Marshal(map[string]json.RawMessage{"role": json.RawMessage(fmt.Sprintf("%q", m.Role)), "content": c})
		msgs = append(msgs, b)
	}
	return projectAPI(msgs)
}

// TestCompatibilityWithRealClient resumes every generated session with the
// client that made it and checks that the conversation chain rebuilds is
// the one the client sends. The resume is the original's that the other
// tests of the package compare their results with (fixture.original): one
// client run per session and client serves all of them.
func TestCompatibilityWithRealClient(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		for _, p := range sessionFiles(t, c.Sessions) {
			t.Run(c.Version+"/"+filepath.Base(p), func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, p)
				r := fx.original(t)
				f, err := chain.LoadFile(fx.env.SessionPath(fx.id))
				require.NoError(t, err)
				defer f.Close()
				require.Equal(t, withoutSynthetic(projectAPI(r.Messages)), projectChain(t, f))
			})
		}
	}
}

// withoutSynthetic drops what the client makes up on resume rather than
// reads from the file: 2.0.x answers a conversation that ends in a tool
// result with a synthetic "No response requested." assistant message.
func withoutSynthetic(p []string) []string {
	if n := len(p); n > 0 && p[n-1] == `assistant: text("No response requested.")` {
		return p[:n-1]
	}
	return p
}
