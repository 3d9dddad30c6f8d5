package ops_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/app"
	"github.com/ccsurgeon/ccsurgeon/harness"
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
// lists no print-mode session ("No sessions in this project yet"), so
// its order is not checked here.
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
