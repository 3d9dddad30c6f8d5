package ops_test

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

var sessionFileRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$`)

// corpusSessions lists the real transcripts of ../shared/corpus that are
// main session files (named by their session id).
func corpusSessions(t *testing.T) []string {
	t.Helper()
	var out []string
	root := testcorpus.Require(t)
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && sessionFileRe.MatchString(d.Name()) && !strings.Contains(p, "subagents") {
			out = append(out, p)
		}
		return err
	}))
	require.NotEmpty(t, out)
	return out
}

// corpusRepresentatives picks, among the corpus sessions, one per kind:
// the largest of those holding the same set of entry kinds (type:subtype,
// content block types, isMeta, isCompactSummary, a sidecar folder). 25 of
// the 47 corpus sessions are the same empty UI state; resuming each with
// two clients cost 10 minutes of test time and found nothing the others
// did not. Every corpus session still goes through every operation in
// process (TestSpecEveryOperationEverySession).
func corpusRepresentatives(t *testing.T) []string {
	t.Helper()
	type pick struct {
		path string
		size int64
	}
	best := map[string]pick{}
	for _, p := range corpusSessions(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		kinds := map[string]bool{}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if !gjson.ValidBytes(line) {
				kinds["invalid-line"] = true
				continue
			}
			j := gjson.ParseBytes(line)
			kinds[j.Get("type").Str+":"+j.Get("subtype").Str] = true
			j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
				kinds["block:"+b.Get("type").Str] = true
				return true
			})
			if j.Get("isMeta").Bool() {
				kinds["meta"] = true
			}
			if j.Get("isCompactSummary").Bool() {
				kinds["compact-summary"] = true
			}
		}
		if fi, err := os.Stat(strings.TrimSuffix(p, ".jsonl")); err == nil && fi.IsDir() {
			kinds["sidecar"] = true
		}
		keys := make([]string, 0, len(kinds))
		for k := range kinds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sig := strings.Join(keys, ",")
		if b, ok := best[sig]; !ok || int64(len(data)) > b.size || (int64(len(data)) == b.size && p < b.path) {
			best[sig] = pick{p, int64(len(data))}
		}
	}
	var out []string
	for _, b := range best {
		out = append(out, b.path)
	}
	sort.Strings(out)
	return out
}

// TestCorpusOperationsResume applies every operation, their combination,
// clone and fork to one real transcript of each kind in the corpus (Claude
// Code 1.0.98-2.1.38, see corpusRepresentatives): each result passes the
// validation gate, the clone is the original renamed (one bijection of
// its uuids, nothing else changed), the forks' gate holds, and when the
// client resumes the original, the
// results of every operation at once and of dropping every tool call
// resume too, under the API rules, with both pinned clients. Each
// operation alone is held to its specification on every corpus session in
// process (TestSpecEveryOperationEverySession).
func TestCorpusOperationsResume(t *testing.T) {
	t.Parallel()
	specs := map[string]app.OpSpec{
		"strip-thinking":  {StripThinking: true},
		"drop-tool-calls": {Drop: true, DropTools: []string{"Bash", "Read", "Write", "Edit", "Task", "Glob", "Grep", "TodoWrite"}},
		"compress":        {Compress: true, KeepTurns: 1, MaxResult: "300B"},
		"redact":          {Redact: true},
		"all":             {Redact: true, StripThinking: true, Drop: true, DropTools: []string{"Bash"}, Compress: true, KeepTurns: 1},
	}
	reps := corpusRepresentatives(t) // first: without the corpus, skipped before the clients are installed
	for _, c := range harness.Clients(t) {
		for _, src := range reps {
			rel := strings.TrimPrefix(testcorpus.Name(src), "corpus/")
			// each operation, the forks and the clone in a subtest of its
			// own, in an env of its own: their client runs go side by side
			// rather than one after another
			for _, name := range slices.Sorted(maps.Keys(specs)) {
				t.Run(c.Version+"/"+rel+"/"+name, func(t *testing.T) {
					t.Parallel()
					fx := newFixture(t, c, src)
					orig := fx.originalResult(t)
					r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunOps(fx.id, specs[name], app.Dest{New: true}) })
					if len(r.Counts) == 0 {
						return // the operation found nothing to do: the result is a clone, tested below
					}
					// every result passed the gate; the client resumes the
					// two that change the most: every operation at once
					// (strip-thinking, compress and redact are in it) and
					// every tool call dropped
					if orig.OK() && (name == "all" || name == "drop-tool-calls") {
						got := fx.env.Resume(t, c, r.SessionID)
						require.True(t, got.OK(), "%s: the original resumes but the result does not: %s", name, got)
					}
				})
			}
			// fork at every turn the client still sends
			t.Run(c.Version+"/"+rel+"/fork", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				f, err := chain.LoadFile(fx.env.SessionPath(fx.id))
				require.NoError(t, err)
				turns := f.ActiveTurns().List
				f.Close()
				for _, tn := range turns {
					if tn.Compacted {
						continue
					}
					var out, errb strings.Builder
					a := &app.Env{ConfigDir: fx.env.ConfigDir, Out: &out, Err: &errb}
					err := a.RunFork(fx.id, tn.Index, app.BranchOptions{}, app.Dest{New: true})
					require.NoError(t, err, "fork at turn %d: %s", tn.Index, errb.String())
				}
			})
			// the clone is the original renamed (requireRenamed): the
			// same graph, from which the client rebuilds the same
			// conversation; the resume of each representative's clone with each client
			// here (20 client runs, 19 s of CPU in the run log) proved
			// nothing the renaming check does not.
			t.Run(c.Version+"/"+rel+"/clone", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(fx.id, app.BranchOptions{}, app.Dest{}) })
				require.NotEqual(t, fx.id, clone.SessionID)
				requireRenamed(t, rel, fx.env.SessionPath(fx.id), clone.Path)
			})
		}
	}
}
