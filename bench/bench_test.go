package bench

import (
	"io"
	"os"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

const benchSize = 50 << 20

var (
	once    sync.Once
	tmpDir  string
	session *gen.Result
	genErr  error
)

// fixture generates the 50 MB session the first time a benchmark asks for it.
func fixture(b *testing.B) *gen.Result {
	b.Helper()
	once.Do(func() {
		tmpDir, genErr = os.MkdirTemp("", "ccsurgeon-bench-")
		if genErr != nil {
			return
		}
		session, genErr = gen.Generate(gen.Options{Size: benchSize, Seed: 1, Dir: tmpDir})
	})
	if genErr != nil {
		b.Fatal(genErr)
	}
	return session
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// BenchmarkLoad indexes the main transcript and its subagent files.
func BenchmarkLoad(b *testing.B) {
	r := fixture(b)
	b.SetBytes(r.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := chain.Load(r.Path)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkLoadValidate is what 'ccsurgeon validate' does.
func BenchmarkLoadValidate(b *testing.B) {
	r := fixture(b)
	b.SetBytes(r.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := chain.Load(r.Path)
		if err != nil {
			b.Fatal(err)
		}
		if rep := validate.Session(s); !rep.Valid() {
			b.Fatalf("generated session is not valid: %v", rep.Problems)
		}
		s.Close()
	}
}

// BenchmarkInfo runs 'ccsurgeon info ID' through package app.
func BenchmarkInfo(b *testing.B) {
	r := fixture(b)
	env := &app.Env{ConfigDir: tmpDir, Out: io.Discard, Err: io.Discard, Quiet: true}
	b.SetBytes(r.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := env.RunInfo(app.InfoOptions{Session: r.SessionID}); err != nil {
			b.Fatal(err)
		}
	}
}
