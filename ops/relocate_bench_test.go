package ops

import (
	"os"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// BenchmarkRelocate measures a move's rewrite of the project path
// (Relocate.Apply: the pass over every line that finds the paths) on the
// session file named by CCSURGEON_BENCH_FILE, loaded once, from the cwd
// of its first line that has one to another folder:
//
//	CCSURGEON_BENCH_FILE=F go test ./ops -run '^$' -bench Relocate -benchtime 5x
func BenchmarkRelocate(b *testing.B) {
	p := os.Getenv("CCSURGEON_BENCH_FILE")
	if p == "" {
		b.Skip("set CCSURGEON_BENCH_FILE to a session file")
	}
	s, err := chain.Load(p)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	from := ""
	f := s.Files()[0]
	for i := 0; i < len(f.Entries) && from == ""; i++ {
		if raw, err := f.Raw(i); err == nil {
			from = gjson.GetBytes(raw, "cwd").Str
		}
	}
	if from == "" {
		b.Skip("no line of the file has a cwd")
	}
	b.ResetTimer()
	for range b.N {
		op := &Relocate{From: from, To: from + "-moved"}
		if err := (Pipeline{op}).Apply(NewTxn(s)); err != nil {
			b.Fatal(err)
		}
	}
}
