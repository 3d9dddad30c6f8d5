package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

const fuzzSessionID = "f0f0f0f0-1111-2222-3333-444444444444"

// opsFuzzSeeds returns small windows of the generated sessions (and of
// their tail, where the tool loops are) with long lines left out.
func opsFuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*", "*.jsonl"))
	var out [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var small [][]byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) <= 2500 {
				small = append(small, l)
			}
		}
		for k := 0; k+6 <= len(small) && k < 36; k += 6 {
			out = append(out, bytes.Join(small[k:k+6], nil))
		}
	}
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
		dir := t.TempDir()
		path := filepath.Join(dir, fuzzSessionID+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := chain.Load(path)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		defer s.Close()
		before := validate.Session(s)
		g := s.Main.Graph()
		type tc struct {
			name  string
			p     Pipeline
			clone bool
		}
		cases := []tc{
			{"strip", Pipeline{StripThinking{}}, false},
			{"drop", Pipeline{DropToolCalls{Tools: []string{"Bash", "Read"}}}, false},
			{"compress", Pipeline{CompressOldTurns{KeepTurns: 1, MaxResult: 64}}, false},
			{"redact", Pipeline{RedactSecrets{Scanner: sc}}, false},
			{"clone", Pipeline{Clone{}}, true},
			{"all", Pipeline{RedactSecrets{Scanner: sc}, StripThinking{}, DropToolCalls{Tools: []string{"Bash"}}, CompressOldTurns{KeepTurns: 1}}, false},
		}
		if br := g.Branches(); len(br) > 0 {
			cases = append(cases, tc{"select-first", Pipeline{Clone{}, SelectBranch{Leaf: br[0]}}, true})
			cases = append(cases, tc{"select-last", Pipeline{Clone{}, SelectBranch{Leaf: br[len(br)-1]}}, true})
		}
		if l := g.ActiveLeaf(); l >= 0 {
			cases = append(cases, tc{"fork1", Pipeline{ForkAtTurn{N: 1, Leaf: l}}, true})
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
			if !before.Valid() {
				continue
			}
			odir := filepath.Join(dir, c.name)
			if err := os.MkdirAll(odir, 0o700); err != nil {
				t.Fatal(err)
			}
			opath := filepath.Join(odir, id+".jsonl")
			if err := os.WriteFile(opath, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := chain.Load(opath)
			if err != nil {
				t.Fatalf("%s: load result: %v", c.name, err)
			}
			after := validate.Session(res)
			res.Close()
			if intro := validate.Introduced(before, after); len(intro) > 0 {
				t.Fatalf("%s introduced %d error(s), first: %s\ninput:\n%s\noutput:\n%s", c.name, len(intro), intro[0], data, buf.Bytes())
			}
		}
	})
}
