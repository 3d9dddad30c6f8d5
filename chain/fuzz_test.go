package chain

import (
	"bytes"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"testing"
	"time"
)

// fuzzSeeds returns small pieces of the generated sessions: windows of a
// few consecutive lines, each line capped, so that the fuzzer starts from
// realistic entries and stays fast.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	out := harness.SessionWindows(tb, 1500, 4, 40)
	const a, b, c = "aaaaaaaa-0000-0000-0000-000000000001", "aaaaaaaa-0000-0000-0000-000000000002", "aaaaaaaa-0000-0000-0000-000000000003"
	u := func(id, parent, typ, content string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","uuid":"` + id + `","parentUuid":` + p + `,"sessionId":"s","message":{"role":"` + typ + `","content":` + content + `}}`
	}
	out = append(out,
		[]byte(""), []byte("\n"), []byte("  \r\n\t\n"),
		[]byte("\xef\xbb\xbf"+u(a, "", "user", `"hi"`)+"\n"),
		[]byte(u(a, "", "user", `"hi"`)+"\r\n"+u(b, a, "assistant", `[{"type":"text","text":"x"}]`)+"\r\n"),
		[]byte(u(a, c, "user", `"hi"`)+"\n"+u(b, a, "assistant", `[]`)+"\n"+u(c, b, "user", `"x"`)+"\n"), // cycle
		[]byte(u(a, a, "user", `"self"`)+"\n"),
		[]byte(u(a, "", "user", `"hi"`)+"\n"+u(a, "", "user", `"hi"`)+"\n"),  // duplicate
		[]byte(u(a, "", "user", `"hi"`)+"\n"+`{"type":"assistant","uuid":"`), // torn
		[]byte("not json\n[1,2]\n\x00\x00\n\xff\xfe\n"),
		[]byte(u(a, "", "user", `"hi"`)+"\n"+u(b, a, "assistant", `[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]`)+"\n"+
			u(c, b, "user", `[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]`)+"\n"+`{"type":"last-prompt","leafUuid":"`+c+`"}`+"\n"),
		[]byte(`{"type":"system","subtype":"compact_boundary","uuid":"`+a+`","parentUuid":null,"logicalParentUuid":"`+c+`","compactMetadata":{"preservedSegment":{"headUuid":"`+b+`","tailUuid":"`+c+`","anchorUuid":"`+a+`"}}}`+"\n"+u(b, c, "user", `"x"`)+"\n"+u(c, b, "assistant", `"y"`)+"\n"),
	)
	return out
}

// exerciseGraph runs every graph walk on f and fails if one does not end
// within a deadline (parent cycles must not make a walk loop).
func exerciseGraph(t *testing.T, f *File) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		g := f.Graph()
		g.Cycles()
		for _, l := range g.Branches() {
			f.TurnsOf(l)
			f.Messages(g.PathTo(l))
		}
		for _, l := range g.Leaves {
			g.History(l)
		}
		for i := range f.Entries {
			g.Ancestors(i)
			if f.Entries[i].IsChain() {
				g.PathTo(i)
			}
		}
		f.Messages(g.ActivePath())
		ts := f.ActiveTurns()
		for _, tn := range ts.List {
			_, _ = f.PromptText(tn.Entry)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("graph walks did not terminate")
	}
}

// FuzzLoadRoundTrip: any bytes load, write back byte-identical (also with
// every line replaced by its own bytes, and through an identity
// transform), and the graph walks neither panic nor loop.
func FuzzLoadRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := LoadBytes("fuzz.jsonl", data)
		if err != nil {
			t.Fatalf("LoadBytes: %v", err)
		}
		var buf bytes.Buffer
		if _, err := fl.Write(&buf, nil, nil); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("round trip differs:\n in: %q\nout: %q", data, buf.Bytes())
		}
		ed := NewEdits()
		for i := range fl.Entries {
			raw, err := fl.Raw(i)
			if err != nil {
				t.Fatalf("Raw(%d): %v", i, err)
			}
			ed.Get(i).Raw = raw
		}
		buf.Reset()
		if _, err := fl.Write(&buf, ed, nil); err != nil {
			t.Fatalf("Write with edits: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("round trip with Raw edits differs:\n in: %q\nout: %q", data, buf.Bytes())
		}
		buf.Reset()
		if _, err := fl.Write(&buf, nil, func(b []byte) []byte { return b }); err != nil {
			t.Fatalf("Write with transform: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("round trip with identity transform differs:\n in: %q\nout: %q", data, buf.Bytes())
		}
		var total int64
		for i := range fl.Entries {
			total += fl.Entries[i].TotalBytes()
		}
		if total != int64(len(data)) {
			t.Fatalf("entries cover %d bytes of %d", total, len(data))
		}
		exerciseGraph(t, fl)
		fl.Sidechain = true
		fl.graph = nil
		exerciseGraph(t, fl)
	})
}
