//go:build experiments

// Experiments behind internal/harness/FINDINGS.md. Run: go test -tags experiments -run TestExp -v ./harness/
package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

type entry = map[string]any

func loadEntries(t *testing.T, path string) []entry {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []entry
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e entry
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		out = append(out, e)
	}
	return out
}

func encodeEntries(es []entry) []byte {
	var sb strings.Builder
	for _, e := range es {
		b, _ := json.Marshal(e)
		sb.Write(b)
		sb.WriteString("\n")
	}
	return []byte(sb.String())
}

func sess(t *testing.T, version, name string) (string, string) {
	root, _ := RepoRoot()
	p := filepath.Join(root, "testdata", "sessions", SessionsFolder(version), name+".jsonl")
	id, err := SessionIDOf(p)
	require.NoError(t, err)
	return p, id
}

func resumeEntries(t *testing.T, c Client, id string, es []entry) ResumeResult {
	e := NewEnv(t)
	e.InstallSessionBytes(t, id, encodeEntries(es))
	return e.Resume(t, c, id)
}

func str(e entry, k string) string { s, _ := e[k].(string); return s }

// deleteRelink removes entries matching pred; children of removed chain entries are
// re-linked to the removed entry's parent.
func deleteRelink(es []entry, pred func(entry) bool) []entry {
	parent := map[string]any{}
	for _, e := range es {
		if pred(e) && str(e, "uuid") != "" {
			parent[str(e, "uuid")] = e["parentUuid"]
		}
	}
	resolve := func(p any) any {
		for i := 0; i < 1000; i++ {
			ps, ok := p.(string)
			if !ok {
				return p
			}
			np, del := parent[ps]
			if !del {
				return p
			}
			p = np
		}
		return p
	}
	var out []entry
	for _, e := range es {
		if pred(e) {
			continue
		}
		if _, ok := e["parentUuid"]; ok {
			e["parentUuid"] = resolve(e["parentUuid"])
		}
		out = append(out, e)
	}
	return out
}

func TestExpLeafSelection(t *testing.T) {
	for _, c := range Clients(t) {
		p, id := sess(t, c.Sessions, "multi-turn")
		base := loadEntries(t, p)
		// Find the last human prompt entry ("Give one drawback.") and the entries after it.
		idx := -1
		for i, e := range base {
			if str(e, "type") == "user" && strings.Contains(fmt.Sprint(e["message"]), "Give one drawback.") {
				idx = i
			}
		}
		require.GreaterOrEqual(t, idx, 0)
		// Branch B: copies of the chain entries from idx on, fresh uuids, texts marked.
		mk := func(tsShift string) []entry {
			var out []entry
			ids := map[string]string{}
			for _, e := range base[idx:] {
				if str(e, "uuid") == "" {
					continue
				}
				b, _ := json.Marshal(e)
				s := strings.ReplaceAll(string(b), "Give one drawback.", "BRANCH-B prompt")
				s = strings.ReplaceAll(s, "A write cut short leaves a torn last line.", "BRANCH-B answer")
				var n entry
				_ = json.Unmarshal([]byte(s), &n)
				nu := uuid.NewString()
				ids[str(e, "uuid")] = nu
				n["uuid"] = nu
				if p, ok := ids[str(e, "parentUuid")]; ok {
					n["parentUuid"] = p
				}
				if tsShift != "" {
					n["timestamp"] = tsShift
				}
				out = append(out, n)
			}
			return out
		}
		which := func(r ResumeResult) string {
			b := string(r.Request.Body)
			a, bb := strings.Contains(b, "Give one drawback."), strings.Contains(b, "BRANCH-B prompt")
			return fmt.Sprintf("A=%v B=%v", a, bb)
		}
		later, earlier := "2099-01-01T00:00:00.000Z", "2000-01-01T00:00:00.000Z"
		cases := []struct {
			name string
			es   []entry
		}{
			{"B appended after A, B newer", append(append([]entry{}, base...), mk(later)...)},
			{"B appended after A, B older", append(append([]entry{}, base...), mk(earlier)...)},
			{"B inserted before A, B newer", append(append(append([]entry{}, base[:idx]...), mk(later)...), base[idx:]...)},
			{"B inserted before A, B older", append(append(append([]entry{}, base[:idx]...), mk(earlier)...), base[idx:]...)},
		}
		for _, tc := range cases {
			r := resumeEntries(t, c, id, tc.es)
			noLP := deleteRelink(append([]entry{}, tc.es...), func(e entry) bool { return str(e, "type") == "last-prompt" })
			r2 := resumeEntries(t, c, id, noLP)
			t.Logf("LEAF %s | %s: %s | without last-prompt: %s", c.Version, tc.name, which(r), which(r2))
		}
	}
}

func TestExpParallelTools(t *testing.T) {
	for _, c := range Clients(t) {
		p, id := sess(t, c.Sessions, "parallel-tools")
		es := loadEntries(t, p)
		for _, e := range es {
			if t := str(e, "type"); t == "user" || t == "assistant" {
				fmt.Printf("PAR %s %s uuid=%.8s parent=%.8s %v\n", c.Version, t, str(e, "uuid"), str(e, "parentUuid"), blockTypes(e))
			}
		}
		r := resumeEntries(t, c, id, es)
		t.Logf("PARALLEL %s ok=%v\n%s", c.Version, r.OK(), MessageSummary(r.Messages))
	}
}

func blockTypes(e entry) string {
	m, _ := e["message"].(map[string]any)
	switch c := m["content"].(type) {
	case string:
		return "str"
	case []any:
		var s []string
		for _, b := range c {
			bm, _ := b.(map[string]any)
			s = append(s, fmt.Sprint(bm["type"]))
		}
		return strings.Join(s, ",")
	}
	return ""
}

func TestExpDeleteMetadata(t *testing.T) {
	drop := map[string]bool{"progress": true, "file-history-snapshot": true, "file-history-delta": true, "queue-operation": true,
		"last-prompt": true, "attachment": true, "api-request": true, "api-request-shape": true, "api-request-blob": true,
		"atis-latch": true, "cost-state": true, "mode": true, "permission-mode": true, "tools-used": true}
	for _, c := range Clients(t) {
		for _, name := range []string{"tools", "compact", "subagent", "thinking-tool-loop"} {
			p, id := sess(t, c.Sessions, name)
			es := loadEntries(t, p)
			e := NewEnv(t)
			e.InstallSessionBytes(t, id, encodeEntries(es))
			r0 := e.Resume(t, c, id)
			n := NewNormalizer(e, id)
			for typ := range drop {
				cnt := 0
				for _, x := range es {
					if str(x, "type") == typ {
						cnt++
					}
				}
				if cnt == 0 {
					continue
				}
				es2 := deleteRelink(loadEntries(t, p), func(x entry) bool { return str(x, "type") == typ })
				e.InstallSessionBytes(t, id, encodeEntries(es2))
				r := e.Resume(t, c, id)
				d := n.DiffMessages(r0.Messages, r.Messages)
				t.Logf("DEL %s %s drop %s (%d): ok=%v same=%v %s", c.Version, name, typ, cnt, r.OK(), d == "", firstLine(d))
			}
			es3 := deleteRelink(loadEntries(t, p), func(x entry) bool {
				return str(x, "type") == "system" && str(x, "subtype") == "turn_duration"
			})
			e.InstallSessionBytes(t, id, encodeEntries(es3))
			r := e.Resume(t, c, id)
			d := n.DiffMessages(r0.Messages, r.Messages)
			t.Logf("DEL %s %s drop system/turn_duration: ok=%v same=%v %s", c.Version, name, r.OK(), d == "", firstLine(d))
			esAll := deleteRelink(loadEntries(t, p), func(x entry) bool {
				return drop[str(x, "type")] || (str(x, "type") == "system" && str(x, "subtype") == "turn_duration")
			})
			e.InstallSessionBytes(t, id, encodeEntries(esAll))
			r = e.Resume(t, c, id)
			d = n.DiffMessages(r0.Messages, r.Messages)
			t.Logf("DEL %s %s drop ALL: ok=%v same=%v\n%s", c.Version, name, r.OK(), d == "", truncate(d, 3000))
		}
	}
}

func firstLine(s string) string {
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func TestExpBroken(t *testing.T) {
	for _, c := range Clients(t) {
		// Dangling parentUuid on the 2nd human prompt.
		p, id := sess(t, c.Sessions, "multi-turn")
		es := loadEntries(t, p)
		for _, e := range es {
			if str(e, "type") == "user" && strings.Contains(fmt.Sprint(e["message"]), "Why do session logs use it?") {
				e["parentUuid"] = uuid.NewString()
			}
		}
		r := resumeEntries(t, c, id, es)
		t.Logf("DANGLING %s ok=%v %v\n%s", c.Version, r.OK(), r.Violations, MessageSummary(r.Messages))

		// Compact session.
		p, id = sess(t, c.Sessions, "compact")
		r = resumeEntries(t, c, id, loadEntries(t, p))
		t.Logf("COMPACT %s ok=%v\n%s", c.Version, r.OK(), MessageSummary(r.Messages))

		// tool_result whose tool_use is missing: delete the assistant tool_use entry
		// (children re-linked to its parent).
		p, id = sess(t, c.Sessions, "tools")
		es = loadEntries(t, p)
		var victim string
		for _, e := range es {
			if str(e, "type") == "assistant" && strings.Contains(fmt.Sprint(e["message"]), "hello from bash") {
				victim = str(e, "uuid")
			}
		}
		require.NotEmpty(t, victim)
		es = deleteRelink(es, func(e entry) bool { return str(e, "uuid") == victim })
		r = resumeEntries(t, c, id, es)
		t.Logf("ORPHAN-RESULT %s ok=%v %v\n%s", c.Version, r.OK(), r.Violations, MessageSummary(r.Messages))

		// tool_use whose tool_result is missing (result entry deleted, children re-linked).
		es = loadEntries(t, p)
		var res string
		for _, e := range es {
			if str(e, "type") == "user" && strings.Contains(fmt.Sprint(e["message"]), "hello from bash") {
				res = str(e, "uuid")
			}
		}
		es = deleteRelink(es, func(e entry) bool { return str(e, "uuid") == res })
		r = resumeEntries(t, c, id, es)
		t.Logf("MISSING-RESULT %s ok=%v %v\n%s", c.Version, r.OK(), r.Violations, MessageSummary(r.Messages))
	}
}

func TestExpAttachments(t *testing.T) {
	for _, c := range Clients(t) {
		p, id := sess(t, c.Sessions, "tools")
		r := resumeEntries(t, c, id, loadEntries(t, p))
		for i, m := range r.Messages {
			s := string(m)
			if strings.Contains(s, "system-reminder") || strings.Contains(s, `"role":"system"`) {
				t.Logf("ATT %s msg %d: %s", c.Version, i, truncate(s, 400))
			}
		}
		for _, e := range loadEntries(t, p) {
			if e["isMeta"] == true {
				t.Logf("ISMETA %s entry: %s", c.Version, truncate(fmt.Sprint(e["message"]), 300))
			}
		}
	}
}
