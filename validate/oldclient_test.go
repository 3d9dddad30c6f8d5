package validate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldClientLines are the lines validate names for what Claude Code 2.0.x
// does not send of a file that the client that wrote it and the newest
// resume whole, by code: progress-parent, the line 2.0.50 resumes from
// (the history above it lost), side-branch-calls, the first entry of the
// parallel calls it drops. Each was measured with 2.0.50 and 2.1.332 on
// the file (ops TestRepairedForOldClients resumes two of them; the rest
// were resumed once by hand, 2026-11-27): for the four 2.1.29 sessions
// with hooks 2.0.50 sent the conversation from that line on, a 400
// ("first message must use the user role") where it is an answer, the
// /exit caveat alone for hook-stop (line 16 is the Stop hook's summary);
// for 2.1.38's streaming calls it sent the 3rd call alone, from its
// answer on (a 400); for 2.1.328's parallel calls it sent the last call
// and its result, the others dropped (every session of 2.1.328 in
// testdata/sessions with calls at once, whatever order they finished in,
// subagents at once included: 2.0.50 sent one call's result of 2 to 5,
// resumed by hand with both clients, 2026-11-27). 2.1.332 sent every file
// whole. Every other session of 2.1.328 there is held to no finding.
var oldClientLines = map[string]map[string]int{
	"corpus:claudeless/v2.1.29/edit-permission-dialog/c2fc3a3f-66d5-4c87-9f78-1a31dd719471.jsonl": {"progress-parent": 8},
	"corpus:claudeless/v2.1.29/hook-session-start/5158bdb4-602c-4c9d-a0c3-b56224e08115.jsonl":     {"progress-parent": 8},
	"corpus:claudeless/v2.1.29/hook-settings-merge/5f0e33cb-5d94-48da-aaa1-1ae26d85da62.jsonl":    {"progress-parent": 10},
	"corpus:claudeless/v2.1.29/hook-stop/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl":              {"progress-parent": 16},
	"chain/testdata/streaming-progress-between-calls.jsonl":                                       {"progress-parent": 7, "side-branch-calls": 13},
	"testdata/sessions/2.1.328/parallel-tools.jsonl":                                              {"side-branch-calls": 24},
	"testdata/sessions/2.1.328/parallel-out-of-order.jsonl":                                       {"side-branch-calls": 20},
	"testdata/sessions/2.1.328/shapes/parallel3-order-321.jsonl":                                  {"side-branch-calls": 20},
	"testdata/sessions/2.1.328/shapes/parallel5-order-31524.jsonl":                                {"side-branch-calls": 23},
	"testdata/sessions/2.1.328/shapes/subagents-at-once.jsonl":                                    {"side-branch-calls": 23},
	"testdata/sessions/2.1.328/inprocess/parallel2-order-12.jsonl":                                {"side-branch-calls": 23},
	"testdata/sessions/2.1.328/inprocess/parallel3-order-132.jsonl":                               {"side-branch-calls": 21},
	"testdata/sessions/2.1.328/inprocess/parallel3-order-213.jsonl":                               {"side-branch-calls": 24},
	"testdata/sessions/2.1.328/inprocess/parallel3-order-231.jsonl":                               {"side-branch-calls": 20},
	"testdata/sessions/2.1.328/inprocess/parallel3-order-312.jsonl":                               {"side-branch-calls": 21},
	"testdata/sessions/2.1.328/inprocess/parallel4-order-2413.jsonl":                              {"side-branch-calls": 22},
	"testdata/sessions/2.1.328/inprocess/parallel4-order-4321.jsonl":                              {"side-branch-calls": 20},
	"testdata/sessions/2.1.328/inprocess/parallel5-order-54321.jsonl":                             {"side-branch-calls": 20},
}

// TestOldClientFindings: validate names, as a warning (the file is sound
// for the client that wrote it and the newest), the line where 2.0.x
// cuts or thins each session of oldClientLines, and nothing of the kind
// on any other session of the corpus or of 2.0.50's generated ones (2.0.x
// writes parallel results one below the other and no progress entry in
// the chain). No session of 2.1.37-2.1.39 is in the corpus: the streaming
// shape is 2.1.38's file that chain keeps (made by its TUI, as ops
// TestStreamingToolsProgressBetweenCalls makes it at test time).
func TestOldClientFindings(t *testing.T) {
	codes := map[string]bool{"progress-parent": true, "side-branch-calls": true}
	found := func(p string) map[string]int {
		s, err := chain.Load(p)
		require.NoError(t, err)
		defer s.Close()
		got := map[string]int{}
		for _, pr := range Session(s).Problems {
			if codes[pr.Code] {
				assert.Equal(t, Warning, pr.Severity, "%s: %s", p, pr)
				assert.Contains(t, pr.Message, "Claude Code 2.0.x", "%s: the message names the client it is about", p)
				_, twice := got[pr.Code]
				assert.False(t, twice, "%s: %s once a file", p, pr.Code)
				got[pr.Code] = pr.Line
			}
		}
		return got
	}
	files := map[string]string{} // name in oldClientLines -> path
	files["chain/testdata/streaming-progress-between-calls.jsonl"] = filepath.Join("..", "chain", "testdata", "streaming-progress-between-calls.jsonl")
	// every session 2.1.328 wrote in testdata (its subagent transcripts
	// and the files of its sidecar folders are not sessions)
	gen := filepath.Join("..", "testdata", "sessions", "2.1.328")
	require.NoError(t, filepath.WalkDir(gen, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		for up := filepath.Dir(p); up != gen; up = filepath.Dir(up) {
			if _, err := os.Stat(up + ".jsonl"); err == nil {
				return nil
			}
		}
		rel, _ := filepath.Rel("..", p)
		files[filepath.ToSlash(rel)] = p
		return nil
	}))
	old, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", "2.0.50", "*.jsonl"))
	require.NoError(t, err)
	for _, p := range old {
		files[p] = p
	}
	root := testcorpus.Require(t)
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !anonymized[filepath.ToSlash(rel)] {
			files["corpus:"+filepath.ToSlash(rel)] = p
		}
		return err
	}))
	for name := range oldClientLines {
		require.Contains(t, files, name)
	}
	for name, p := range files {
		want := oldClientLines[name]
		if want == nil {
			want = map[string]int{}
		}
		assert.Equal(t, want, found(p), name)
	}
	assert.Greater(t, len(files), 60)
}
