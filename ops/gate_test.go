package ops_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/cli"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// gateSessions are the sessions the gate test damages, in the order they
// are taken: first the shapes damage does most to (parallel calls of both
// clients, finished in and out of order, thinking entries of their own,
// an interrupted turn, compactions), then every other session of
// testdata/sessions/<version>/ of both clients.
func gateSessions(t *testing.T) []string {
	t.Helper()
	first := []string{"2.0.50/parallel-tools.jsonl", "2.1.328/shapes/empty-thinking.jsonl", "2.1.328/parallel-tools.jsonl",
		"2.0.50/parallel-out-of-order.jsonl", "2.1.328/shapes/interrupted.jsonl", "2.1.328/compact.jsonl", "2.0.50/compact.jsonl",
		"2.1.328/shapes/auto-compact.jsonl", "2.1.328/inprocess/parallel3-order-231.jsonl", "2.0.50/thinking-tool-loop.jsonl", "2.1.328/thinking-tool-loop.jsonl"}
	var out []string
	seen := map[string]bool{}
	for _, p := range first {
		p = filepath.Join("..", "testdata", "sessions", filepath.FromSlash(p))
		_, err := os.Stat(p)
		require.NoError(t, err, "the gate test's shapes are in testdata")
		out = append(out, p)
		seen[p] = true
	}
	for _, v := range []string{"2.0.50", "2.1.328"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", v, "*.jsonl"))
		require.NoError(t, err)
		sort.Strings(m)
		for _, p := range m {
			if !seen[p] {
				out = append(out, p)
			}
		}
	}
	return out
}

// gateSessionsPerDamage is how many sessions (the first of gateSessions
// it finds something to damage in) each damage family is applied to: the
// whole product took 27 s, this sample some 7 with every (damage,
// operation) pair met.
const gateSessionsPerDamage = 5

// gateTurns are the turns of n a per-turn operation is run at: the
// first, one in the middle and the last.
func gateTurns(n int) []int {
	var out []int
	for _, k := range []int{1, (n + 1) / 2, n} {
		if k >= 1 && k <= n && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// session stands for the session in gateOp.args; where it is not given,
// the session comes after them.
const session = "SESSION"

// gateOp is one operation as a user runs it: its name (the family the
// coverage is counted by), its arguments, and the check
// of a written result against the specification (nil: validate only).
type gateOp struct {
	kind  string
	args  []string
	check func(orig, got spec.Conversation) error
}

// gateOps are the operations a user can run on the damaged file f (orig
// is what the client sends for it): every one, on every turn where it
// takes one, with each drop-tool-calls selector.
func gateOps(t *testing.T, f *chain.File, orig spec.Conversation) []gateOp {
	t.Helper()
	eq := func(want spec.Conversation) func(_, got spec.Conversation) error {
		return func(_, got spec.Conversation) error { return spec.Equal(sameIDs(want), got) }
	}
	ts := f.ActiveTurns()
	turns := len(ts.List)
	tools := map[string]bool{} // every tool the file calls, sent or not
	for i := range f.Entries {
		for _, b := range f.Entries[i].Blocks() {
			if b.Kind == chain.BlockToolUse {
				tools[b.Name] = true
			}
		}
	}
	out := []gateOp{
		{kind: "clone", args: []string{"clone"}, check: eq(spec.Clone(orig))},
		{kind: "strip-thinking", args: []string{"strip-thinking"}, check: eq(spec.StripThinking(orig, 0))},
		{kind: "redact-secrets", args: []string{"redact-secrets"}, check: spec.CheckRedact},
		{kind: "repair", args: []string{"repair"}},
		{kind: "drop-tool-calls --failed", args: []string{"drop-tool-calls", "--failed"}},
		{kind: "drop-tool-calls --larger-than", args: []string{"drop-tool-calls", "--larger-than", "200B"}},
		{kind: "compress --target-tokens", args: []string{"compress", "--target-tokens", strconv.Itoa(f.ResumeTokens().Total() * 2 / 3)}},
	}
	for _, name := range sortedKeys(tools) {
		out = append(out,
			gateOp{kind: "drop-tool-calls --tool", args: []string{"drop-tool-calls", "--tool", name},
				check: eq(spec.DropToolCalls(orig, func(use spec.Block, _ int) bool { return use.Name == name }))},
			gateOp{kind: "rewrite", args: []string{"rewrite", "--strip-thinking", "--drop-tool-calls", name, "--compress-old-turns", "1"}})
	}
	for _, n := range gateTurns(turns) {
		out = append(out,
			gateOp{kind: "fork-at-turn", args: []string{"fork-at-turn", session, strconv.Itoa(n)}, check: eq(spec.Fork(heldTurn(t, f, ts, orig, n), n))},
			gateOp{kind: "drop-tool-calls --turns", args: []string{"drop-tool-calls", "--turns", strconv.Itoa(n)},
				check: eq(spec.DropToolCalls(orig, func(_ spec.Block, turn int) bool { return turn == n }))})
	}
	for keep := 0; keep <= 1 && keep <= turns; keep++ {
		out = append(out, gateOp{kind: "compress-old-turns", args: []string{"compress-old-turns", "--keep-turns", strconv.Itoa(keep)},
			check: func(orig, got spec.Conversation) error { return spec.CheckCompress(orig, got, keep, turns) }})
	}
	return out
}

// on returns the command line of op on the session path, then more.
func (op gateOp) on(path string, more ...string) []string {
	var out []string
	for _, a := range op.args {
		if a == session {
			a = path
		}
		out = append(out, a)
	}
	if !slices.Contains(op.args, session) {
		out = append(out, path)
	}
	return append(out, more...)
}

var floorHint = regexp.MustCompile(`give a --target-tokens of at least (\d+)`)

var anyUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// sameIDs blanks the uuids in the texts of a conversation: a clone or a
// fork gives fresh ones, which a compaction summary names.
func sameIDs(c spec.Conversation) spec.Conversation {
	c = append(spec.Conversation(nil), c...)
	for k := range c {
		c[k].Blocks = append([]spec.Block(nil), c[k].Blocks...)
		for j := range c[k].Blocks {
			c[k].Blocks[j].Text = anyUUID.ReplaceAllString(c[k].Blocks[j].Text, "UUID")
		}
	}
	return c
}

// runCLI runs one ccsurgeon command line in process.
func runCLI(cfg string, args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Main(append([]string{"ccsurgeon", "--config-dir", cfg, "--quiet"}, args...), strings.NewReader(""), &out, &errb)
	if os.Getenv("GATE_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "== %v: %d\n%s%s", args, code, out.String(), errb.String())
	}
	return code, errb.String()
}

// TestNoOperationEndsInABugOnDamage (issue 28's last paragraph, the
// class): every damage family (the repair mutations and moreDamage) on
// the sessions of both clients, times every operation a user can run. The
// result is either a written session that adds no validate error to the
// input's and meets its specification, or a refusal that says what in
// the file leads there, with a hint that works (repair first: after
// repair the same command ends without the bug) — never ccsurgeon's own
// "this is a bug in ccsurgeon" nor an internal error (exit 3). A failure
// names the damage, the session and the command.
func TestNoOperationEndsInABugOnDamage(t *testing.T) {
	start := time.Now()
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "-work-p")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	outDir := t.TempDir()
	pairs := map[string]int{}   // damage|operation kind → combinations run
	refused := map[string]int{} // damage|operation kind → refusals
	hintTried := map[string]bool{}
	applied := map[string]int{} // damage → sessions damaged
	var bugs []string
	runs := 0
	for _, src := range gateSessions(t) {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		name := strings.TrimPrefix(filepath.ToSlash(src), "../testdata/sessions/")
		for _, dmg := range ops.DamageNames() {
			if applied[dmg] == gateSessionsPerDamage {
				continue
			}
			damaged, err := ops.DamageBy(dmg, src, data)
			require.NoError(t, err)
			if damaged == nil {
				continue
			}
			applied[dmg]++
			path := filepath.Join(proj, "d1d1d1d1-0000-4000-8000-000000000001.jsonl")
			require.NoError(t, os.WriteFile(path, damaged, 0o644))
			s, err := chain.Load(path)
			require.NoError(t, err)
			orig, err := spec.Active(s.Main)
			require.NoError(t, err)
			before := validate.Session(s)
			gops := gateOps(t, s.Main, orig)
			s.Close()
			for _, op := range gops {
				what := fmt.Sprintf("%s on %s: ccsurgeon %s", dmg, name, strings.Join(op.args, " "))
				out := filepath.Join(outDir, "out.jsonl")
				os.Remove(out)
				code, stderr := runCLI(cfg, op.on(path, "-o", out)...)
				runs++
				key := dmg + "|" + op.kind
				pairs[key]++
				_, statErr := os.Stat(out)
				// repair exits 1 when it leaves errors it lists, and says so
				// on stderr, whether it wrote what it fixed or nothing
				repairSays := op.kind == "repair" && code == 1 && strings.Contains(stderr, "that repair has no safe fix for")
				if code == 0 || repairSays && statErr == nil {
					// written (repair exits 1 when it leaves errors it
					// lists, the result written all the same)
					checkGateResult(t, what, path, out, before, orig, op)
					continue
				}
				refused[key]++
				// repair's own refusal lists each problem it has no safe
				// fix for and what to do instead, on stdout, and says how
				// many on stderr
				if strings.Contains(stderr, "bug in ccsurgeon") || code == 3 || !strings.Contains(stderr, "ccsurgeon: ") && !repairSays {
					bugs = append(bugs, fmt.Sprintf("%s: exit %d\n%s", what, code, stderr))
					continue
				}
				if m := floorHint.FindStringSubmatch(stderr); m != nil && !hintTried[key+"|floor"] {
					// the hint as printed: the target it names is met
					hintTried[key+"|floor"] = true
					args := slices.Clone(op.args)
					args[slices.Index(args, "--target-tokens")+1] = m[1]
					code, stderr := runCLI(cfg, gateOp{args: args}.on(path, "-o", out)...)
					if code == 0 {
						checkGateResult(t, what+" (the hint's target)", path, out, before, orig, gateOp{})
					} else {
						require.NotContains(t, stderr, "bug in ccsurgeon", "%s: with the hint's target %s", what, m[1])
						require.NotContains(t, stderr, "give a --target-tokens", "%s: with the hint's target %s", what, m[1])
					}
				}
				if strings.Contains(stderr, "would turn the session's own") && !strings.Contains(stderr, "(already in the session)") {
					t.Errorf("%s: the gate's refusal names the errors the session had: %s", what, stderr)
				}
				if strings.Contains(stderr, "hint: repair the session first") && !hintTried[key] {
					hintTried[key] = true
					repaired := filepath.Join(proj, "d1d1d1d1-0000-4000-8000-000000000002.jsonl")
					// the hint as printed, on a copy of the damaged file: repair
					// in place, then the same command
					require.NoError(t, os.WriteFile(repaired, damaged, 0o644))
					old := time.Now().Add(-time.Hour) // not a session in use
					require.NoError(t, os.Chtimes(repaired, old, old))
					rc, rerr := runCLI(cfg, "repair", repaired)
					require.Equal(t, 0, rc, "%s: the hint's repair: %s", what, rerr)
					os.Remove(out)
					code, stderr := runCLI(cfg, op.on(repaired, "-o", out)...)
					if code != 0 {
						require.NotContains(t, stderr, "repair the session first", "%s: after the hint's repair", what)
						require.NotContains(t, stderr, "bug in ccsurgeon", "%s: after the hint's repair", what)
					}
					os.Remove(repaired)
				}
			}
		}
	}
	kinds := map[string]bool{}
	for k := range pairs {
		kinds[k[strings.Index(k, "|")+1:]] = true
	}
	for _, dmg := range ops.DamageNames() {
		for kind := range kinds {
			if pairs[dmg+"|"+kind] == 0 {
				t.Errorf("damage %s never met operation %s", dmg, kind)
			}
		}
	}
	t.Logf("%d runs (%d damage families × %d operations) in %s; sessions damaged, by damage: %v; refused, by damage|operation: %v; repair-first hints followed: %d",
		runs, len(ops.DamageNames()), len(kinds), time.Since(start).Round(time.Millisecond), applied, refused, len(hintTried))
	if len(bugs) > 0 {
		t.Fatalf("%d runs end in a bug of ccsurgeon's:\n%s", len(bugs), strings.Join(bugs, "\n"))
	}
}

// checkGateResult holds a written result to the gate: no validate error
// the damaged input did not have, and the operation's specification.
func checkGateResult(t *testing.T, what, in, out string, before validate.Report, orig spec.Conversation, op gateOp) {
	t.Helper()
	r, err := chain.Load(out)
	require.NoError(t, err, what)
	defer r.Close()
	after := validate.Session(r)
	if bad := validate.Introduced(before, after); len(bad) > 0 {
		t.Errorf("%s: the result has errors the input had not: %v", what, bad)
	}
	if op.check == nil || !before.Valid() {
		// the specification is stated on a conversation the API
		// accepts; on one it rejects, the result keeps the input's
		// errors and adds none
		return
	}
	got, err := spec.Active(r.Main)
	require.NoError(t, err, what)
	if err := op.check(sameIDs(orig), sameIDs(got)); err != nil {
		t.Errorf("%s: against the specification: %v", what, err)
	}
}
