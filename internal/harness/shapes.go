package harness

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Shapes the clients write that the generated sessions do not hold, made by
// transforming a real generated session the way the client would have
// written it (FORMAT.md, "Seen in real sessions of many versions").

// NowhereUUID is a uuid that names no entry of any test session.
const NowhereUUID = "0e0e0e0e-dead-4bee-8f00-000000000000"

// eachLine calls fn with every line of a JSONL file (without its "\n")
// and joins what fn returns.
func eachLine(data []byte, fn func(k int, line []byte) []byte) []byte {
	var out bytes.Buffer
	lines := bytes.SplitAfter(data, []byte("\n"))
	for k, l := range lines {
		if len(l) == 0 {
			continue
		}
		nl := bytes.HasSuffix(l, []byte("\n"))
		l = bytes.TrimSuffix(l, []byte("\n"))
		out.Write(fn(k, l))
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

func mustSet(line []byte, path string, v any) []byte {
	out, err := sjson.SetBytes(line, path, v)
	if err != nil {
		panic(fmt.Sprintf("harness: set %s: %v", path, err))
	}
	return out
}

// UnlinkCompactions makes every compact_boundary's logicalParentUuid name
// no entry (seen in 2.1.39 sessions): the turns before the compaction stay
// in the file, unlinked.
func UnlinkCompactions(data []byte) []byte {
	return eachLine(data, func(_ int, l []byte) []byte {
		if gjson.GetBytes(l, "subtype").Str == "compact_boundary" && gjson.GetBytes(l, "logicalParentUuid").Str != "" {
			return mustSet(l, "logicalParentUuid", NowhereUUID)
		}
		return l
	})
}

// ContinuedFrom makes the session's first chain entry name prev, an entry
// of the file the session continued from, as its parentUuid.
func ContinuedFrom(data []byte, prev string) []byte {
	done := false
	return eachLine(data, func(_ int, l []byte) []byte {
		if done || gjson.GetBytes(l, "uuid").Str == "" {
			return l
		}
		done = true
		return mustSet(l, "parentUuid", prev)
	})
}

// LastUUID returns the uuid of the last chain entry of a file.
func LastUUID(data []byte) string {
	id := ""
	eachLine(data, func(_ int, l []byte) []byte {
		if u := gjson.GetBytes(l, "uuid").Str; u != "" {
			id = u
		}
		return l
	})
	return id
}

// CompactionAgent returns the transcript of the agent that wrote the
// summary of the session's first compaction, as 2.1.x keeps it in
// <session>/subagents/agent-acompact-<hex>.jsonl: its first entry's
// parentUuid names the main session's last entry before the compaction,
// then the summary request and the summary. name is the file name; ok is
// false when the session has no compaction.
func CompactionAgent(data []byte) (name string, agent []byte, ok bool) {
	var boundary, summary gjson.Result
	eachLine(data, func(_ int, l []byte) []byte {
		r := gjson.ParseBytes(l)
		if !boundary.Exists() && r.Get("subtype").Str == "compact_boundary" {
			boundary = r
		}
		if boundary.Exists() && !summary.Exists() && r.Get("isCompactSummary").Bool() {
			summary = r
		}
		return l
	})
	if !boundary.Exists() || !summary.Exists() {
		return "", nil, false
	}
	const hex = "acompact-5e1f0c4d2b3a6978"
	sid := boundary.Get("sessionId").Str
	base := func(uuid, parent, typ, ts string) []byte {
		l := []byte(`{}`)
		l = mustSet(l, "parentUuid", parent)
		l = mustSet(l, "isSidechain", true)
		l = mustSet(l, "userType", "external")
		l = mustSet(l, "cwd", boundary.Get("cwd").Str)
		l = mustSet(l, "sessionId", sid)
		l = mustSet(l, "version", boundary.Get("version").Str)
		l = mustSet(l, "agentId", hex)
		l = mustSet(l, "type", typ)
		l = mustSet(l, "uuid", uuid)
		return mustSet(l, "timestamp", ts)
	}
	ts := boundary.Get("timestamp").Str
	req := base("ac000000-0000-4000-8000-000000000001", boundary.Get("logicalParentUuid").Str, "user", ts)
	req = mustSet(req, "message", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text",
		"text": "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests."}}})
	ans := base("ac000000-0000-4000-8000-000000000002", "ac000000-0000-4000-8000-000000000001", "assistant", ts)
	text := summary.Get("message.content").Str
	if text == "" {
		text = summary.Get("message.content.0.text").Str
	}
	ans = mustSet(ans, "message", map[string]any{"id": "msg_acompact01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn"})
	return "agent-" + hex + ".jsonl", append(append(append(req, '\n'), ans...), '\n'), true
}
