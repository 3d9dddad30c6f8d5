package ops_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompressCutsWithTheEstimateAsAlone: compress-old-turns cuts its
// lines on the workers of the estimate of the session as read, as that
// pass reads them (the two passes read most of the file's blocks each);
// a line the estimate does not read, or reads as the file has it where an
// earlier operation edited it (redact-secrets first), is cut on its own.
// Either way the result, the counts and both estimates are those of the
// cut made alone (the estimate made before it: its own pass), on the
// generated shapes and every session of testdata and the corpus. A
// failure names the session, the pipeline and what differs.
func TestCompressCutsWithTheEstimateAsAlone(t *testing.T) {
	files := generateShapes(t, 3, "agentic", "bulk", "dense-secrets")
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		files[p] = p
	}
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	pipelines := map[string]ops.Pipeline{
		"compress":          {ops.CompressOldTurns{KeepTurns: 1, KeepExchanges: 1, MaxResult: 200}},
		"redact, compress":  {ops.RedactSecrets{Scanner: sc}, ops.CompressOldTurns{KeepTurns: 1, KeepExchanges: 1, MaxResult: 200}},
		"compress defaults": {ops.CompressOldTurns{}},
	}
	run := func(s *chain.Session, p ops.Pipeline, alone bool) (out []byte, t *ops.Txn, before, after chain.ResumeEstimate, err error) {
		t = ops.NewTxn(s)
		if alone {
			ops.ResumeEstimates(t) // made first: the cut then reads its own lines
		}
		if err = p.Apply(t); err != nil {
			return
		}
		var buf bytes.Buffer
		if err = t.Render(s.Main)(&buf); err != nil {
			return
		}
		before, after = ops.ResumeEstimates(t)
		return buf.Bytes(), t, before, after, nil
	}
	for name, path := range files {
		s, err := chain.Load(path)
		require.NoError(t, err, name)
		for pname, p := range pipelines {
			withOut, withT, withB, withA, err1 := run(s, p, false)
			aloneOut, aloneT, aloneB, aloneA, err2 := run(s, p, true)
			require.Equal(t, err2 == nil, err1 == nil, "%s, %s: %v / %v", name, pname, err1, err2)
			if err1 != nil {
				continue
			}
			assert.True(t, bytes.Equal(aloneOut, withOut), "%s, %s: the result", name, pname)
			assert.Equal(t, aloneT.Report.Counts, withT.Report.Counts, "%s, %s: the counts", name, pname)
			assert.Equal(t, aloneB.Tokens, withB.Tokens, "%s, %s: the estimate before", name, pname)
			assert.Equal(t, aloneA.Tokens, withA.Tokens, "%s, %s: the estimate after", name, pname)
		}
		s.Close()
	}
}
