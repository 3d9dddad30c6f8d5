package ops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloneAbandonedBranch: rewind.jsonl was made with the real TUI: three
// turns, /rewind to turn 2, another prompt. The client resumes the new
// branch; cloning with the abandoned branch's leaf (or its number) brings
// the abandoned conversation back, with the file-history backups that
// /rewind's code restore needs.
func TestCloneAbandonedBranch(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "testdata", "sessions", "2.1.328", "rewind.jsonl")
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, src)
			require.NoError(t, fx.env.InstallFileHistory(filepath.Join("..", "testdata", "sessions", "2.1.328", "rewind-file-history"), fx.id))

			f, err := chain.LoadFile(fx.env.SessionPath(fx.id))
			require.NoError(t, err)
			branches := f.Graph().Branches()
			require.Len(t, branches, 2)
			active := f.Graph().ActiveLeaf()
			abandoned := branches[0]
			if abandoned == active {
				abandoned = branches[1]
			}
			leaf := f.Entries[abandoned].UUID()
			f.Close()

			orig := fx.original(t)
			assert.Contains(t, string(orig.Request.Body), "Branch B answer.")
			assert.NotContains(t, string(orig.Request.Body), "Branch A final answer.")

			for _, opt := range []app.BranchOptions{{Leaf: leaf}, {Branch: 1}} {
				r := fx.ccsurgeon(t, func(a *app.Env) error { return a.RunClone(fx.id, opt, app.Dest{}) })
				got := fx.resume(t, r.SessionID)
				body := string(got.Request.Body)
				assert.Contains(t, body, "Branch A final answer.")
				assert.Contains(t, body, "Append a line to notes.txt")
				assert.NotContains(t, body, "Take the other road")
				assert.NotContains(t, body, "Branch B answer.")

				// file-history backups exist for the new id, file for file
				want, err := os.ReadDir(fx.env.FileHistoryDir(fx.id))
				require.NoError(t, err)
				have, err := os.ReadDir(fx.env.FileHistoryDir(r.SessionID))
				require.NoError(t, err)
				require.Equal(t, len(want), len(have))
				for _, w := range want {
					a, _ := os.ReadFile(filepath.Join(fx.env.FileHistoryDir(fx.id), w.Name()))
					b, err := os.ReadFile(filepath.Join(fx.env.FileHistoryDir(r.SessionID), w.Name()))
					require.NoError(t, err)
					assert.Equal(t, a, b)
				}
			}
		})
	}
}

// TestTurnsAllListsBothBranches: turns --all shows the abandoned branch
// and marks the one the client resumes.
func TestTurnsAllListsBothBranches(t *testing.T) {
	var out, errb strings.Builder
	a := &app.Env{Out: &out, Err: &errb}
	require.NoError(t, a.RunTurns(app.TurnsOptions{Session: filepath.Join("..", "testdata", "sessions", "2.1.328", "rewind.jsonl"), All: true}))
	s := out.String()
	assert.Contains(t, s, "branch 1 (leaf")
	assert.Contains(t, s, "branch 2 (leaf")
	assert.Contains(t, s, "Say something")
	assert.Contains(t, s, "Take the other road")
	assert.Regexp(t, `branch 2 \(leaf [0-9a-f-]+, active`, s)
}
