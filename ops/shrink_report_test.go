package ops_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkReport grows a real session to about 3 MB (internal/benchgen), applies
// each shrinking operation and their combination, resumes every result
// with the real client, and prints how much each cut from the file and from
// the request the client sends. Run with -v to see the table. On a session
// over 1 MB, compress-old-turns with its defaults must remove at least half
// of the bytes.
func TestShrinkReport(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	env := harness.NewEnv(t)
	g, err := gen.Generate(gen.Options{Size: 3 << 20, Seed: 3, Dir: env.ConfigDir, Project: harness.Slug(env.Cwd)})
	require.NoError(t, err)
	require.Greater(t, g.Bytes, int64(1<<20))
	fx := &fixture{env: env, client: c, id: g.SessionID}
	orig := fx.resume(t, g.SessionID)

	specs := []struct {
		name string
		spec app.OpSpec
	}{
		{"strip-thinking", app.OpSpec{StripThinking: true}},
		{"drop-tool-calls --tool Bash", app.OpSpec{Drop: true, DropTools: []string{"Bash"}}},
		{"drop-tool-calls --larger-than 20KB", app.OpSpec{Drop: true, DropLargerThan: "20KB"}},
		{"compress-old-turns (defaults)", app.OpSpec{Compress: true, KeepTurns: 3}},
		{"redact-secrets", app.OpSpec{Redact: true}},
		{"rewrite: all of them", app.OpSpec{Redact: true, StripThinking: true, Drop: true, DropTools: []string{"Bash"}, Compress: true, KeepTurns: 3}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-36s %12s %12s %7s %14s %14s %7s\n", "operation", "file before", "file after", "cut", "request before", "request after", "cut")
	for _, s := range specs {
		r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunOps(g.SessionID, s.spec, app.Dest{New: true}) })
		got := fx.resume(t, r.SessionID)
		before, after := len(orig.Request.Body), len(got.Request.Body)
		fmt.Fprintf(&table, "%-36s %12d %12d %6.1f%% %14d %14d %6.1f%%\n", s.name, r.BytesBefore, r.BytesAfter,
			100*float64(r.BytesBefore-r.BytesAfter)/float64(r.BytesBefore), before, after, 100*float64(before-after)/float64(before))
		st, err := os.Stat(r.Path)
		require.NoError(t, err)
		assert.Equal(t, r.BytesAfter, st.Size())
		if strings.HasPrefix(s.name, "compress") {
			assert.GreaterOrEqual(t, float64(r.BytesBefore-r.BytesAfter), 0.5*float64(r.BytesBefore),
				"compress-old-turns with its defaults must remove at least half of a session over 1 MB")
		}
	}
	t.Log(table.String())
}
