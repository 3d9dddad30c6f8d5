package ops_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContinueAfterChangeInPlace (issue 27, finding 9): a change in place
// keeps the file's time, so 'claude --continue' still goes on with the
// newest session, not with an old one ccsurgeon just changed; and the
// changed one, resumed by id, sends the changed conversation. Before,
// dropping a tool call from an old session made it the one --continue
// (and ccsurgeon's own default) picked. Measured without the fix: 2.1.332
// went on with the changed old session; 2.0.50 goes by the entries'
// timestamps and was right either way (its picker too). 2.1.332's picker
// lists no print-mode session ("No sessions in this project yet"): both
// pickers are checked by TestPickerAfterChangeInPlace (2.1.332's with
// sessions made in its TUI).
func TestContinueAfterChangeInPlace(t *testing.T) {
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			env := harness.NewEnv(t)
			old := env.Turn(t, c, "", "Run the OLD-MARK command", harness.Bash("echo OLD-MARK"), harness.Text("ran it"))
			newest := env.Turn(t, c, "", "Say NEW-MARK", harness.Text("NEW-MARK"))
			day, hour := time.Now().Add(-24*time.Hour), time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(env.SessionPath(old), day, day))
			require.NoError(t, os.Chtimes(env.SessionPath(newest), hour, hour))

			var out, errb bytes.Buffer
			a := &app.Env{ConfigDir: env.ConfigDir, Out: &out, Err: &errb}
			require.NoError(t, a.RunOps(old, app.OpSpec{Drop: true, DropTools: []string{"Bash"}}, app.Dest{}), errb.String())
			require.Contains(t, out.String(), "tool calls removed")
			fi, err := os.Stat(env.SessionPath(old))
			require.NoError(t, err)
			assert.True(t, fi.ModTime().Equal(day), "the change moved the time of %s to %s", old, fi.ModTime())

			// --continue: the conversation sent is the newest session's
			env.Mock.Reset()
			env.Mock.Enqueue(harness.Text("continued"))
			res, err := env.Exec(c, "And now?", "--continue")
			require.NoError(t, err, res.Stderr)
			var sent string
			for _, r := range env.Mock.RequestsOf(harness.KindMain) {
				sent = joinMessages(r.Messages())
			}
			require.NotEmpty(t, sent, "--continue sent no request: %s %s", res.Stdout, res.Stderr)
			assert.Contains(t, sent, "Say NEW-MARK", "--continue did not go on with the newest session")
			assert.NotContains(t, sent, "OLD-MARK", "--continue went on with the session ccsurgeon changed")

			// the changed session, resumed by id, has no Bash call left
			r := env.MustResume(t, c, old)
			msgs := joinMessages(r.Messages)
			assert.Contains(t, msgs, "Run the OLD-MARK command")
			assert.False(t, strings.Contains(msgs, `"tool_use"`) || strings.Contains(msgs, "echo OLD-MARK"), "the dropped call is still sent: %s", msgs)
		})
	}
}

func joinMessages(ms []json.RawMessage) string {
	var b strings.Builder
	for _, m := range ms {
		b.Write(m)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestPickerAfterChangeInPlace (issue 27, finding 9): Claude Code's
// interactive picker (`claude --resume` with no id) after a change in
// place keeps its order (newest first, the changed old session still
// below) and shows the changed content in the changed session's row.
// 2.1.332 lists only sessions made in the TUI, so its two are made there
// (the second after /clear); 2.0.50 lists print-mode ones. The old one's
// only prompt holds a secret and its turn a Bash call; redact-secrets and
// drop-tool-calls change it in place. 2.1.332's row shows the prompt (the
// text of the last last-prompt entry), the file's age and its size;
// 2.0.50's the prompt (until it has a title), the entries' age and
// the message count. The control touches the file to
// now, as an in-place change used to: 2.1.332's order flips (it orders by
// the file time); 2.0.50's does not (it orders by the entries' time, so
// for 2.0.50 only the content part of the test can fail).
func TestPickerAfterChangeInPlace(t *testing.T) {
	t.Parallel()
	secret := "ghp_" + "Zq8mK3vT9xLr2WnB5yHc" + "7PdF4sJg6AeU1oVi"
	oldPrompt := "Deploy with GITHUB_TOKEN=" + secret + " OLD-MARK"
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			env := harness.NewEnv(t)
			screens := filepath.Join(t.TempDir(), "screens")
			oldReplies := []harness.Reply{harness.Bash("echo OLD-MARK"), harness.Text("deployed it")}
			var old, newest string
			if c.IsOld() {
				old = env.Turn(t, c, "", oldPrompt, oldReplies...)
				newest = env.Turn(t, c, "", "Say NEW-MARK", harness.Text("NEW-MARK said"))
			} else {
				old, newest = twoTUISessions(t, env, c, screens, oldPrompt, oldReplies)
			}
			// 2.0.50's picker asks the API for a title of each session it
			// lists and shows it from its next start on: a title that
			// names the session's mark keeps its row known
			env.Mock.SetHandler(func(r *harness.RecordedRequest) (harness.Reply, bool) {
				for _, m := range []string{"OLD-MARK", "NEW-MARK"} {
					if r.Kind == harness.KindAux && bytes.Contains(r.Body, []byte(m)) {
						return harness.Text(m + " title"), true
					}
				}
				return harness.Reply{}, false
			})
			day, hour := time.Now().Add(-24*time.Hour), time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(env.SessionPath(old), day, day))
			require.NoError(t, os.Chtimes(env.SessionPath(newest), hour, hour))
			sizeBefore := fileSize(t, env.SessionPath(old))

			var out, errb bytes.Buffer
			a := &app.Env{ConfigDir: env.ConfigDir, Out: &out, Err: &errb}
			require.NoError(t, a.RunOps(old, app.OpSpec{Redact: true}, app.Dest{}), errb.String())
			require.NoError(t, a.RunOps(old, app.OpSpec{Drop: true, DropTools: []string{"Bash"}}, app.Dest{}), errb.String())
			require.Contains(t, out.String(), "secrets redacted")
			require.Contains(t, out.String(), "tool calls removed")
			fi, err := os.Stat(env.SessionPath(old))
			require.NoError(t, err)
			assert.True(t, fi.ModTime().Equal(day), "the change moved the time of %s to %s", old, fi.ModTime())

			rows := pickerRows(t, env, c, screens, "OLD-MARK", "NEW-MARK")
			require.Len(t, rows, 2, "the picker lists the two sessions: %v", rows)
			assert.Contains(t, rows[0].Title, "NEW-MARK", "the newest session is no longer first: %v", rows)
			changed := rows[1]
			require.Contains(t, changed.Title, "OLD-MARK", "the changed session is not second: %v", rows)
			assert.NotContains(t, changed.Title, secret, "the picker shows the secret ccsurgeon removed")
			assert.Contains(t, changed.Title, "GITHUB_TOKEN=[REDACTED:github-pat:1] OLD-MARK", "the picker does not show the changed first prompt")
			if c.IsOld() {
				// prompt, call, result, answer before; the call's pair dropped
				assert.Contains(t, changed.Meta, "· 2 messages ·", "the picker does not count the changed messages")
			} else {
				assert.True(t, strings.HasPrefix(changed.Meta, "1 day ago ·"), "the picker shows another time: %q", changed.Meta)
				size := pickerSize(fileSize(t, env.SessionPath(old)))
				require.NotEqual(t, pickerSize(sizeBefore), size, "the change does not show in the size")
				assert.True(t, strings.HasSuffix(changed.Meta, "· "+size), "the picker does not show the changed size %s: %q", size, changed.Meta)
			}

			// the control: the file's time set to now, as a change in place
			// used to
			now := time.Now()
			require.NoError(t, os.Chtimes(env.SessionPath(old), now, now))
			rows = pickerRows(t, env, c, screens, "OLD-MARK", "NEW-MARK")
			require.Len(t, rows, 2, "%v", rows)
			if c.IsOld() {
				assert.Contains(t, rows[0].Title, "NEW-MARK", "2.0.50's picker went by the file time: %v", rows)
			} else {
				assert.Contains(t, rows[0].Title, "OLD-MARK", "the picker's order does not follow the file time, the test proves nothing: %v", rows)
				assert.False(t, strings.HasPrefix(rows[0].Meta, "1 day ago ·"), "%q", rows[0].Meta)
			}
		})
	}
}

// twoTUISessions makes two sessions in one TUI of client c: the first
// with prompt and replies, the second after /clear ("Say NEW-MARK"); it
// returns their ids.
func twoTUISessions(t *testing.T, env *harness.Env, c harness.Client, screens, prompt string, replies []harness.Reply) (first, second string) {
	t.Helper()
	tui := startTUI(t, env, c)
	tui.CaptureDir = screens
	require.NoError(t, tui.Turn(prompt, "deployed it", replies...))
	ids, err := env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 1)
	first = ids[0]
	require.NoError(t, tui.Submit("/clear"))
	_, err = tui.WaitStable("cleared", harness.TUIStep, time.Second, func(s string) bool {
		return harness.Idle(s) && !strings.Contains(s, "deployed it")
	})
	require.NoError(t, err)
	require.NoError(t, tui.Turn("Say NEW-MARK", "NEW-MARK said", harness.Text("NEW-MARK said")))
	require.NoError(t, tui.Exit())
	ids, err = env.SessionIDs()
	require.NoError(t, err)
	require.Len(t, ids, 2, "/clear started no new session")
	for _, id := range ids {
		if id != first {
			second = id
		}
	}
	return first, second
}

// pickerRows opens the picker of client c in env's cwd, waits until it is
// settled for marks (harness.WaitPicker: each mark's row parses, the
// screen still) and returns its rows from the top; the client is quit
// before it returns.
func pickerRows(t *testing.T, env *harness.Env, c harness.Client, screens string, marks ...string) []harness.PickerRow {
	t.Helper()
	rows, _, err := env.Picker(c, screens, 90*time.Second, marks...)
	require.NoError(t, err)
	return rows
}

// pickerSize is a file size as 2.1.332's picker writes it: KB of 1024
// bytes, one decimal, a trailing ".0" left out (the client's
// `(n/1024).toFixed(1).replace(/\.0$/,"")+"KB"`; toFixed rounds a tie up).
func pickerSize(n int64) string {
	tenths := (n*10*2 + 1024) / (2 * 1024)
	return strings.TrimSuffix(fmt.Sprintf("%d.%d", tenths/10, tenths%10), ".0") + "KB"
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Size()
}
