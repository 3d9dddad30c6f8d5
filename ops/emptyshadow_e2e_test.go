package ops_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// continueSends runs 'claude -p PROMPT --continue' with c in the env's
// project and returns the messages of its last main request, joined.
func continueSends(t *testing.T, env *harness.Env, c harness.Client, prompt string) string {
	t.Helper()
	env.Mock.Reset()
	env.Mock.Enqueue(harness.Text("continued"))
	res, err := env.Exec(c, prompt, "--continue", "--dangerously-skip-permissions")
	require.NoError(t, err, res.Stderr)
	sent := ""
	for _, r := range env.Mock.RequestsOf(harness.KindMain) {
		sent = joinMessages(r.Messages())
	}
	require.NotEmpty(t, sent, "--continue sent no request: %s %s", res.Stdout, res.Stderr)
	return sent
}

// TestEmptyNewestFileShadowsContinue (issue 32, follow-up 4): 2.0.50's -p
// --resume leaves an empty <id>.jsonl in the project folder (made at its
// start, before it writes the session it resumes). When that empty file is
// the newest of the folder (here: the session's time set an hour back, as
// a restore or a time-keeping copy leaves it), 2.1.332's --continue takes
// it and starts from nothing. doctor names it (exit 1, nothing changed);
// ccsurgeon's own default (no SESSION: the session --continue takes)
// refuses, naming both files, rather than quietly take another one than
// the client; with the empty file gone, both take the session again.
func TestEmptyNewestFileShadowsContinue(t *testing.T) {
	latest, old := harness.Latest(t), harness.Old(t)
	env := harness.NewEnv(t)
	s := env.Turn(t, old, "", "Remember SHADOW-MARK.", harness.Text("Remembered."))
	env.Turn(t, old, s, "Second question.", harness.Text("Second answer."))
	empties := chain.EmptySessionFiles(env.ProjectDir())
	if len(empties) == 0 {
		// 2.0.50 left none this time (seen once, with other client tests
		// running beside it): one like those it leaves
		t.Log("2.0.50's -p --resume left no empty <id>.jsonl this run: one made like it")
		e := filepath.Join(env.ProjectDir(), "0badc0de-0000-4000-8000-000000000000.jsonl")
		require.NoError(t, os.WriteFile(e, nil, 0o600))
		empties = []string{e}
	}
	require.Len(t, empties, 1, "2.0.50's -p --resume left an empty <id>.jsonl")
	empty := empties[0]
	hour := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(env.SessionPath(s), hour, hour))

	// doctor names it, changes nothing
	var out, errb bytes.Buffer
	a := &app.Env{ConfigDir: env.ConfigDir, JSON: true, Quiet: true, Out: &out, Err: &errb}
	before := configFiles(t, env.ConfigDir)
	err := a.RunDoctor(app.DoctorOptions{Fix: true})
	var ee *app.Error
	require.ErrorAs(t, err, &ee, "%s", out.String())
	var r app.DoctorResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &r))
	var f *app.DoctorFinding
	for i := range r.Findings {
		if r.Findings[i].Kind == doctor.EmptyNewest {
			f = &r.Findings[i]
		}
	}
	require.NotNil(t, f, "%+v", r.Findings)
	assert.Equal(t, empty, f.Path)
	assert.Equal(t, env.SessionPath(s), f.Shadows)
	assert.Equal(t, env.Cwd, f.Project)
	assert.Equal(t, app.CdAnd(env.Cwd, "claude --resume "+s), f.Command)
	assert.Empty(t, r.Fixed, "--fix leaves it: a running client may still write to it")
	assert.Equal(t, before, configFiles(t, env.ConfigDir), "doctor --fix changed the config dir")

	// ccsurgeon's default refuses, naming the empty file and the session
	t.Chdir(env.Cwd)
	_, err = (&app.Env{ConfigDir: env.ConfigDir}).ContinueSession()
	var ce *app.ContinueEmptyError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, empty, ce.Empty)
	assert.Equal(t, env.SessionPath(s), ce.Session)

	// the client: --continue starts from nothing
	sent := continueSends(t, env, latest, "And now?")
	assert.NotContains(t, sent, "SHADOW-MARK", "2.1.332 --continue went on with the session, not the empty file")

	// control: without the empty file (which the client has now written
	// its fresh conversation into), both take the session
	require.NoError(t, os.Remove(empty))
	require.NoError(t, os.Chtimes(env.SessionPath(s), time.Now(), time.Now()))
	got, err := (&app.Env{ConfigDir: env.ConfigDir}).ContinueSession()
	require.NoError(t, err)
	assert.Equal(t, env.SessionPath(s), got)
	sent = continueSends(t, env, latest, "And now?")
	assert.True(t, strings.Contains(sent, "SHADOW-MARK"), "2.1.332 --continue without the empty file")
}
