package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/require"
)

// TestCloneHasItsOriginalsProblems: a clone is written without indexing
// its output again for the validation gate (its lines are the original's
// with the identifiers renamed: app render, ops.Txn.OnlyRenames). Here the
// output is indexed and validated after all: it has exactly the errors of
// its original (line and code), on every session of testdata
// and the corpus and on generated sessions with thousands of problems.
func TestCloneHasItsOriginalsProblems(t *testing.T) {
	cfg := t.TempDir()
	var paths []string
	corpus := testcorpus.Optional(t)
	for _, root := range []string{"../../testdata/sessions", corpus} {
		if root == "" {
			continue
		}
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				paths = append(paths, p)
			}
			return err
		}))
	}
	// sessions with thousands of problems: lost lines, self-parents,
	// duplicates, cut lines, loops of parents, a torn last line
	for seed := int64(1); seed <= 3; seed++ {
		g, err := gen.GenerateDamaged(gen.Options{Size: 2 << 20, Seed: seed, Dir: cfg, Project: fmt.Sprintf("-damaged%d", seed)})
		require.NoError(t, err)
		paths = append(paths, g.Path)
	}
	key := func(ps []validate.Problem) []string {
		var out []string
		for _, p := range ps {
			if p.Severity == validate.Error { // what the gate weighs (validate.Introduced)
				out = append(out, fmt.Sprintf("%d %s", p.Line, p.Code))
			}
		}
		slices.Sort(out)
		return out
	}
	out := filepath.Join(t.TempDir(), "clone.jsonl")
	cloned, problems := 0, 0
	for _, p := range paths {
		in, err := chain.LoadFile(p)
		if err != nil {
			continue // not a session
		}
		var o, e bytes.Buffer
		env := &Env{ConfigDir: cfg, JSON: true, Out: &o, Err: &e}
		os.Remove(out) // -o never replaces a session, the last clone included
		if err := env.RunClone(p, BranchOptions{}, Dest{Output: out, Force: true}); err != nil {
			in.Close()
			t.Logf("%s: %v %s", p, err, e.String())
			continue // refused (not a session, or no entries): nothing written
		}
		var res WriteResult
		require.NoError(t, json.Unmarshal(o.Bytes(), &res), o.String())
		sid := ""
		if s, err := chain.Load(p); err == nil {
			sid = s.ID
			s.Close()
		}
		got, err := chain.LoadFile(out)
		require.NoError(t, err)
		want := key(validate.File(in, sid))
		require.Equal(t, want, key(validate.File(got, res.SessionID)), "%s", p)
		problems += len(want)
		require.Equal(t, len(in.Entries), len(got.Entries), "%s", p)
		cloned++
		in.Close()
		got.Close()
	}
	least := 100 // testdata and the corpus
	if corpus == "" {
		least = 50 // testdata alone (60 sessions)
	}
	require.Greater(t, cloned, least)
	require.Greater(t, problems, 300, "the damaged sessions' errors")
}
