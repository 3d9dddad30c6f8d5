package ops_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// specSessions lists every main session file of testdata/sessions (every
// version, shapes/ included) and of ../shared/corpus: the .jsonl files that
// are not subagent transcripts nor inside a session's sidecar folder.
func specSessions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{filepath.Join("..", "testdata", "sessions"), testcorpus.Optional(t)} {
		if root == "" {
			continue
		}
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.HasPrefix(d.Name(), "agent-") {
				return err
			}
			if strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) || isSidecar(p) {
				return nil
			}
			out = append(out, p)
			return nil
		}), "%s must exist", root)
	}
	require.NotEmpty(t, out)
	sort.Strings(out)
	return out
}

// isSidecar reports whether p lies in the <name>/ folder of a <name>.jsonl.
func isSidecar(p string) bool {
	for dir := filepath.Dir(p); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir + ".jsonl"); err == nil {
			return true
		}
	}
	return false
}

// specCase is one operation with its options, and the check of its result
// against the specification.
type specCase struct {
	name  string
	p     ops.Pipeline
	clone bool // the result gets fresh identifiers
	check func(orig, got spec.Conversation) error
}

// specCases are the (operation, turn) cases of one session: every operation,
// on every turn where it takes one.
func specCases(t *testing.T, f *chain.File, orig spec.Conversation, sc *redact.Scanner, valid bool) []specCase {
	t.Helper()
	eq := func(want spec.Conversation) func(_, got spec.Conversation) error {
		return func(_, got spec.Conversation) error { return spec.Equal(want, got) }
	}
	ts := f.ActiveTurns()
	turns := len(ts.List)
	leaf := f.Graph().ActiveLeaf()
	cases := []specCase{
		{name: "clone", p: ops.Pipeline{ops.Clone{}}, clone: true, check: eq(spec.Clone(orig))},
		{name: "strip-thinking", p: ops.Pipeline{ops.StripThinking{}}, check: eq(spec.StripThinking(orig, 0))},
		{name: "redact-secrets", p: ops.Pipeline{ops.RedactSecrets{Scanner: sc}}, check: spec.CheckRedact},
	}
	if valid {
		cases = append(cases, specCase{name: "repair", p: ops.Pipeline{&ops.Repair{}}, check: eq(spec.Repair(orig))})
	}
	tools := map[string]bool{}
	for _, m := range orig {
		for _, b := range m.Blocks {
			if b.Type == "tool_use" {
				tools[b.Name] = true
			}
		}
	}
	for _, name := range sortedKeys(tools) {
		cases = append(cases, specCase{name: "drop-tool-calls --tool " + name, p: ops.Pipeline{ops.DropToolCalls{Tools: []string{name}}},
			check: eq(spec.DropToolCalls(orig, func(use spec.Block, _ int) bool { return use.Name == name }))})
	}
	// fork at every turn, whatever it holds (interrupted, unfinished),
	// and at the last one the session as a clone has it
	for n := 1; n <= turns; n++ {
		cases = append(cases, specCase{name: fmt.Sprintf("fork-at-turn %d", n), p: ops.Pipeline{ops.ForkAtTurn{N: n, Leaf: leaf}}, clone: true, check: eq(spec.Fork(heldTurn(t, f, ts, orig, n), n))})
	}
	if turns > 0 {
		cases = append(cases, specCase{name: fmt.Sprintf("fork-at-turn %d (the last) = clone", turns), p: ops.Pipeline{ops.ForkAtTurn{N: turns, Leaf: leaf}}, clone: true, check: eq(spec.Clone(orig))})
	}
	for _, n := range turnsToCheck(turns, 1) {
		cases = append(cases,
			specCase{name: fmt.Sprintf("strip-thinking --before-turn %d", n), p: ops.Pipeline{ops.StripThinking{BeforeTurn: n}}, check: eq(spec.StripThinking(orig, n))},
			specCase{name: fmt.Sprintf("drop-tool-calls --turns %d", n), p: ops.Pipeline{ops.DropToolCalls{Turns: &ops.TurnRange{From: n, To: n}}},
				check: eq(spec.DropToolCalls(orig, func(_ spec.Block, turn int) bool { return turn == n }))},
		)
	}
	for _, keep := range turnsToCheck(turns, 0) {
		cases = append(cases, specCase{name: fmt.Sprintf("compress-old-turns --keep-turns %d", keep), p: ops.Pipeline{ops.CompressOldTurns{KeepTurns: keep, MaxResult: 64}},
			check: func(orig, got spec.Conversation) error { return spec.CheckCompress(orig, got, keep, turns) }})
	}
	return cases
}

// turnsToCheck lists the turn numbers from..turns a per-turn operation is
// checked on: every one, except in a long session (more than 24 turns,
// where checking each costs time in the square of its size): there the
// first 8, the last 8 and every 10th between.
func turnsToCheck(turns, from int) []int {
	var out []int
	for n := from; n <= turns; n++ {
		if turns <= 24 || n < from+8 || n > turns-8 || n%10 == 0 {
			out = append(out, n)
		}
	}
	return out
}

// heldTurn returns the conversation that holds turn n of the branch ts
// numbers (orig is the one the client sends): the one sent before a later
// compaction summarized the turn, unless the turn's answer came after the
// compaction (an automatic compaction between a prompt and its answer) or
// no turn follows it (a fork at the last turn is the session as the client
// sends it, as a clone is, whatever the person did after the answer).
func heldTurn(t *testing.T, f *chain.File, ts chain.Turns, orig spec.Conversation, n int) spec.Conversation {
	t.Helper()
	if !ts.List[n-1].Compacted || n == len(ts.List) {
		return orig
	}
	c, err := spec.Sent(f, segmentEnd(f, ts.Leaf, ts.List[n-1].Entry))
	require.NoError(t, err)
	if !answered(spec.Fork(c, n), n) {
		return orig
	}
	return c
}

// answered reports whether a conversation holds an answer of turn n.
func answered(c spec.Conversation, n int) bool {
	for _, m := range c {
		if m.Turn == n && m.Role == "assistant" {
			return true
		}
	}
	return false
}

// segmentEnd returns the last entry of the history segment (between
// compactions) of the branch ending at leaf that holds entry i.
func segmentEnd(f *chain.File, leaf, i int) int {
	for _, seg := range f.Graph().History(leaf) {
		for _, j := range seg.Entries {
			if j == i {
				return seg.Entries[len(seg.Entries)-1]
			}
		}
	}
	return leaf
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var uuidTokenRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// unmapIDs puts the original identifiers back into the texts of a result
// with fresh ones (a compact summary names the transcript path, say).
func unmapIDs(c spec.Conversation, raw []byte, r *ops.Remapper) spec.Conversation {
	return unmapIDsOf(c, uuidsOf(raw), r)
}

// uuidsOf lists the distinct uuid tokens of raw, in order (once per
// session: a regexp over a file of megabytes for each of a hundred forks
// was most of the spec check's time).
func uuidsOf(raw []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range uuidTokenRe.FindAllString(string(raw), -1) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// unmapIDsOf is unmapIDs given the uuids of the original.
func unmapIDsOf(c spec.Conversation, ids []string, r *ops.Remapper) spec.Conversation {
	if r == nil {
		return c
	}
	var pairs []string
	for _, id := range ids {
		if n := r.Map(id); n != id {
			pairs = append(pairs, n, id)
		}
	}
	rep := strings.NewReplacer(pairs...)
	for k := range c {
		for j := range c[k].Blocks {
			c[k].Blocks[j].Text = rep.Replace(c[k].Blocks[j].Text)
		}
	}
	return c
}

// TestSpecEveryOperationEverySession runs every operation on every session
// of the generated corpus and of ../shared/corpus, on every turn where the
// operation takes one, in process, and compares what chain rebuilds from
// the result with the operation's specification (package internal/spec).
func TestSpecEveryOperationEverySession(t *testing.T) {
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	start := time.Now()
	var cases, refused, sessions atomic.Int64
	var mu sync.Mutex
	skippedRepair := []string{}
	t.Cleanup(func() {
		t.Logf("spec: %d (operation, session, turn) cases on %d sessions checked in %s; %d refused by the operation where the spec result is empty; repair not checked on %d sessions that do not validate: %v",
			cases.Load(), sessions.Load(), time.Since(start).Round(time.Millisecond), refused.Load(), len(skippedRepair), skippedRepair)
	})
	for _, path := range specSessions(t) {
		name := strings.TrimPrefix(testcorpus.Name(path), ".."+string(filepath.Separator))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n, r, valid := checkSpecCases(t, path, name, sc)
			cases.Add(int64(n))
			refused.Add(int64(r))
			sessions.Add(1)
			if !valid {
				mu.Lock()
				skippedRepair = append(skippedRepair, name)
				mu.Unlock()
			}
		})
	}
}

// checkSpecCases runs every (operation, turn) case of specCases on the
// session at path in process and compares what chain rebuilds from each
// result with the operation's specification; it returns how many cases
// ran, how many the operation refused where the specification leaves
// nothing to send, and whether the session validates (repair is checked
// only then).
func checkSpecCases(t *testing.T, path, name string, sc *redact.Scanner) (cases, refused int, valid bool) {
	t.Helper()
	s, err := chain.Load(path)
	require.NoError(t, err)
	defer s.Close()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	orig, err := spec.Active(s.Main)
	require.NoError(t, err)
	valid = validate.Session(s).Valid()
	ids := uuidsOf(raw)
	for _, c := range specCases(t, s.Main, orig, sc, valid) {
		cases++
		tx := ops.NewTxn(s)
		if c.clone {
			tx.NewID = "c1c1c1c1-0000-4000-8000-000000000001"
		}
		if err := c.p.Apply(tx); err != nil {
			// refusing is right only where the spec leaves nothing to send
			if c.check(orig, nil) == nil {
				refused++
				continue
			}
			t.Fatalf("%s: %s refused: %v", name, c.name, err)
		}
		var buf bytes.Buffer
		require.NoError(t, tx.Render(s.Main)(&buf), "%s: %s: render", name, c.name)
		rf, err := chain.LoadBytes(path, buf.Bytes())
		require.NoError(t, err, "%s: %s: load the result", name, c.name)
		got, err := spec.Active(rf)
		require.NoError(t, err)
		got = unmapIDsOf(got, ids, tx.Remapper())
		if err := c.check(orig, got); err != nil {
			t.Errorf("%s: %s: %v", name, c.name, err)
		}
	}
	return cases, refused, valid
}

// TestSpecCompressDocument: a PDF `document` block (a prompt with an
// attached PDF; no generated session has one) becomes a text placeholder in old turns, as an image does. The spec
// must accept that, as it does for images.
func TestSpecCompressDocument(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "tools.jsonl"))
	require.NoError(t, err)
	doc := `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK` + strings.Repeat("A", 400) + `"}}`
	raw = bytes.Replace(raw, []byte(`"role":"user","content":"Run some shell commands."}`), []byte(`"role":"user","content":[`+doc+`,{"type":"text","text":"Run some shell commands."}]}`), 1)
	require.Equal(t, 1, bytes.Count(raw, []byte(`"type":"document"`)), "the shape is made")
	path := filepath.Join(t.TempDir(), "document.jsonl")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	s, err := chain.Load(path)
	require.NoError(t, err)
	defer s.Close()
	orig, err := spec.Active(s.Main)
	require.NoError(t, err)
	tx := ops.NewTxn(s)
	require.NoError(t, ops.Pipeline{ops.CompressOldTurns{KeepTurns: 1, MaxResult: 64}}.Apply(tx))
	var buf bytes.Buffer
	require.NoError(t, tx.Render(s.Main)(&buf))
	require.NotContains(t, buf.String(), `"type":"document"`, "compress replaced the document of an old turn")
	rf, err := chain.LoadBytes(path, buf.Bytes())
	require.NoError(t, err)
	got, err := spec.Active(rf)
	require.NoError(t, err)
	require.NoError(t, spec.CheckCompress(orig, unmapIDs(got, raw, tx.Remapper()), 1, len(s.Main.ActiveTurns().List)))
}
