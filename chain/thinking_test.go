package chain

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/sjson"
)

// TestKeepsAllThinking: the documented default of each model class
// (extended thinking docs, "thinking block preservation"), on the ids as
// clients and clouds write them; an id it cannot place keeps all (the
// estimate counts more, never less).
func TestKeepsAllThinking(t *testing.T) {
	for id, all := range map[string]bool{
		"claude-haiku-4-5-20251001":                    false,
		"claude-3-5-haiku-20241022":                    false,
		"claude-sonnet-4-5-20250929":                   false,
		"claude-sonnet-4-5-20250929[1m]":               false,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0": false,
		"claude-sonnet-4-5@20250929":                   false,
		"claude-sonnet-4-20250514":                     false,
		"claude-3-7-sonnet-20250219":                   false,
		"claude-opus-4-1-20250805":                     false,
		"claude-opus-4-20250514":                       false,
		"claude-3-opus-20240229":                       false,
		"claude-opus-4-5-20251101":                     true,
		"claude-opus-4-6[1m]":                          true,
		"claude-sonnet-4-6":                            true,
		"claude-opus-4-7":                              true,
		"claude-opus-5":                                true,
		"claude-opus-5-5":                              true,
		"claude-haiku-5":                               true, // after Haiku 4.5: not documented, kept
		"claude-mythos-preview":                        true,
		"claude-xyz-9":                                 true,
		"claude-sonnet-latest":                         true,
		"<synthetic>":                                  true,
		"":                                             true,
		"gpt-5":                                        true,
	} {
		require.Equal(t, all, KeepsAllThinking(id), "%q", id)
	}
}

// withModel returns doc with every assistant line's message.model set to
// model ("" removes it).
func withModel(t *testing.T, doc []byte, model string) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &e) == nil && e.Type == "assistant" {
			var err error
			if model == "" {
				line, err = sjson.DeleteBytes(line, "message.model")
			} else {
				line, err = sjson.SetBytes(line, "message.model", model)
			}
			require.NoError(t, err)
		}
		out.Write(line)
	}
	return out.Bytes()
}

// withoutEarlierThinking returns doc without the thinking blocks of the
// assistant lines before its last user line that holds something other
// than tool results (the last turn's thinking stays), and how many it
// removed: what a model that keeps only the last turn's thinking is sent,
// made by hand, line by line.
func withoutEarlierThinking(t *testing.T, doc []byte) ([]byte, int) {
	lines := bytes.SplitAfter(doc, []byte("\n"))
	type entry struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	last := -1
	for k, line := range lines {
		var e entry
		if json.Unmarshal(line, &e) != nil || e.Type != "user" || len(e.Message.Content) == 0 {
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e.Message.Content, &blocks) != nil {
			last = k // a string: a prompt
			continue
		}
		results := false
		for _, b := range blocks {
			results = results || b.Type == "tool_result"
		}
		if !results {
			last = k
		}
	}
	removed := 0
	var out bytes.Buffer
	for k, line := range lines {
		var e entry
		if k < last && json.Unmarshal(line, &e) == nil && e.Type == "assistant" {
			var blocks []json.RawMessage
			if json.Unmarshal(e.Message.Content, &blocks) == nil {
				kept := []json.RawMessage{}
				for _, b := range blocks {
					var h struct {
						Type string `json:"type"`
					}
					require.NoError(t, json.Unmarshal(b, &h))
					if h.Type == "thinking" || h.Type == "redacted_thinking" {
						removed++
						continue
					}
					kept = append(kept, b)
				}
				if len(kept) < len(blocks) {
					nb, err := json.Marshal(kept)
					require.NoError(t, err)
					line, err = sjson.SetRawBytes(line, "message.content", nb)
					require.NoError(t, err)
				}
			}
		}
		out.Write(line)
	}
	return out.Bytes(), removed
}

// TestResumeTokensThinkingByModel: a resume's estimate counts thinking as
// the API does for the session's last recorded model. On sessions the
// real clients wrote with thinking in every turn (and one ending inside a
// tool loop), for each model id: a model that keeps only the last turn's
// thinking is counted exactly as the same session with the earlier turns'
// thinking blocks removed by hand (sent to a model that keeps all); the
// last turn's thinking always counts; every other model counts all of it.
// The count of the written bytes (WrittenResumeTokens) and an estimate
// made Over the first (an operation's) follow the same rule.
func TestResumeTokensThinkingByModel(t *testing.T) {
	models := []struct {
		id      string
		keepAll bool
	}{
		{"claude-haiku-4-5-20251001", false},
		{"claude-sonnet-4-5-20250929", false},
		{"claude-opus-4-1-20250805", false},
		{"claude-opus-4-5-20251101", true},
		{"claude-sonnet-4-6", true},
		{"claude-opus-4-7", true},
		{"claude-opus-5", true},
		{"claude-xyz-9", true},
		{"<synthetic>", true},
		{"", true},
	}
	sessions := []string{
		"../testdata/sessions/2.1.328/multi-turn.jsonl",
		"../testdata/sessions/2.0.50/multi-turn.jsonl",
		"../testdata/sessions/2.1.328/thinking-tool-loop.jsonl",
		"../testdata/sessions/2.0.50/thinking-tool-loop.jsonl",
	}
	for _, path := range sessions {
		doc, err := os.ReadFile(path)
		require.NoError(t, err)
		all := withModel(t, doc, "claude-opus-4-7")
		fAll, err := LoadBytes(path, all)
		require.NoError(t, err)
		full := fAll.ResumeTokens()
		require.Greater(t, full.Tokens[TokThinking], 0, "%s holds thinking", path)
		stripped, removed := withoutEarlierThinking(t, all)
		fStripped, err := LoadBytes(path, stripped)
		require.NoError(t, err)
		lastTurn := fStripped.ResumeTokens()
		require.Greater(t, lastTurn.Tokens[TokThinking], 0, "%s: its last turn thinks", path)
		for _, m := range models {
			name := path + " " + m.id
			b := withModel(t, doc, m.id)
			f, err := LoadBytes(path, b)
			require.NoError(t, err)
			est := f.ResumeTokens()
			want := full
			if !m.keepAll {
				want = lastTurn
			}
			require.Equal(t, want.Total(), est.Total(), "%s: the estimate (%d earlier thinking blocks)", name, removed)
			require.Equal(t, want.Tokens, est.Tokens, name)
			require.Equal(t, full.Tokens[TokThinking]-want.Tokens[TokThinking], est.ThinkingDropped, name)
			require.Equal(t, m.keepAll, est.Thinking.KeepAll, name)
			if m.id != "<synthetic>" {
				require.Equal(t, m.id, est.Model, name)
			}
			// the count of the bytes as written
			w, err := WrittenResumeTokens(path, 0, func(wr io.Writer) error { _, err := wr.Write(b); return err })
			require.NoError(t, err)
			require.Equal(t, est.Tokens, w.Tokens, "%s: written", name)
			// an operation's estimate: every entry estimated anew, as written
			changed := map[int]Tokens{}
			est.Each(func(i int, _ Tokens) {
				raw, err := f.Raw(i)
				require.NoError(t, err)
				changed[i] = EntryTokens(raw)
			})
			require.Equal(t, est.Tokens, est.Over(changed, nil).Tokens, "%s: Over", name)
			require.Equal(t, est.ThinkingDropped, est.Over(changed, nil).ThinkingDropped, "%s: Over", name)
		}
		if removed == 0 {
			t.Logf("%s: one turn: its thinking all counts", path)
		}
	}
}

// TestResumeTokensThinkingLastModel: the rule follows the last recorded
// model, not the first: a session begun with a model that keeps all and
// continued with one that keeps only the last turn drops the earlier
// turns' thinking, and the other way round counts it.
func TestResumeTokensThinkingLastModel(t *testing.T) {
	path := "../testdata/sessions/2.1.328/multi-turn.jsonl"
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.SplitAfter(doc, []byte("\n"))
	lastAsst := -1
	for k, line := range lines {
		if bytes.Contains(line, []byte(`"type":"assistant"`)) {
			lastAsst = k
		}
	}
	mixed := func(first, last string) []byte {
		var out bytes.Buffer
		for k, line := range lines {
			if bytes.Contains(line, []byte(`"type":"assistant"`)) {
				m := first
				if k == lastAsst {
					m = last
				}
				line, err = sjson.SetBytes(line, "message.model", m)
				require.NoError(t, err)
			}
			out.Write(line)
		}
		return out.Bytes()
	}
	for _, c := range []struct {
		first, last string
		keepAll     bool
	}{
		{"claude-opus-4-7", "claude-haiku-4-5-20251001", false},
		{"claude-haiku-4-5-20251001", "claude-opus-4-7", true},
		{"claude-haiku-4-5-20251001", "<synthetic>", false}, // the client's own answer names no model
	} {
		f, err := LoadBytes(path, mixed(c.first, c.last))
		require.NoError(t, err)
		est := f.ResumeTokens()
		require.Equal(t, c.keepAll, est.Thinking.KeepAll, "%s then %s", c.first, c.last)
		if c.last != "<synthetic>" {
			require.Equal(t, c.last, est.Model)
		} else {
			require.Equal(t, c.first, est.Model)
		}
		require.Equal(t, c.keepAll, est.ThinkingDropped == 0, "%s then %s: %d dropped", c.first, c.last, est.ThinkingDropped)
	}
}

// TestThinkingTurnOpeners: which user messages open a turn for the rule of
// a model that keeps only the last turn's thinking. A prompt does; tool
// results do not (the loop's thinking counts); a message the client adds
// itself (isMeta, sent with the tool results before it) does not either:
// undocumented, so counted (the side that counts more).
func TestThinkingTurnOpeners(t *testing.T) {
	const model = "claude-haiku-4-5-20251001"
	think := func(u, parent, text string) string {
		return `{"type":"assistant","uuid":"` + u + `","parentUuid":"` + parent + `","message":{"role":"assistant","model":"` + model + `","content":[{"type":"thinking","thinking":"` + text + `","signature":"s"},{"type":"tool_use","id":"t` + u + `","name":"Bash","input":{"command":"ls"}}]}}` + "\n"
	}
	prompt := func(u, parent, text string, meta bool) string {
		m := ""
		if meta {
			m = `"isMeta":true,`
		}
		return `{"type":"user",` + m + `"uuid":"` + u + `","parentUuid":"` + parent + `","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	result := func(u, parent string) string {
		return `{"type":"user","uuid":"` + u + `","parentUuid":"` + parent + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + parent + `","content":"ok"}]}}` + "\n"
	}
	long := "a careful thought about the task, long enough to be counted in tokens"
	for _, c := range []struct {
		name    string
		doc     string
		dropped int // thinking blocks of earlier turns
	}{
		{"a tool loop", prompt("p", "", "go", false) + think("a", "p", long) + result("r", "a") + think("b", "r", long), 0},
		{"a new prompt", prompt("p", "", "go", false) + think("a", "p", long) + result("r", "a") + prompt("q", "r", "again", false) + think("b", "q", long), 1},
		{"a message the client adds", prompt("p", "", "go", false) + think("a", "p", long) + result("r", "a") + prompt("m", "r", "skill text", true) + think("b", "m", long), 0},
	} {
		f, err := LoadBytes(c.name+".jsonl", []byte(c.doc))
		require.NoError(t, err)
		est := f.ResumeTokens()
		require.False(t, est.Thinking.KeepAll, c.name)
		all := est.Tokens[TokThinking] + est.ThinkingDropped
		require.Equal(t, c.dropped*all/2, est.ThinkingDropped, "%s: %d of 2 thinking blocks dropped", c.name, c.dropped)
	}
}
