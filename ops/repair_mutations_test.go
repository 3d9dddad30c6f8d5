package ops

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// mutation damages a session in one way validate detects; it returns nil
// when the session has nothing to damage that way.
type mutation struct {
	code string // the error validate reports on the result
	fn   func(f *chain.File, lines [][]byte) [][]byte
}

func sessionLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, append([]byte(nil), l...))
		}
	}
	return out
}

func setLine(l []byte, path string, v any) []byte {
	nl := bytes.HasSuffix(l, []byte("\n"))
	out, err := sjson.SetBytes(bytes.TrimSuffix(l, []byte("\n")), path, v)
	if err != nil {
		panic(err)
	}
	if nl {
		out = append(out, '\n')
	}
	return out
}

func insertAfter(lines [][]byte, i int, l []byte) [][]byte {
	out := append([][]byte(nil), lines[:i+1]...)
	out = append(out, l)
	return append(out, lines[i+1:]...)
}

// activeWith returns the entries of the active path that match.
func activeWith(f *chain.File, match func(e *chain.Entry) bool) []int {
	var out []int
	for _, i := range f.Graph().ActivePath().Entries {
		if match(&f.Entries[i]) {
			out = append(out, i)
		}
	}
	return out
}

// relinkDrop removes line i and gives its children its parent, as a tool
// that deletes an entry does.
func relinkDrop(f *chain.File, lines [][]byte, i int) [][]byte {
	e := &f.Entries[i]
	var out [][]byte
	for k, l := range lines {
		if k == i {
			continue
		}
		if f.Entries[k].IsChain() && f.Entries[k].ParentUUID() == e.UUID() && e.UUID() != "" {
			if e.HasParent() {
				l = setLine(l, "parentUuid", e.ParentUUID())
			} else {
				l = setLine(l, "parentUuid", nil)
			}
		}
		out = append(out, l)
	}
	return out
}

var mutations = map[string]mutation{
	"comment-line-on-top": {"invalid-json", func(f *chain.File, lines [][]byte) [][]byte {
		return append([][]byte{[]byte("# exported from my machine\n")}, lines...)
	}},
	"torn-final-line": {"torn-final-line", func(f *chain.File, lines [][]byte) [][]byte {
		last := bytes.TrimSuffix(lines[len(lines)-1], []byte("\n"))
		return append(lines, last[:len(last)/2])
	}},
	// a write cut short (a crash), then the client's next write on the
	// same line: the client skips the line, the whole entry with it
	"write-cut-then-next-on-its-line": {"invalid-json", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) < 2 || ts[1].Compacted || ts[1].Entry == 0 {
			return nil
		}
		i := ts[1].Entry
		prev := bytes.TrimSuffix(lines[i-1], []byte("\n"))
		lines[i] = append(append([]byte(nil), prev[:len(prev)*3/5]...), lines[i]...)
		return lines
	}},
	"identical-copy": {"duplicate-uuid", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) == 0 {
			return nil
		}
		return insertAfter(lines, ts[0].Entry, lines[ts[0].Entry])
	}},
	"different-copy": {"duplicate-uuid", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) == 0 {
			return nil
		}
		return insertAfter(lines, ts[0].Entry, setLine(lines[ts[0].Entry], "timestamp", "2026-11-23T00:00:00.000Z"))
	}},
	"dangling-parent": {"dangling-parent", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) < 2 || ts[1].Compacted != ts[0].Compacted {
			return nil
		}
		lines[ts[1].Entry] = setLine(lines[ts[1].Entry], "parentUuid", harness.NowhereUUID)
		return lines
	}},
	"self-parent": {"self-parent", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.Type() == "assistant" })
		if len(p) == 0 {
			return nil
		}
		lines[p[0]] = setLine(lines[p[0]], "parentUuid", f.Entries[p[0]].UUID())
		return lines
	}},
	"parent-cycle": {"parent-cycle", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns()
		if len(ts.List) < 2 || ts.List[1].Compacted {
			return nil
		}
		later := ts.History[ts.List[1].Last]
		if later == ts.List[1].Entry {
			return nil
		}
		lines[ts.List[1].Entry] = setLine(lines[ts.List[1].Entry], "parentUuid", f.Entries[later].UUID())
		return lines
	}},
	"tool-use-entry-deleted": {"tool-result-without-use", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return len(e.ToolUseIDs()) > 0 })
		if len(p) == 0 {
			return nil
		}
		return relinkDrop(f, lines, p[len(p)-1])
	}},
	"tool-result-entry-deleted": {"tool-use-without-result", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.IsToolResult() })
		if len(p) == 0 {
			return nil
		}
		return relinkDrop(f, lines, p[0])
	}},
	"result-twice": {"duplicate-tool-result", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.IsToolResult() })
		if len(p) == 0 {
			return nil
		}
		return insertAfter(lines, p[0], setLine(lines[p[0]], "uuid", harness.NowhereUUID))
	}},
	// a call whose result is in another branch: the result hangs off the
	// call's parent, beside the call, and the conversation goes on from
	// the result (where the call's message has a part above the result,
	// the newest client still sends the call with it; 2.0.50 does not)
	"result-in-other-branch": {"result-beside-call", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.IsToolResult() })
		if len(p) == 0 {
			return nil
		}
		r := p[0]
		var use = -1
		for i := range f.Entries {
			if f.Entries[i].UUID() == f.Entries[r].ParentUUID() && f.Entries[r].ParentUUID() != "" {
				use = i
			}
		}
		if use < 0 || !f.Entries[use].HasParent() {
			return nil
		}
		lines[r] = setLine(lines[r], "parentUuid", f.Entries[use].ParentUUID())
		return lines
	}},
	"empty-text-block": {"empty-text-block", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.Type() == "assistant" && e.HasBlock(chain.BlockText) })
		if len(p) < 2 {
			return nil
		}
		k := -1
		gjson.GetBytes(lines[p[0]], "message.content").ForEach(func(key, b gjson.Result) bool {
			if b.Get("type").Str == "text" {
				k = int(key.Int())
				return false
			}
			return true
		})
		lines[p[0]] = setLine(lines[p[0]], "message.content."+strconv.Itoa(k)+".text", "")
		return lines
	}},
	"empty-prompt": {"empty-content", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) == 0 || ts[len(ts)-1].Compacted {
			return nil
		}
		lines[ts[len(ts)-1].Entry] = setLine(lines[ts[len(ts)-1].Entry], "message.content", "")
		return lines
	}},
	"prompt-deleted": {"consecutive-assistant", func(f *chain.File, lines [][]byte) [][]byte {
		ts := f.ActiveTurns().List
		if len(ts) < 2 || ts[1].Compacted {
			return nil
		}
		return relinkDrop(f, lines, ts[1].Entry)
	}},
}

// MutationNames are the names DamageBy takes, sorted.
func MutationNames() []string {
	var out []string
	for name := range mutations {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// DamageBy damages a session file's bytes by the named mutation (or
// family of moreDamage), for the
// real-client tests (package ops_test), which damage a session the client
// made at test time; nil when the session has nothing to damage that way.
func DamageBy(name, path string, data []byte) ([]byte, error) {
	m, ok := mutations[name]
	if !ok {
		m, ok = moreDamage[name]
	}
	if !ok {
		return nil, fmt.Errorf("no mutation %q", name)
	}
	f, err := chain.LoadBytes(path, data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := m.fn(f, sessionLines(data))
	if lines == nil {
		return nil, nil
	}
	return bytes.Join(lines, nil), nil
}

var sessionName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$`)

// realSessions lists the generated sessions and the corpus's main session
// files.
func realSessions(t *testing.T) []string {
	t.Helper()
	out, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*", "*.jsonl"))
	require.NoError(t, err)
	root := testcorpus.Optional(t)
	if root == "" {
		return out
	}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && sessionName.MatchString(d.Name()) && !strings.Contains(p, "subagents") {
			out = append(out, p)
		}
		return err
	}))
	return out
}

// mutated is a real session damaged by a mutation and repaired.
type mutated struct {
	s   *chain.Session // the damaged session
	rep *Repair
	out []byte      // the repaired file
	res *chain.File // out, loaded
}

// repairMutated damages the session src (its bytes data) by m and repairs
// it; nil when m finds nothing to damage or validate does not see the
// damage.
func repairMutated(t *testing.T, src string, data []byte, m mutation) *mutated {
	t.Helper()
	f, err := chain.LoadBytes(src, data)
	require.NoError(t, err)
	lines := m.fn(f, sessionLines(data))
	if lines == nil {
		return nil
	}
	id := harness.NowhereUUID[:35] + "1"
	path := filepath.Join("/repair", id+".jsonl")
	main, err := chain.LoadBytes(path, bytes.Join(lines, nil))
	require.NoError(t, err)
	s := &chain.Session{ID: id, Path: path, ProjectDir: filepath.Dir(path), Main: main}
	if validate.Session(s).ErrorCounts()[m.code] == 0 {
		return nil
	}
	rep := &Repair{}
	tx := NewTxn(s)
	require.NoError(t, Pipeline{rep}.Apply(tx), src)
	var buf bytes.Buffer
	require.NoError(t, tx.Render(s.Main)(&buf))
	res, err := chain.LoadBytes(path, buf.Bytes())
	require.NoError(t, err)
	return &mutated{s: s, rep: rep, out: buf.Bytes(), res: res}
}

// TestRepairExplainsWhatItLeaves: real sessions damaged in every way
// validate detects. After repair, the damage is fixed or explained, and
// every error left in the result is one that repair said it did not fix,
// and why.
func TestRepairExplainsWhatItLeaves(t *testing.T) {
	seen := map[string]int{}
	for _, src := range realSessions(t) {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		for name, m := range mutations {
			d := repairMutated(t, src, data, m)
			if d == nil {
				continue // nothing to damage, or the session does not show the damage (e.g. a compacted turn)
			}
			seen[name]++
			rep, res := d.rep, d.res
			after := validate.Session(&chain.Session{ID: d.s.ID, Path: d.s.Path, ProjectDir: d.s.ProjectDir, Main: res})
			assert.Empty(t, unexplained(rep.Fixes, after), "%s on %s: fixes %v", name, src, rep.Fixes)
			touched := false
			for _, fx := range rep.Fixes {
				touched = touched || fx.Code == m.code
			}
			assert.True(t, touched, "%s on %s: repair says nothing of the %s error: %v", name, src, m.code, rep.Fixes)
		}
	}
	for name := range mutations {
		assert.Positive(t, seen[name], "mutation %s damaged no session", name)
	}
	t.Logf("damaged sessions repaired, by mutation: %v", seen)
}

// TestRepairKeepsEveryEntryAfterACutOffWrite: on every real session, a
// write cut short before a turn's prompt (the prompt written on the same
// line) is repaired to the original session: the prompt's line whole, and
// the branch the client resumes the original's.
func TestRepairKeepsEveryEntryAfterACutOffWrite(t *testing.T) {
	m := mutations["write-cut-then-next-on-its-line"]
	n := 0
	for _, src := range realSessions(t) {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		d := repairMutated(t, src, data, m)
		if d == nil {
			continue
		}
		n++
		orig, err := chain.LoadBytes(src, data)
		require.NoError(t, err)
		rep, res, buf := d.rep, d.res, d.out
		prompt := sessionLines(data)[orig.ActiveTurns().List[1].Entry]
		assert.Contains(t, string(buf), "\n"+string(prompt), "%s: the prompt's whole line is kept: %v", src, rep.Fixes)
		// (progress entries aside: no client sends them, and repair takes
		// them off the branch where an entry hangs below them, which
		// Claude Code 2.0.x does not read: progress-parent)
		active := func(f *chain.File) (ids []string) {
			for _, i := range f.Graph().ActivePath().Entries {
				if f.Entries[i].Type() != "progress" {
					ids = append(ids, f.Entries[i].UUID())
				}
			}
			return ids
		}
		assert.Equal(t, active(orig), active(res), "%s: the branch resumed is the original's: %v", src, rep.Fixes)
	}
	assert.Positive(t, n)
	t.Logf("%d sessions", n)
}
