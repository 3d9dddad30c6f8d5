package validate

import (
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	out := harness.SessionWindows(tb, 1500, 5, 40)
	const a, b = "aaaaaaaa-0000-0000-0000-000000000001", "aaaaaaaa-0000-0000-0000-000000000002"
	out = append(out,
		[]byte(""), []byte("\xef\xbb\xbf\n"), []byte("{}\n[]\n\"x\"\n{"),
		[]byte(`{"type":"user","uuid":"`+a+`","parentUuid":"`+b+`","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}}`+"\n"+
			`{"type":"assistant","uuid":"`+b+`","parentUuid":"`+a+`","message":{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"Bash"},{"type":"text","text":""}]}}`+"\n"),
	)
	return out
}

// FuzzValidate: validate.File never panics, whatever the bytes.
func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := chain.LoadBytes("aaaaaaaa-0000-0000-0000-000000000009.jsonl", data)
		if err != nil {
			t.Fatalf("LoadBytes: %v", err)
		}
		r := Report{Problems: File(fl, "")}
		_ = r.Errors()
		_ = Introduced(r, r)
		if n := len(Introduced(r, r)); n != 0 {
			t.Fatalf("a report introduces %d errors over itself", n)
		}
		_ = File(fl, "other")
		fl2, _ := chain.LoadBytes("agent-x.jsonl", data)
		fl2.Sidechain = true
		_ = File(fl2, "")
	})
}
