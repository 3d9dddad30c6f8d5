package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPreservedSegmentOnThePathIsSentOnce: a compact boundary's
// preserved segment (2.1.x) is inserted after its anchor; in a damaged
// file the entries it names are on the path already (they hang below the
// boundary). Each entry is one message of the resume: counted twice, a
// cut of it changed info's count of the written file by twice what the
// compression reported (its figure is not info's). The figure compress
// prints of the file it wrote is info's count of that file, and each
// entry counts once: the figure is that of the same file without the
// segment's record.
func TestAPreservedSegmentOnThePathIsSentOnce(t *testing.T) {
	dir := t.TempDir()
	const sid = "11111111-2222-4333-8444-555555555555"
	id := func(p string) string { return p + strings.Repeat("0", 8-len(p)) + "-0000-4000-8000-000000000000" }
	entry := func(uuid, parent, typ string, content any) map[string]any {
		m := map[string]any{"role": typ, "content": content}
		if typ == "assistant" {
			m["id"], m["model"], m["type"] = "msg_"+uuid, "claude-sonnet-4-5", "message"
		}
		return map[string]any{"type": typ, "uuid": id(uuid), "parentUuid": id(parent), "sessionId": sid, "cwd": "/tmp/p",
			"timestamp": "2026-01-01T00:00:00Z", "version": "2.1.332", "message": m}
	}
	write := func(name string, preserved bool) string {
		meta := map[string]any{"trigger": "manual", "preTokens": 100}
		if preserved {
			meta["preservedSegment"] = map[string]any{"headUuid": id("u1"), "tailUuid": id("r1"), "anchorUuid": id("b0")}
		}
		lines := []map[string]any{
			{"type": "system", "subtype": "compact_boundary", "uuid": id("b0"), "parentUuid": nil, "sessionId": sid,
				"timestamp": "2026-01-01T00:00:00Z", "content": "Conversation compacted", "compactMetadata": meta},
			entry("u1", "b0", "user", "first"),
			entry("a1", "u1", "assistant", []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "ls"}}}),
			entry("r1", "a1", "user", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": strings.Repeat("output line\n", 500)}}),
			entry("a2", "r1", "assistant", []any{map[string]any{"type": "text", "text": "done"}}),
			entry("u2", "a2", "user", "second"),
			entry("a3", "u2", "assistant", []any{map[string]any{"type": "text", "text": "ok"}}),
		}
		var b strings.Builder
		for _, l := range lines {
			j, err := json.Marshal(l)
			require.NoError(t, err)
			b.Write(j)
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o600))
		return p
	}
	type written struct {
		ResumeTokens struct{ Before, After int } `json:"resume_tokens"`
	}
	compress := func(src string) (before, after, info int) {
		out := src + ".out.jsonl"
		stdout, stderr, code := cliRun(t, "compress-old-turns", src, "--keep-turns", "1", "--max-result", "1KB", "--json", "-o", out)
		require.Equal(t, 0, code, stderr)
		var w written
		require.NoError(t, json.Unmarshal([]byte(stdout), &w), stdout)
		stdout, stderr, code = cliRun(t, "info", out, "--json")
		require.Equal(t, 0, code, stderr)
		var i struct {
			ResumeTokens int `json:"resume_tokens"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &i), stdout)
		return w.ResumeTokens.Before, w.ResumeTokens.After, i.ResumeTokens
	}
	pb, pa, pi := compress(write("plain.jsonl", false))
	require.Equal(t, pa, pi, "without the segment's record: the figure is info's")
	require.Less(t, pa, pb, "a cut was made")
	sb, sa, si := compress(write(sid+".jsonl", true))
	assert.Equal(t, sa, si, "the figure compress printed of the file it wrote is info's count of it")
	assert.Equal(t, pb, sb, "each entry counts once: the segment on the path adds nothing (before)")
	assert.Equal(t, pa, sa, "each entry counts once: the segment on the path adds nothing (after)")
}
