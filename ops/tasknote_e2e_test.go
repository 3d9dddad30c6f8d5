package ops_test

import (
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/spec"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestTaskNotificationIsNoTurn: turns are what a person typed. A session
// made at test time by the newest client's TUI: turn 1 starts a Bash call
// in the background and is answered; when the call ends, the client sends
// a <task-notification> message on its own (origin.kind
// "task-notification") and the model answers it; then the person types
// turn 2. The notification is no turn of its own: it belongs to turn 1, in
// chain's numbering (turns, and every operation that takes a turn: fork,
// strip-thinking --before-turn, drop-tool-calls --turns, compress
// --keep-turns, all checked in process against their specification) and
// in what the client sends for a fork at each turn.
func TestTaskNotificationIsNoTurn(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := tuiSession(t, env, func(tui *harness.TUI) error {
		bg := harness.Blocks(harness.ToolUse("Bash", map[string]any{"command": "sleep 2 && echo bg-done", "description": "background job", "run_in_background": true}))
		if err := tui.Turn("Start the job in the background.", "Started.", bg, harness.Text("Started.")); err != nil {
			return err
		}
		env.Mock.Enqueue(harness.Text("The job finished."))
		if _, err := tui.WaitStable("the notification answered", harness.TUIStep, time.Second, func(s string) bool {
			return harness.Idle(s) && env.Mock.Pending(harness.KindMain) == 0
		}); err != nil {
			return err
		}
		return tui.Turn("Thanks.", "You are welcome.", harness.Text("You are welcome."))
	})
	path := env.SessionPath(id)
	f, err := chain.LoadFile(path)
	require.NoError(t, err)
	notes := 0
	for i := range f.Entries {
		if e := &f.Entries[i]; e.Type() == "user" && e.ByClient() {
			notes++
		}
	}
	prompts := turnPrompts(t, f)
	f.Close()
	require.Equal(t, 1, notes, "the client sent one notification")
	require.Equal(t, []string{"Start the job in the background.", "Thanks."}, prompts, "the notification is no turn")

	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	checkSpecCases(t, path, "task-notification", sc)

	c := harness.Latest(t)
	sent := spec.FromAPI(env.MustResume(t, c, id).Messages)
	for n := 1; n <= 2; n++ {
		r := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, n, app.BranchOptions{}, app.Dest{}) })
		require.Equal(t, spec.Fork(sent, n).Key(), sentKey(env.MustResume(t, c, r.SessionID)), "fork-at-turn %d: what %s sends", n, c)
	}
	require.Contains(t, spec.Fork(sent, 1).Key(), `assistant: text("The job finished.")`, "turn 1 holds the notification's answer")
}

// turnPrompts is the prompt of every turn of f's active branch, as turns
// numbers them.
func turnPrompts(t *testing.T, f *chain.File) []string {
	t.Helper()
	var prompts []string
	for _, tn := range f.ActiveTurns().List {
		p, err := f.PromptText(tn.Entry)
		require.NoError(t, err)
		prompts = append(prompts, p)
	}
	return prompts
}
