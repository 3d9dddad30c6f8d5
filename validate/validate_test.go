package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sid = "11111111-1111-1111-1111-111111111111"

func u(n int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", n) }

func user(n, parent int, content string) string {
	p := "null"
	if parent > 0 {
		p = `"` + u(parent) + `"`
	}
	return fmt.Sprintf(`{"parentUuid":%s,"type":"user","message":{"role":"user","content":%s},"uuid":"%s","sessionId":"%s","timestamp":"2026-01-01T00:00:%02dZ"}`, p, content, u(n), sid, n)
}

func asst(n, parent int, msgID, content string) string {
	return fmt.Sprintf(`{"parentUuid":"%s","type":"assistant","message":{"id":"%s","role":"assistant","content":%s},"uuid":"%s","sessionId":"%s","timestamp":"2026-01-01T00:00:%02dZ"}`, u(parent), msgID, content, u(n), sid, n)
}

const (
	text    = `[{"type":"text","text":"hi"}]`
	useA    = `[{"type":"tool_use","id":"toolu_A","name":"Bash","input":{}}]`
	resultA = `[{"type":"tool_result","tool_use_id":"toolu_A","content":"ok"}]`
	resultB = `[{"type":"tool_result","tool_use_id":"toolu_B","content":"ok"}]`
)

// TestValidate: each broken shape is an error of the right code on the
// right line; healthy shapes validate.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		torn  bool // no final newline
		code  string
		line  int
	}{
		{"healthy", []string{user(1, 0, `"hello"`), asst(2, 1, "m1", text)}, false, "", 0},
		{"healthy tool call", []string{user(1, 0, `"run"`), asst(2, 1, "m1", useA), user(3, 2, resultA), asst(4, 3, "m2", text)}, false, "", 0},
		{"not json", []string{user(1, 0, `"hello"`), `{"type":"user",`, asst(2, 1, "m1", text)}, false, "invalid-json", 2},
		{"torn final line", []string{user(1, 0, `"hello"`), asst(2, 1, "m1", text), `{"type":"assi`}, true, "torn-final-line", 3},
		{"duplicate uuid", []string{user(1, 0, `"hello"`), asst(2, 1, "m1", text), asst(2, 1, "m1", text)}, false, "duplicate-uuid", 3},
		{"dangling parent", []string{user(1, 0, `"hello"`), asst(2, 9, "m1", text)}, false, "dangling-parent", 2},
		{"self parent", []string{user(1, 0, `"hello"`), asst(2, 2, "m1", text)}, false, "self-parent", 2},
		{"tool_use without result", []string{user(1, 0, `"run"`), asst(2, 1, "m1", useA), user(3, 2, `"next"`), asst(4, 3, "m2", text)}, false, "tool-use-without-result", 2},
		{"result without tool_use", []string{user(1, 0, `"run"`), asst(2, 1, "m1", text), user(3, 2, resultB), asst(4, 3, "m2", text)}, false, "tool-result-without-use", 3},
		{"empty content", []string{user(1, 0, `""`), asst(2, 1, "m1", text)}, false, "empty-content", 1},
		{"empty text block", []string{user(1, 0, `"hi"`), asst(2, 1, "m1", `[{"type":"text","text":""}]`), user(3, 2, `"again"`), asst(4, 3, "m2", text)}, false, "empty-text-block", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Join(tc.lines, "\n")
			if !tc.torn {
				doc += "\n"
			}
			f, err := chain.LoadBytes("/p/"+sid+".jsonl", []byte(doc))
			require.NoError(t, err)
			ps := File(f, sid)
			var errs []Problem
			for _, p := range ps {
				if p.Severity == Error {
					errs = append(errs, p)
				}
			}
			if tc.code == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs, "expected %s", tc.code)
			found := false
			for _, p := range errs {
				if p.Code == tc.code {
					found = true
					assert.Equal(t, tc.line, p.Line, "%s on the wrong line", tc.code)
					assert.Contains(t, p.String(), fmt.Sprintf(":%d: error: ", tc.line))
				}
			}
			assert.True(t, found, "no %s among %v", tc.code, errs)
		})
	}
}

// TestParentCycleTerminates: a cycle is reported and nothing loops.
func TestParentCycleTerminates(t *testing.T) {
	doc := asst(1, 2, "m1", text) + "\n" + asst(2, 1, "m2", text) + "\n"
	f, err := chain.LoadBytes("/p/"+sid+".jsonl", []byte(doc))
	require.NoError(t, err)
	ps := File(f, sid)
	codes := map[string]bool{}
	for _, p := range ps {
		codes[p.Code] = true
	}
	assert.True(t, codes["parent-cycle"])
}

func TestIntroducedCountsByCode(t *testing.T) {
	before := Report{Problems: []Problem{{Severity: Error, Code: "dangling-parent"}}}
	after := Report{Problems: []Problem{{Severity: Error, Code: "dangling-parent"}, {Severity: Error, Code: "dangling-parent"}, {Severity: Warning, Code: "bom"}}}
	assert.Len(t, Introduced(before, after), 1)
	assert.Empty(t, Introduced(after, before))
}

func TestHealthyGeneratedSessions(t *testing.T) {
	for _, v := range []string{"2.1.328", "2.0.50"} {
		for _, name := range []string{"multi-turn", "tools", "parallel-tools", "subagent", "compact", "secrets", "thinking-tool-loop"} {
			s, err := chain.Load("../testdata/sessions/" + v + "/" + name + ".jsonl")
			require.NoError(t, err)
			r := Session(s)
			s.Close()
			assert.True(t, r.Valid(), "%s/%s: %v", v, name, r.Problems)
		}
	}
}
