package ops

import (
	"bytes"
	"fmt"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

const fuzzSessionID = "f0f0f0f0-1111-2222-3333-444444444444"

// opsFuzzSeeds returns small windows of the generated sessions (and of
// their tail, where the tool loops are) with long lines left out.
func opsFuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	out := harness.SessionWindows(tb, 2500, 6, 36)
	const a, b, c, d = "aaaaaaaa-0000-0000-0000-000000000001", "aaaaaaaa-0000-0000-0000-000000000002", "aaaaaaaa-0000-0000-0000-000000000003", "aaaaaaaa-0000-0000-0000-000000000004"
	e := func(id, parent, typ, content string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","uuid":"` + id + `","parentUuid":` + p + `,"sessionId":"` + fuzzSessionID + `","message":{"role":"` + typ + `","content":` + content + `}}` + "\n"
	}
	out = append(out,
		[]byte(e(a, "", "user", `"fix it, token ghp_abcdefghijklmnopqrstuvwxyz0123456789"`)+
			e(b, a, "assistant", `[{"type":"thinking","thinking":"hmm","signature":"sig"}]`)+
			e(c, b, "assistant", `[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]`)+
			e(d, c, "user", `[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]`)),
		[]byte(e(a, "", "user", `"one"`)+e(b, a, "assistant", `[{"type":"text","text":"two"}]`)+
			e(c, a, "assistant", `[{"type":"text","text":"rewound"}]`)+e(d, c, "user", `"three"`)),
		[]byte(e(a, "", "user", `"read"`)+e(b, a, "assistant", `[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/x"}}]`)+
			e(c, b, "user", `[{"type":"tool_result","tool_use_id":"r1","content":"`+string(bytes.Repeat([]byte("x"), 300))+`"}]`)+
			e(d, c, "assistant", `[{"type":"text","text":"done"}]`)),
		// broken sessions, for repair
		[]byte(e(a, d, "user", `"cycle"`)+e(b, a, "assistant", `[{"type":"text","text":"x"}]`)+e(c, b, "user", `"y"`)+e(d, c, "assistant", `[{"type":"text","text":"z"}]`)),
		[]byte(e(a, "", "user", `"one"`)+e(b, a, "assistant", `[{"type":"text","text":"x"}]`)+e(c, "0badc0de-0000-4000-8000-000000000000", "user", `"y"`)+e(d, c, "assistant", `[{"type":"text","text":"z"}]`)+e(d, c, "assistant", `[{"type":"text","text":"z"}]`)+`{"type":"user","uu`),
		[]byte(e(a, "", "user", `"one"`)+e(b, a, "user", `[{"type":"tool_result","tool_use_id":"gone","content":"x"}]`)+e(c, b, "assistant", `[{"type":"tool_use","id":"t9","name":"Bash","input":{}}]`)+e(d, c, "user", `"next"`)),
		[]byte(e(a, a, "user", `"self"`)+e(b, a, "assistant", `[{"type":"text","text":"x"}]`)),
	)
	return out
}

// FuzzOperations: every operation on a session made of fuzz bytes neither
// panics nor, when the input validates, introduces a validation error.
func FuzzOperations(f *testing.F) {
	for _, s := range opsFuzzSeeds(f) {
		f.Add(s)
	}
	sc, err := redact.New(redact.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// in memory: no disk I/O, so the fuzzer runs fast
		path := filepath.Join("/fuzz", "-p", fuzzSessionID+".jsonl")
		main, err := chain.LoadBytes(path, data)
		if err != nil {
			t.Fatalf("LoadBytes: %v", err)
		}
		s := &chain.Session{ID: fuzzSessionID, Path: path, ProjectDir: filepath.Dir(path), Main: main}
		before := validate.Session(s)
		g := s.Main.Graph()
		type tc struct {
			name  string
			p     Pipeline
			clone bool
			// other: the op makes another branch than the active one the
			// resumed one; validate only checked the active branch, so that
			// branch's own problems are not "introduced" (see the report:
			// 'clone --branch N' of a broken branch is refused by the gate)
			other bool
			// check compares what chain rebuilds from the result with the
			// operation's specification (nil: no single operation's spec)
			check func(orig, got spec.Conversation) error
		}
		eq := func(want func(spec.Conversation) spec.Conversation) func(orig, got spec.Conversation) error {
			return func(orig, got spec.Conversation) error { return spec.Equal(want(orig), got) }
		}
		sameKey := func(want func(spec.Conversation) spec.Conversation) func(orig, got spec.Conversation) error {
			// a clone's texts may name its fresh ids: compare what ids do not change
			return func(orig, got spec.Conversation) error {
				if w, g := want(orig).Key(), got.Key(); !slices.Equal(w, g) {
					return fmt.Errorf("messages differ from the specification\nwant %q\ngot  %q", w, g)
				}
				return nil
			}
		}
		tools := func(use spec.Block, _ int) bool { return use.Name == "Bash" || use.Name == "Read" }
		cases := []tc{
			{"strip", Pipeline{StripThinking{}}, false, false, eq(func(c spec.Conversation) spec.Conversation { return spec.StripThinking(c, 0) })},
			{"drop", Pipeline{DropToolCalls{Tools: []string{"Bash", "Read"}}}, false, false, eq(func(c spec.Conversation) spec.Conversation { return spec.DropToolCalls(c, tools) })},
			{"compress", Pipeline{CompressOldTurns{KeepTurns: 1, MaxResult: 64}}, false, false, func(orig, got spec.Conversation) error {
				return spec.CheckCompress(orig, got, 1, len(s.Main.ActiveTurns().List))
			}},
			{"redact", Pipeline{RedactSecrets{Scanner: sc}}, false, false, spec.CheckRedact},
			{"clone", Pipeline{Clone{}}, true, false, sameKey(spec.Clone)},
			{"repair", Pipeline{&Repair{}}, false, false, nil},
			{"all", Pipeline{RedactSecrets{Scanner: sc}, StripThinking{}, DropToolCalls{Tools: []string{"Bash"}}, CompressOldTurns{KeepTurns: 1}}, false, false, nil},
		}
		active := g.ActiveLeaf()
		if br := g.Branches(); len(br) > 0 {
			cases = append(cases, tc{"select-first", Pipeline{Clone{}, SelectBranch{Leaf: br[0]}}, true, br[0] != active, nil})
			cases = append(cases, tc{"select-last", Pipeline{Clone{}, SelectBranch{Leaf: br[len(br)-1]}}, true, br[len(br)-1] != active, nil})
		}
		if active >= 0 {
			var fork func(orig, got spec.Conversation) error
			if ts := s.Main.ActiveTurns(); len(ts.List) > 0 && !ts.List[0].Compacted {
				fork = sameKey(func(c spec.Conversation) spec.Conversation { return spec.Fork(c, 1) })
			}
			cases = append(cases, tc{"fork1", Pipeline{ForkAtTurn{N: 1, Leaf: active}}, true, false, fork})
		}
		orig, origErr := spec.Active(s.Main)
		if !knownTypes(s.Main) {
			// an entry of a type no client writes (a mutated "type"): which
			// branch the client resumes is then not chain's to say
			origErr = fmt.Errorf("unknown entry type")
		}
		for k, c := range cases {
			tx := NewTxn(s)
			id := fuzzSessionID
			if c.clone {
				id = "c1c1c1c1-0000-0000-0000-00000000000" + string(rune('a'+k%6))
				tx.NewID = id
			}
			if err := c.p.Apply(tx); err != nil {
				continue // refusing is allowed; panicking is not
			}
			var buf bytes.Buffer
			if err := tx.Render(s.Main)(&buf); err != nil {
				t.Fatalf("%s: render: %v", c.name, err)
			}
			for _, a := range s.Subagents {
				_ = tx.Render(a.File)(&bytes.Buffer{})
			}
			if (!before.Valid() && c.name != "repair") || c.other {
				continue // repair is the one op meant for invalid input
			}
			rmain, err := chain.LoadBytes(filepath.Join("/fuzz", c.name, id+".jsonl"), buf.Bytes())
			if err != nil {
				t.Fatalf("%s: load result: %v", c.name, err)
			}
			res := &chain.Session{ID: id, Path: rmain.Path, ProjectDir: filepath.Dir(rmain.Path), Main: rmain}
			if c.check != nil && origErr == nil && c.name != "repair" {
				got, err := spec.Active(rmain)
				if err != nil {
					t.Fatalf("%s: rebuild the result: %v", c.name, err)
				}
				if err := c.check(orig, got); err != nil {
					t.Fatalf("%s: %v\ninput:\n%s\noutput:\n%s", c.name, err, data, buf.Bytes())
				}
			}
			after := validate.Session(res)
			if c.name == "repair" {
				if left := unexplained(c.p[0].(*Repair).Fixes, after); len(left) > 0 {
					t.Fatalf("repair left %s without saying why\ninput:\n%q\noutput:\n%q", left[0], data, buf.Bytes())
				}
			}
			intro := validate.Introduced(before, after)
			if len(intro) > 0 {
				t.Fatalf("%s introduced %d error(s), first: %s\ninput:\n%s\noutput:\n%s", c.name, len(intro), intro[0], data, buf.Bytes())
			}
		}
	})
}

// knownTypes reports whether every chain entry of f has a type the clients write.
func knownTypes(f *chain.File) bool {
	for i := range f.Entries {
		switch e := &f.Entries[i]; {
		case !e.IsChain():
		case e.Type() == "user", e.Type() == "assistant", e.Type() == "system", e.Type() == "attachment", e.Type() == "progress", e.Type() == "summary":
		default:
			return false
		}
	}
	return true
}

// unexplained returns the errors of the repaired result that no fix
// repair did not make accounts for (one fix not made per error, by code).
func unexplained(fixes []Fix, after validate.Report) []validate.Problem {
	budget := map[string]int{}
	for _, fx := range fixes {
		if !fx.Fixed {
			budget[fx.Code]++
		}
	}
	var out []validate.Problem
	for _, p := range after.Problems {
		if p.Severity != validate.Error {
			continue
		}
		if budget[p.Code] > 0 {
			budget[p.Code]--
			continue
		}
		out = append(out, p)
	}
	return out
}
