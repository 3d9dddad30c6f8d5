package harness

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMockContextLimit: the mock has no context window unless one is set;
// with one, a request over it is refused as the Messages API refuses it
// (400, invalid_request_error, the wording 2.1.332 matches with
// /^prompt is too long: \d+ tokens > \d+ maximum$/ and 2.0.50 with
// includes("prompt is too long")), one at it is answered, and the count is
// the caller's.
func TestMockContextLimit(t *testing.T) {
	m := NewMockServer(t)
	post := func(text string) (int, map[string]any) {
		body, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 10,
			"messages": []any{map[string]any{"role": "user", "content": text}}})
		resp, err := http.Post(m.URL+"/v1/messages", "application/json", strings.NewReader(string(body)))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v), "%s", b)
		return resp.StatusCode, v
	}
	big := strings.Repeat("x", 4000)
	code, _ := post(big)
	assert.Equal(t, 200, code, "no limit by default")

	// the count: a token per character of the messages
	m.SetContextLimit(1000, func(r *RecordedRequest) int {
		n := 0
		for _, msg := range r.Messages() {
			var v struct{ Content string }
			_ = json.Unmarshal(msg, &v)
			n += len(v.Content)
		}
		return n
	})
	code, v := post(big)
	require.Equal(t, 400, code)
	e, _ := v["error"].(map[string]any)
	assert.Equal(t, "error", v["type"])
	assert.Equal(t, "invalid_request_error", e["type"])
	assert.Equal(t, "prompt is too long: 4000 tokens > 1000 maximum", e["message"])
	assert.Regexp(t, regexp.MustCompile(`^prompt is too long: \d+ tokens > \d+ maximum$`), e["message"])
	rs := m.Requests()
	assert.Equal(t, 400, rs[len(rs)-1].Status, "recorded as refused")

	code, _ = post(strings.Repeat("x", 1000))
	assert.Equal(t, 200, code, "at the window")

	m.SetContextLimit(0, nil)
	code, _ = post(big)
	assert.Equal(t, 200, code, "removed")
}
