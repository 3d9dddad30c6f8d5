package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

func TestStructuralPathsRewritesWholePathsOutsideContent(t *testing.T) {
	from, to := jsonText("/home/u/app"), jsonText("/home/u/new app")
	for _, tc := range []struct{ in, want string }{
		{`{"cwd":"/home/u/app","x":1}`, `{"cwd":"/home/u/new app","x":1}`},
		{`{"cwd":"/home/u/app/sub"}`, `{"cwd":"/home/u/new app/sub"}`},
		{`{"cwd":"/home/u/app2"}`, `{"cwd":"/home/u/app2"}`},   // another folder
		{`{"cwd":"/x/home/u/app"}`, `{"cwd":"/x/home/u/app"}`}, // not a path under from
		{`{"snapshot":{"a":{"realParentDir":"/home/u/app"}}}`, `{"snapshot":{"a":{"realParentDir":"/home/u/new app"}}}`},
		{`{"message":{"content":"cd /home/u/app"},"cwd":"/home/u/app"}`, `{"message":{"content":"cd /home/u/app"},"cwd":"/home/u/new app"}`},
		{`{"type":"relocated","relocatedCwd":"/home/u/app"}`, `{"type":"relocated","relocatedCwd":"/home/u/new app"}`},
	} {
		got, _ := structuralPaths([]byte(tc.in), from, to)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
}

// TestStructuralPathsMakesTheLineOnce: a move rewrites the cwd of every
// line as it writes; a line with a path or two to rewrite is made in one
// slice, not appended into ever bigger ones (growing it was a tenth of the
// CPU of a move of a chain of small entries).
func TestStructuralPathsMakesTheLineOnce(t *testing.T) {
	from, to := jsonText("/home/u/app"), jsonText("/home/someone-else/projects/the-new-app")
	line := []byte(`{"parentUuid":"a","cwd":"/home/u/app","sessionId":"s","message":{"role":"user","content":"` + string(bytes.Repeat([]byte("x"), 800)) + `"},"snapshot":{"realParentDir":"/home/u/app/sub"},"uuid":"b"}`)
	want := bytes.ReplaceAll(line, []byte(`"/home/u/app`), append([]byte(`"`), to...))
	got, n := structuralPaths(line, from, to)
	require.Equal(t, 2, n)
	require.Equal(t, string(want), string(got))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { structuralPaths(line, from, to) }), "allocations per line")
}

func TestReplacePathKeepsOtherNames(t *testing.T) {
	from, to := jsonText("/home/u/app"), jsonText("/srv/app")
	for _, tc := range []struct{ in, want string }{
		{`"cat /home/u/app/a.go"`, `"cat /srv/app/a.go"`},
		{`"ls /home/u/app"`, `"ls /srv/app"`},
		{`"ls /home/u/app2 /home/u/app.txt"`, `"ls /home/u/app2 /home/u/app.txt"`},
		{`"/y/home/u/app/x"`, `"/y/home/u/app/x"`},
		{`"a\n/home/u/app:1"`, `"a\n/srv/app:1"`},
	} {
		got, _ := replacePath([]byte(tc.in), from, to)
		assert.Equal(t, tc.want, string(got), tc.in)
	}
}

// TestMoveKeepsTheIndex: a move holds no line's new bytes (every line of a
// session has its cwd: holding them held a copy of the file, twice its
// size on a chain of a million small entries) and, where its paths lie
// only in fields the index does not read, its result indexes as the input
// does but for offsets and lengths, and validates the same: the gate then
// skips the second index (Txn.KeepsIndex). A path in a field the index
// reads (agentId here) makes the result indexed and checked again.
func TestMoveKeepsTheIndex(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	if corpus := testcorpus.Optional(t); corpus != "" {
		m, _ := filepath.Glob(filepath.Join(corpus, "*", "*", "*", "*.jsonl"))
		paths = append(paths, m...)
	}
	require.NotEmpty(t, paths)
	mapped := 0
	for _, p := range paths {
		s, err := chain.Load(p)
		require.NoError(t, err)
		cwd := ""
		for i := range s.Main.Entries {
			raw, err := s.Main.Raw(i)
			require.NoError(t, err)
			if cwd = gjson.GetBytes(raw, "cwd").Str; cwd != "" {
				break
			}
		}
		if cwd == "" {
			s.Close()
			continue
		}
		tx := NewTxn(s)
		require.NoError(t, Pipeline{&Relocate{From: cwd, To: "/moved/else where"}}.Apply(tx))
		for _, f := range s.Files() {
			assert.Empty(t, tx.Edits(f), "%s: a move holds no line's bytes", f.Path)
			if !tx.MapsLines(f) {
				continue
			}
			mapped++
			require.True(t, tx.KeepsIndex(f), f.Path)
			var out bytes.Buffer
			require.NoError(t, tx.Render(f)(&out))
			assert.Contains(t, out.String(), `"cwd":"/moved/else where`, f.Path)
			g, err := chain.LoadBytes(f.Path, out.Bytes())
			require.NoError(t, err)
			require.Len(t, g.Entries, len(f.Entries), f.Path)
			for i := range f.Entries {
				want, got := f.Entries[i], g.Entries[i]
				want.Off, want.Len, got.Off, got.Len = 0, 0, 0, 0
				if !assert.Equal(t, want, got, "%s:%d", f.Path, i+1) {
					break
				}
			}
			sid := ""
			if f == s.Main {
				sid = s.ID
			}
			g.Sidechain = f.Sidechain
			assert.Equal(t, validate.File(f, sid), validate.File(g, sid), f.Path)
		}
		s.Close()
	}
	assert.Positive(t, mapped)

	// a path where the index reads it
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"s","cwd":"/old/p","agentId":"/old/p/a","message":{"role":"user","content":"hi"}}`+"\n"), 0o644))
	s, err := chain.Load(p)
	require.NoError(t, err)
	defer s.Close()
	tx := NewTxn(s)
	require.NoError(t, Pipeline{&Relocate{From: "/old/p", To: "/new/p"}}.Apply(tx))
	assert.True(t, tx.MapsLines(s.Main))
	assert.False(t, tx.KeepsIndex(s.Main), "agentId is read by the index")
	assert.Equal(t, 2, tx.Report.Counts[CountPathsRewritten])
	assert.Equal(t, 1, tx.Stats().Changed)
	var out bytes.Buffer
	require.NoError(t, tx.Render(s.Main)(&out))
	assert.Equal(t, `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"s","cwd":"/new/p","agentId":"/new/p/a","message":{"role":"user","content":"hi"}}`+"\n", out.String())
}

// TestMoveWritesWhatTheWalkWrites: a move's write puts the new path where
// its count found the old one in each line (pathSpans), without walking
// the line's fields again; a line an edit made (--rewrite-paths' content
// changes, which move the cwd within the line) is walked. The result is
// byte for byte that of walking every line (structuralPaths), on every
// file of testdata and the corpus, moved from its cwd, from the folder
// above it and with --rewrite-paths, and on hand-made lines whose content
// before the cwd --rewrite-paths grows or shrinks. A failure names the
// file and the first line that differs.
func TestMoveWritesWhatTheWalkWrites(t *testing.T) {
	check := func(p, from, to string, rewrite bool) {
		s, err := chain.Load(p)
		require.NoError(t, err)
		defer s.Close()
		tx := NewTxn(s)
		require.NoError(t, Pipeline{&Relocate{From: from, To: to, RewritePaths: rewrite}}.Apply(tx))
		fb, tb := jsonText(from), jsonText(to)
		for _, f := range s.Files() {
			var got, want bytes.Buffer
			require.NoError(t, tx.Render(f)(&got))
			_, err := f.WriteWithAt(&want, tx.edits[f], func(_ int, raw []byte) []byte { out, _ := structuralPaths(raw, fb, tb); return out }, nil)
			require.NoError(t, err)
			if !bytes.Equal(want.Bytes(), got.Bytes()) {
				w, g := bytes.Split(want.Bytes(), []byte("\n")), bytes.Split(got.Bytes(), []byte("\n"))
				for k := 0; k < min(len(w), len(g)); k++ {
					require.Equal(t, string(w[k]), string(g[k]), "%s line %d, move from %s (rewrite paths %v)", f.Path, k+1, from, rewrite)
				}
				require.Fail(t, "the line counts differ", "%s, move from %s", f.Path, from)
			}
		}
	}
	moved := 0
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		cwd := ""
		for i := range f.Entries {
			if raw, err := f.Raw(i); err == nil {
				if cwd = gjson.GetBytes(raw, "cwd").Str; cwd != "" {
					break
				}
			}
		}
		f.Close()
		if cwd == "" || !filepath.IsAbs(cwd) {
			continue
		}
		moved++
		check(p, cwd, "/moved/else where", false)
		check(p, cwd, "/m", true)
		if d := filepath.Dir(cwd); d != "/" {
			check(p, d, "/a/much/longer/place/than/before", false)
		}
	}
	require.Greater(t, moved, 20)

	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"/old/p/a /old/p/b"}]},"cwd":"/old/p","x":{"realParentDir":"/old/p/sub"}}` + "\n" +
		`{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","parentUuid":"00000000-0000-4000-8000-000000000001","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/old/p/a.go"}}]},"cwd":"/old/p"}` + "\n"
	require.NoError(t, os.WriteFile(p, []byte(lines), 0o644))
	check(p, "/old/p", "/n", true)
	check(p, "/old/p", "/a/much/longer/place", true)
	check(p, "/old/p", "/n", false)
}
