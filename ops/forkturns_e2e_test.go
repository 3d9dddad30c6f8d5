package ops_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/stretchr/testify/require"
)

// interruptTurn submits prompt with replies queued, waits until the screen
// shows running (the answer's first words, or the call running), presses
// Escape and waits until the client waits for input again; the input box
// is cleared (the client may put an interrupted prompt back in it).
func interruptTurn(t *testing.T, tui *harness.TUI, env *harness.Env, prompt, running string, replies ...harness.Reply) {
	t.Helper()
	env.Mock.Enqueue(replies...)
	require.NoError(t, tui.Submit(prompt))
	_, err := tui.WaitFor("working on "+prompt, harness.TUIStep, func(s string) bool {
		return strings.Contains(s, "esc to interrupt") && strings.Contains(s, running)
	})
	require.NoError(t, err)
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, tui.Keys("Escape"))
	require.NoError(t, tui.WaitIdle("interrupted "+prompt))
	require.NoError(t, tui.Keys("C-u"))
	time.Sleep(300 * time.Millisecond)
	tui.Snapshot("interrupted " + prompt)
}

// TestForkKeepsTurnsAsTheyHappened: fork-at-turn N is the first N turns as
// they happened, whatever turn N holds, checked with both real clients:
// resuming the fork with a new prompt sends what the client sends for the
// original, cut after turn N (spec.Fork), and the mock API accepts it.
//   - interrupted: a session made at test time by the newest client's TUI
//     whose first turn the person stopped with Escape while the answer was
//     streaming ("[Request interrupted by user]" after the answer's first
//     words: the fork at 1 was refused), then a complete turn;
//   - interrupted-for-tool-use: testdata shapes/interrupted (a Bash call
//     stopped by SIGINT, "[Request interrupted by user for tool use]", of
//     each client), forked at that turn;
//   - unfinished: a session whose file ends inside its last turn's tool loop
//     (testdata thinking-tool-loop: --max-turns stopped it), forked at that
//     turn (the fork removed the turn's prompt and calls).
func TestForkKeepsTurnsAsTheyHappened(t *testing.T) {
	t.Parallel()
	clients := harness.Clients(t)
	// check forks session id of env at each of turns and resumes every fork
	// with both clients; src, when not "", is the testdata file the session
	// was installed from, unchanged, by maker's line: maker's resume of it
	// is the package's shared one (fixture.original), taken before a fork
	// is written (TestCompatibilityWithRealClient and the clone test resume
	// the same file).
	check := func(t *testing.T, env *harness.Env, id string, maker harness.Client, src string, turns []int) {
		t.Helper()
		shared := map[string]harness.ResumeResult{}
		if src != "" {
			shared[maker.Version] = (&fixture{env: env, client: maker, id: id, src: src}).original(t)
		}
		for _, c := range clients {
			orig, ok := shared[c.Version]
			if !ok {
				orig = env.MustResume(t, c, id)
			}
			sent := spec.FromAPI(orig.Messages)
			for _, n := range turns {
				r := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
				got := resultResume(t, env, c, id, r.SessionID, orig)
				require.Empty(t, got.Violations, "fork-at-turn %d resumed by %s", n, c)
				// as sentKey, without a synthetic last answer (what the
				// client adds after a turn without one, the fork's resume too)
				require.Equal(t, withoutSynthetic(spec.Fork(sent, n).Key()), sentKey(got), "fork-at-turn %d: what %s sends", n, c)
			}
		}
	}
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		env := harness.NewEnv(t)
		id := tuiSession(t, env, func(tui *harness.TUI) error {
			slow := harness.TextBlock("and this part takes long to write.")
			slow.Delay = 30 * time.Second
			interruptTurn(t, tui, env, "Start a long answer.", "Writing the first part", harness.Blocks(harness.TextBlock("Writing the first part,"), slow))
			return tui.Turn("What happened?", "It was interrupted.", harness.Text("It was interrupted."))
		})
		f, err := chain.LoadFile(env.SessionPath(id))
		require.NoError(t, err)
		ts := f.ActiveTurns()
		f.Close()
		require.Len(t, ts.List, 2)
		require.True(t, ts.List[0].Interrupted && !ts.List[1].Interrupted, "turn 1 was interrupted: %+v", ts.List)
		check(t, env, id, harness.Client{}, "", []int{1, 2})
	})
	t.Run("interrupted-for-tool-use", func(t *testing.T) {
		t.Parallel()
		for _, c := range clients {
			env := harness.NewEnv(t)
			// installed unchanged: the maker's resume of it is the shared
			// one (TestShapesResumeWithSpec and TestTargetTokensSmallestResumes
			// resume the same file with it; resumed here too, 2 client runs
			// a package run, with other files beside it, so that the run
			// log's digests differed)
			src := filepath.Join("..", "testdata", "sessions", c.Sessions, "shapes", "interrupted.jsonl")
			id := env.InstallSession(t, src)
			check(t, env, id, c, src, []int{2})
		}
	})
	t.Run("unfinished", func(t *testing.T) {
		t.Parallel()
		for _, c := range clients {
			env := harness.NewEnv(t)
			src := filepath.Join("..", "testdata", "sessions", c.Sessions, "thinking-tool-loop.jsonl")
			id := env.InstallSession(t, src)
			check(t, env, id, c, src, []int{2})
		}
	})
}
