package ops_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// agenticOpts shapes a generated agentic session: a few prompts, each
// answered through many tool calls (the shape issue 16 reports: all the
// bloat inside the last three prompts), with progress entries.
type agenticOpts struct {
	Prompts     int // human prompts
	Exchanges   int // tool exchanges per prompt
	ResultBytes int // average tool output size
	// TooLong appends failed retries at the end: a prompt answered by the
	// synthetic "Prompt is too long" error entry the client writes.
	TooLong int
	Seed    int64
	// MockUsage: each response records the usage the harness's mock
	// reports (input_tokens 100 + the request's bytes / 100, the request
	// being the system prompt and tools, taken as 60 KB, and the messages
	// so far), not the template's fixed figure: too small to measure the
	// system prompt by on the first responses, large enough on the later
	// ones of a session of long tool output (the new user's session of
	// issue 30, made by 2.1.332 against the mock).
	MockUsage bool
}

// agenticSession writes such a session for a client version into dir and
// returns its path. The entries are those the real client wrote in
// testdata/sessions/<version>/tools.jsonl (a prompt, a Bash call, its
// result, an answer) with new ids and content; progress entries follow
// the shape 2.1.x writes (hook progress after a result, in the chain, and
// tool progress as dead ends under the call; 2.0.x only the dead ends).
func agenticSession(t testing.TB, version, dir string, o agenticOpts) string {
	t.Helper()
	tpl := agenticTemplates(t, version)
	rng := rand.New(rand.NewSource(o.Seed))
	sid := uuid.NewString()
	ts := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	parent := ""
	n := 0
	sent := 60_000 // the request's bytes so far (MockUsage)
	write := func(e map[string]any) {
		ts = ts.Add(time.Second)
		if m, ok := e["message"].(map[string]any); ok {
			if o.MockUsage && e["type"] == "assistant" && m["model"] != "<synthetic>" {
				m["usage"] = map[string]any{"input_tokens": 100 + sent/100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
			}
			b, err := json.Marshal(m["content"])
			require.NoError(t, err)
			sent += len(b)
		}
		e["sessionId"] = sid
		e["timestamp"] = ts.Format("2006-01-02T15:04:05.000Z")
		b, err := json.Marshal(e)
		require.NoError(t, err)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	chainEntry := func(e map[string]any) string {
		id := uuid.NewString()
		e["uuid"] = id
		if parent == "" {
			e["parentUuid"] = nil
		} else {
			e["parentUuid"] = parent
		}
		write(e)
		parent = id
		return id
	}
	prompt := func(text string) string {
		e := clone(tpl.prompt)
		e["message"] = map[string]any{"role": "user", "content": text}
		e["promptId"] = uuid.NewString()
		return chainEntry(e)
	}
	for p := 0; p < o.Prompts; p++ {
		prompt(fmt.Sprintf("Part %d: go through the services, fix every failing test and tell me what changed.", p+1))
		for x := 0; x < o.Exchanges; x++ {
			n++
			toolID := fmt.Sprintf("toolu_gen%020d", n)
			a := clone(tpl.call)
			msg := a["message"].(map[string]any)
			msg["id"] = fmt.Sprintf("msg_gen%020d", n)
			cmd := fmt.Sprintf("go test ./service%d/... -run Test%s -v", x%17, word(rng))
			msg["content"] = []any{map[string]any{"type": "tool_use", "id": toolID, "name": "Bash",
				"input": map[string]any{"command": cmd, "description": "run the tests of service " + fmt.Sprint(x%17)}}}
			delete(a, "requestRef")
			callID := chainEntry(a)
			for k := 0; k < 2; k++ { // tool progress: dead ends under the call
				write(map[string]any{"parentUuid": callID, "isSidechain": false, "userType": "external", "cwd": tpl.cwd,
					"version": version, "gitBranch": "", "type": "progress", "uuid": uuid.NewString(),
					"data":            map[string]any{"type": "bash_progress", "output": strings.Repeat("running… ", 8), "elapsedTimeSeconds": k + 1},
					"toolUseID":       toolID,
					"parentToolUseID": toolID})
			}
			out := toolOutput(rng, o.ResultBytes/2+rng.Intn(o.ResultBytes+1))
			r := clone(tpl.result)
			r["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": toolID, "type": "tool_result", "content": out, "is_error": false}}}
			r["toolUseResult"] = map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
			if _, ok := r["sourceToolAssistantUUID"]; ok {
				r["sourceToolAssistantUUID"] = callID
			}
			chainEntry(r)
			if strings.HasPrefix(version, "2.0.") {
				continue // 2.0.x knows no progress in the chain: it would lose the history above
			}
			// hook progress after the result, in the chain (2.1.x)
			chainEntry(map[string]any{"isSidechain": false, "userType": "external", "cwd": tpl.cwd, "version": version,
				"gitBranch": "", "type": "progress", "toolUseID": toolID, "parentToolUseID": toolID,
				"data": map[string]any{"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Bash", "command": "callback"}})
		}
		n++
		a := clone(tpl.answer)
		msg := a["message"].(map[string]any)
		msg["id"] = fmt.Sprintf("msg_gen%020d", n)
		msg["content"] = []any{map[string]any{"type": "text", "text": fmt.Sprintf("Part %d is done: %d test runs, the failures were in the retry logic of service %d and are fixed.", p+1, o.Exchanges, p)}}
		delete(a, "requestRef")
		chainEntry(a)
	}
	for k := 0; k < o.TooLong; k++ {
		prompt("continue")
		n++
		a := clone(tpl.answer)
		a["message"] = map[string]any{"id": uuid.NewString(), "type": "message", "role": "assistant", "model": "<synthetic>",
			"stop_reason": "stop_sequence", "stop_sequence": "", "content": []any{map[string]any{"type": "text", "text": "Prompt is too long"}},
			"usage": map[string]any{"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
		a["isApiErrorMessage"] = true
		delete(a, "requestRef")
		delete(a, "requestId")
		chainEntry(a)
	}
	path := filepath.Join(dir, sid+".jsonl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path
}

type agenticTpl struct {
	prompt, call, result, answer map[string]any
	cwd                          string
}

func agenticTemplates(t testing.TB, version string) agenticTpl {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", harness.SessionsFolder(version), "tools.jsonl"))
	require.NoError(t, err)
	var tpl agenticTpl
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		m, _ := e["message"].(map[string]any)
		if m == nil {
			continue
		}
		first := ""
		if c, ok := m["content"].([]any); ok && len(c) > 0 {
			first, _ = c[0].(map[string]any)["type"].(string)
		} else if _, ok := m["content"].(string); ok {
			first = "string"
		}
		switch {
		case e["type"] == "user" && first == "string" && tpl.prompt == nil:
			tpl.prompt = e
			tpl.cwd, _ = e["cwd"].(string)
		case e["type"] == "assistant" && first == "tool_use" && tpl.call == nil:
			tpl.call = e
		case e["type"] == "user" && first == "tool_result" && tpl.result == nil:
			tpl.result = e
		case e["type"] == "assistant" && first == "text" && tpl.answer == nil:
			tpl.answer = e
		}
	}
	require.True(t, tpl.prompt != nil && tpl.call != nil && tpl.result != nil && tpl.answer != nil, "templates of %s", version)
	return tpl
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

var words = strings.Fields("retry backoff timeout handler queue worker cache lease token shard replica index cursor batch flush commit")

func word(rng *rand.Rand) string {
	w := words[rng.Intn(len(words))]
	return strings.ToUpper(w[:1]) + w[1:]
}

// toolOutput is test-log-like text of about n bytes.
func toolOutput(rng *rand.Rand, n int) string {
	var b strings.Builder
	for line := 1; b.Len() < n; line++ {
		switch rng.Intn(4) {
		case 0:
			fmt.Fprintf(&b, "=== RUN   Test%s%s/case_%d\n", word(rng), word(rng), rng.Intn(100))
		case 1:
			fmt.Fprintf(&b, "    %s_test.go:%d: %s %s: got %d, want %d\n", words[rng.Intn(len(words))], rng.Intn(400), word(rng), words[rng.Intn(len(words))], rng.Intn(1000), rng.Intn(1000))
		case 2:
			fmt.Fprintf(&b, "--- PASS: Test%s%s (%.2fs)\n", word(rng), word(rng), rng.Float64())
		default:
			fmt.Fprintf(&b, "ok  \tgithub.com/example/service%d/%s\t%.3fs\n", rng.Intn(17), words[rng.Intn(len(words))], rng.Float64()*3)
		}
	}
	return b.String()
}
