package ops_test

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/app"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/harness"
	"github.com/stretchr/testify/require"
)

var sessionFileRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$`)

// corpusSessions lists the real transcripts of ../shared/corpus that are
// main session files (named by their session id).
func corpusSessions(t *testing.T) []string {
	t.Helper()
	var out []string
	root := filepath.Join("..", "..", "shared", "corpus")
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && sessionFileRe.MatchString(d.Name()) && !strings.Contains(p, "subagents") {
			out = append(out, p)
		}
		return err
	}), "../shared/corpus must be beside the repository")
	require.NotEmpty(t, out)
	return out
}

// TestCorpusOperationsResume applies every operation, their combination,
// clone and fork to every real transcript of the corpus (Claude Code
// 1.0.98-2.1.38): each result passes the validation gate, and each result
// of a session the client resumes resumes too, under the API rules, with
// both pinned clients.
func TestCorpusOperationsResume(t *testing.T) {
	specs := map[string]app.OpSpec{
		"strip-thinking":  {StripThinking: true},
		"drop-tool-calls": {Drop: true, DropTools: []string{"Bash", "Read", "Write", "Edit", "Task", "Glob", "Grep", "TodoWrite"}},
		"compress":        {Compress: true, KeepTurns: 1, MaxResult: "300B"},
		"redact":          {Redact: true},
		"all":             {Redact: true, StripThinking: true, Drop: true, DropTools: []string{"Bash"}, Compress: true, KeepTurns: 1},
	}
	for _, c := range harness.Clients(t) {
		for _, src := range corpusSessions(t) {
			rel, _ := filepath.Rel(filepath.Join("..", "..", "shared", "corpus"), src)
			t.Run(c.Version+"/"+rel, func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t, c, src)
				orig := fx.env.Resume(t, c, fx.id)
				for name, spec := range specs {
					r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunOps(fx.id, spec, app.Dest{New: true}) })
					if len(r.Counts) == 0 {
						continue // the operation found nothing to do: the result is a clone, tested below
					}
					if orig.OK() {
						got := fx.env.Resume(t, c, r.SessionID)
						require.True(t, got.OK(), "%s: the original resumes but the result does not: %s", name, got)
					}
				}
				// fork at every turn the client still sends
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
					if err != nil && strings.Contains(err.Error(), "no complete answer") {
						continue // a turn the session never finished: nothing to fork
					}
					require.NoError(t, err, "fork at turn %d: %s", tn.Index, errb.String())
				}
				clone := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(fx.id, app.BranchOptions{}, app.Dest{}) })
				if orig.OK() {
					got := fx.env.Resume(t, c, clone.SessionID)
					require.True(t, got.OK(), "clone: %s", got)
					harness.AssertSameConversation(t, sameNormalizer(fx.env, fx.id, clone.SessionID), orig, got)
				}
			})
		}
	}
}
