package ops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestForkCommandShapes: /fork in 2.1.332's TUI writes one of two shapes,
// chosen by the agent view (on unless CLAUDE_CODE_DISABLE_AGENT_VIEW or the
// disableAgentView setting): with it, the conversation is copied into a
// background session that a background service runs (a new session file
// holding the parent's entries with their uuids and a new sessionId, the
// /fork prompt answered, then a <fork-source> notification the client
// sends on its own; the parent gets /fork's local-command records and a
// note the client sends as a user message); without it, a worker fork: a
// subagent whose transcript opens with a fork-context-ref entry (the
// parent's session and last entry), whose end the client reports to the
// parent as a <task-notification> it answers. The background session and
// its parent are checked beside each other, as the client leaves them
// (they share the uuids of the conversation before the fork). The three
// files are in
// testdata (cmd/gentestdata, harness.TUIShapes "fork-session" and
// "fork-agent"; the background service is stopped once the fork has
// answered). Each is held to its specification in process by
// TestSpecEveryOperationEverySession; here both clients resume clone and
// fork-at-turn at every turn of each and send what internal/spec says, and
// the notifications are no turns; compress-old-turns --keep-turns 1 too.
func TestForkCommandShapes(t *testing.T) {
	t.Parallel()
	for _, sh := range []struct {
		file    string
		prompts []string
		// beside is installed in the same project folder first, as the
		// client leaves it: the background session and its parent share
		// every uuid of the conversation before the fork
		beside string
	}{
		{"fork-session.jsonl", []string{"First question.", "Second question.", "Say the forked thing."}, "fork-session-parent.jsonl"},
		{"fork-session-parent.jsonl", []string{"First question.", "Second question.", "Third question."}, "fork-session.jsonl"},
		{"fork-agent.jsonl", []string{"First question.", "Second question.", "Third question."}, ""},
	} {
		t.Run(sh.file, func(t *testing.T) {
			t.Parallel()
			src := interactiveShape(t, sh.file)
			f, err := chain.LoadFile(src)
			require.NoError(t, err)
			prompts := turnPrompts(t, f)
			f.Close()
			require.Equal(t, sh.prompts, prompts, "the turns are the prompts a person typed")

			env := harness.NewEnv(t)
			if sh.beside != "" {
				env.InstallSession(t, interactiveShape(t, sh.beside))
			}
			id := env.InstallSession(t, src)
			checkOps(t, env, id, append(everyTurn(t, env, id), compressKeep1(len(sh.prompts))))
		})
	}
}

// TestForkAgentCloneKeepsContextRef: the worker fork's transcript names
// the parent's session and its last entry before the fork
// (fork-context-ref: parentSessionId, parentLastUuid). A clone gives the
// session a new id and every entry a new uuid: the reference must name
// the clone and the same entry under its new uuid.
func TestForkAgentCloneKeepsContextRef(t *testing.T) {
	t.Parallel()
	env := harness.NewEnv(t)
	id := env.InstallSession(t, interactiveShape(t, "fork-agent.jsonl"))
	// ref returns the session the reference names and the line of the
	// session's file holding the entry it names (-1: none)
	ref := func(sid string) (string, int) {
		agents, err := filepath.Glob(filepath.Join(env.ProjectDir(), sid, "subagents", "agent-*.jsonl"))
		require.NoError(t, err)
		require.Len(t, agents, 1)
		b, err := os.ReadFile(agents[0])
		require.NoError(t, err)
		line, _, _ := bytes.Cut(b, []byte("\n"))
		require.Equal(t, "fork-context-ref", gjson.GetBytes(line, "type").Str)
		main, err := os.ReadFile(env.SessionPath(sid))
		require.NoError(t, err)
		last := gjson.GetBytes(line, "parentLastUuid").Str
		for k, l := range bytes.Split(main, []byte("\n")) {
			if gjson.GetBytes(l, "uuid").Str == last {
				return gjson.GetBytes(line, "parentSessionId").Str, k
			}
		}
		return gjson.GetBytes(line, "parentSessionId").Str, -1
	}
	parent, at := ref(id)
	require.Equal(t, id, parent)
	require.Positive(t, at, "the reference names an entry of the session")
	clone := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunClone(id, app.BranchOptions{}, app.Dest{}) })
	parent, cloneAt := ref(clone.SessionID)
	require.Equal(t, clone.SessionID, parent, "the clone's fork-context-ref names the clone")
	require.Equal(t, at, cloneAt, "the clone's fork-context-ref names the same entry, by its new uuid")
}

// TestPickerShowsForkLastPrompt: 2.1.332's picker (claude --resume) shows
// a session by its file's last last-prompt entry. fork-at-turn 2 of a
// three-turn TUI session (testdata fork-agent: the client wrote
// last-prompt entries for turn 1 and at exit) is listed by its own last
// prompt, turn 2's, beside the original's turn 3; it used to be listed
// by turn 1's, the last entry the client had written before the fork
// point.
func TestPickerShowsForkLastPrompt(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	env := harness.NewEnv(t)
	id := env.InstallSession(t, interactiveShape(t, "fork-agent.jsonl"))
	fork := (&fixture{env: env, id: id}).ccsurgeon(t, func(a *app.Env) error { return a.RunFork(id, 2, app.BranchOptions{}, app.Dest{}) })
	require.NotEmpty(t, fork.SessionID)
	rows := pickerRows(t, env, c, filepath.Join(t.TempDir(), "screens"), "Third question.", "Second question.")
	var titles []string
	for _, r := range rows {
		titles = append(titles, r.Title)
	}
	require.ElementsMatch(t, []string{"Third question.", "Second question."}, titles, "the picker's rows: %v", rows)
}

// interactiveShape is the path of an interactive shape's file in testdata
// (harness.TUIShapes, made by the newest client through cmd/gentestdata).
func interactiveShape(t *testing.T, file string) string {
	return filepath.Join("..", "testdata", "sessions", harness.Latest(t).Sessions, "shapes", file)
}

// everyTurn is clone and fork-at-turn at every turn of the active branch
// of session id in env.
func everyTurn(t *testing.T, env *harness.Env, id string) []specOp {
	f, err := chain.LoadFile(env.SessionPath(id))
	require.NoError(t, err)
	n := len(f.ActiveTurns().List)
	f.Close()
	list := []specOp{cloneOp}
	for k := 1; k <= n; k++ {
		list = append(list, forkAt(t, k))
	}
	return list
}
