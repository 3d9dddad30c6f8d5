package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// TestGenerateValid grows a ~1 MB session and checks that it loads, is
// valid, and comes out byte for byte the same for the same seed.
func TestGenerateValid(t *testing.T) {
	dir := t.TempDir()
	r, err := Generate(Options{Size: 1 << 20, Seed: 7, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r.Bytes < 1<<20 || r.Copies < 2 {
		t.Fatalf("too small: %+v", r)
	}
	s, err := chain.Load(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep := validate.Session(s)
	for _, p := range rep.Problems {
		if !p.OldClientOnly() { // the real sessions it repeats have them: 2.1.x writes parallel results so
			t.Errorf("%s", p)
		}
	}
	if len(s.Subagents) != r.Subagents {
		t.Errorf("loaded %d subagents, wrote %d", len(s.Subagents), r.Subagents)
	}
	for _, a := range s.Subagents {
		if a.ParentEntry < 0 {
			t.Errorf("subagent %s is linked to no Agent call", a.AgentID)
		}
	}
	roots := 0
	for i := range s.Main.Entries {
		e := &s.Main.Entries[i]
		if e.SessionID() != "" && e.SessionID() != r.SessionID {
			t.Fatalf("line %d: sessionId %s", e.Line, e.SessionID())
		}
		if e.IsChain() && !e.HasParent() {
			roots++
		}
	}
	if roots != 1 {
		t.Errorf("%d roots, want 1 (copies chained end to start)", roots)
	}

	again := t.TempDir()
	r2, err := Generate(Options{Size: 1 << 20, Seed: 7, Dir: again})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(r.Path)
	b, _ := os.ReadFile(r2.Path)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different output")
	}
	if filepath.Base(r2.Path) != r.SessionID+".jsonl" {
		t.Errorf("path %s", r2.Path)
	}
}

func TestSignMatchesHarness(t *testing.T) {
	for _, s := range []string{"", "thinking", "a longer\nthought"} {
		if Sign(s) != harness.Sign(s) {
			t.Errorf("Sign(%q) differs from harness.Sign", s)
		}
	}
}

func TestGenerateMany(t *testing.T) {
	dir := t.TempDir()
	rs, err := GenerateMany(dir, "-ls", 3, 100<<10, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.SessionID] {
			t.Errorf("session id %s twice", r.SessionID)
		}
		seen[r.SessionID] = true
		if filepath.Dir(r.Path) != filepath.Join(dir, "projects", "-ls") {
			t.Errorf("path %s", r.Path)
		}
	}
}

// TestShapesValid makes a small session of every registered shape and
// checks that it loads and validates with no problem, reaches its size,
// and hangs from one root; a damaged shape has the errors it was made
// with, and no other kind.
func TestShapesValid(t *testing.T) {
	for _, sh := range Shapes() {
		t.Run(sh.Name, func(t *testing.T) {
			t.Parallel()
			r, err := sh.Generate(Options{Size: 400 << 10, Seed: 3, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if r.Bytes < 400<<10 {
				t.Errorf("%d bytes, want at least %d", r.Bytes, 400<<10)
			}
			s, err := chain.Load(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if sh.Damaged != nil {
				// damaged on purpose: every kind of error it was given,
				// and no other
				codes := map[string]int{}
				for _, p := range validate.Session(s).Problems {
					if p.Severity == validate.Error {
						codes[p.Code]++
					}
				}
				for _, c := range sh.Damaged {
					if codes[c] == 0 {
						t.Errorf("no %s error", c)
					}
					delete(codes, c)
				}
				for c, n := range codes {
					t.Errorf("%d %s errors, not among the damage made", n, c)
				}
				return
			}
			for _, p := range validate.Session(s).Problems {
				if !p.OldClientOnly() { // as the real sessions it repeats
					t.Errorf("%s", p)
				}
			}
			roots := 0
			for i := range s.Main.Entries {
				if e := &s.Main.Entries[i]; e.IsChain() && !e.HasParent() {
					roots++
				}
			}
			if roots != 1 {
				t.Errorf("%d roots, want 1", roots)
			}
		})
	}
}
