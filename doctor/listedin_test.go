package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhereAGoneProjectIsListedIsDecidedOncePerFolder: each session of a
// gone project is told where the client lists it (ListedIn: the one
// existing project of its folder's slug), and Check worked that out for
// every session over every working directory it knows: n sessions of one
// gone project, n² cleaned paths (doctor on 4,000: 2.4 s of CPU, 0.28 s on
// 1,000, 42% of it filepath.Clean in listedIn). It is one answer per
// folder, the same for each of its sessions.
func TestWhereAGoneProjectIsListedIsDecidedOncePerFolder(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	here := filepath.Join(root, "work", "my-app") // exists
	gone := filepath.Join(root, "work", "my.app") // the same slug, gone
	require.NoError(t, os.MkdirAll(here, 0o700))
	folder := filepath.Join(cfg, "projects", chain.ProjectSlug(here))
	require.NoError(t, os.MkdirAll(folder, 0o700))
	var sessions []string
	add := func(i int, cwd string) {
		id := fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1)
		p := filepath.Join(folder, id+".jsonl")
		line := fmt.Sprintf(`{"type":"user","uuid":"10000000-0000-0000-0000-%012d","parentUuid":null,"sessionId":%q,"cwd":%q,"message":{"role":"user","content":"hi"}}`+"\n", i+1, id, cwd)
		require.NoError(t, os.WriteFile(p, []byte(line), 0o600))
		sessions = append(sessions, p)
	}
	add(0, here)
	const n = 8
	for i := 1; i <= n; i++ {
		add(i, gone)
	}
	before := listedInRuns.Load()
	fs := Check(Options{ConfigDir: cfg, Sessions: sessions, GOOS: "linux"})
	goneSeen := 0
	for _, f := range fs {
		if f.Kind == ProjectGone {
			goneSeen++
			assert.Equal(t, here, f.ListedIn, "%s", f.Path)
		}
	}
	require.Equal(t, n, goneSeen, "the sessions of the gone project: %+v", fs)
	assert.Equal(t, int64(1), listedInRuns.Load()-before, "where %d sessions of one folder are listed was worked out %d times", n, listedInRuns.Load()-before)
}
