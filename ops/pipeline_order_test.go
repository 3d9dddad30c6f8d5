package ops_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	. "github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// render applies p to the session in data and returns the main file's bytes.
func renderPipeline(t *testing.T, path string, data []byte, p Pipeline) []byte {
	t.Helper()
	f, err := chain.LoadBytes(path, data)
	require.NoError(t, err)
	s := &chain.Session{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path, ProjectDir: filepath.Dir(path), Main: f}
	tx := NewTxn(s)
	if err := p.Apply(tx); err != nil {
		return []byte("error: " + err.Error())
	}
	for what, n := range tx.Report.Counts {
		// the report lists what was done: a count of nothing is not one
		require.Positive(t, n, "%s: %s reports %s: %d", path, p.Name(), what, n)
	}
	var out bytes.Buffer
	require.NoError(t, tx.Render(f)(&out))
	return out.Bytes()
}

// setEveryLine is an operation that sets every other message line to a
// copy of its current bytes: it changes nothing, but every later operation
// reads edited and unedited lines in turn.
type setEveryLine struct{}

func (setEveryLine) Name() string { return "set-every-line" }

func (setEveryLine) Apply(t *Txn) error {
	f := t.S.Main
	for i := range f.Entries {
		if i%2 == 1 || !f.Entries[i].IsMessage() || t.Dropped(f, i) {
			continue
		}
		raw, err := t.Raw(f, i)
		if err != nil {
			return err
		}
		t.Set(f, i, append([]byte(nil), raw...))
	}
	return nil
}

// TestPipelineEqualsOperationsOneAfterTheOther: operations composed in one
// transaction make the bytes that applying them one after the other (each
// written and read back) makes, for every pair in both orders, on every
// generated session. The edits compose: one operation's set, late or
// dropped lines are what the next reads, whatever order the lines are cut
// in and whichever buffers the passes reuse.
func TestPipelineEqualsOperationsOneAfterTheOther(t *testing.T) {
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	ops := map[string]Op{
		"strip-thinking": StripThinking{},
		"compress":       CompressOldTurns{KeepTurns: 1, KeepExchanges: 1, MaxResult: 40},
		"redact":         RedactSecrets{Scanner: sc},
		"drop-bash":      DropToolCalls{Tools: []string{"Bash"}},
		"set-every-line": setEveryLine{},
	}
	names := []string{"strip-thinking", "compress", "redact", "drop-bash", "set-every-line"}
	var files []string
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "testdata", "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			files = append(files, p)
		}
		return err
	}))
	require.NotEmpty(t, files)
	// and a bigger one made of them: many old turns with long thinking,
	// long tool output and images, several passes' worth of lines
	big, err := gen.Generate(gen.Options{Size: 3 << 20, Seed: 7, Dir: t.TempDir()})
	require.NoError(t, err)
	files = append(files, big.Path)
	pairs := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		path := filepath.Join("/p", "-x", filepath.Base(p))
		for _, a := range names {
			for _, b := range names {
				if a == b {
					continue
				}
				together := renderPipeline(t, path, data, Pipeline{ops[a], ops[b]})
				first := renderPipeline(t, path, data, Pipeline{ops[a]})
				var apart []byte
				if bytes.HasPrefix(first, []byte("error: ")) {
					apart = first
				} else {
					apart = renderPipeline(t, path, first, Pipeline{ops[b]})
				}
				require.Equal(t, string(apart), string(together), "%s: %s then %s in one transaction differs from one after the other", p, a, b)
				pairs++
			}
		}
	}
	t.Logf("%d (session, pair) cases the same", pairs)
}
