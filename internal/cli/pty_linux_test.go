package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerOnPTY runs a command line with the slave end of a pty as stdin
// and stderr; once the prompt shows, it types answer and Enter.
func answerOnPTY(t *testing.T, answer string, args ...string) (stdout, screen string, code int) {
	t.Helper()
	master, slave := openPTY(t)
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		typed := false
		for {
			n, err := master.Read(buf)
			seen.Write(buf[:n])
			if !typed && strings.Contains(seen.String(), "[y/N] ") {
				master.WriteString(answer + "\n")
				typed = true
			}
			if err != nil {
				return
			}
		}
	}()
	var out bytes.Buffer
	code = run(context.Background(), append([]string{"ccsurgeon"}, args...), slave, &out, slave)
	time.Sleep(100 * time.Millisecond) // the echo reaches the master
	slave.Close()
	master.SetReadDeadline(time.Now().Add(time.Second))
	<-done
	return out.String(), strings.ReplaceAll(seen.String(), "\r\n", "\n"), code
}

// TestNoSessionChangeAsksOnTerminal (finding 9): on a terminal, a change
// in place with no SESSION names the session and asks; only y changes it.
func TestNoSessionChangeAsksOnTerminal(t *testing.T) {
	cfg, older, newest := thisProject(t)
	before, _ := os.ReadFile(newest)
	olderBefore, _ := os.ReadFile(older)
	for _, answer := range []string{"", "n", "no", "yes please"} {
		_, screen, code := answerOnPTY(t, answer, "--config-dir", cfg, "drop-tool-calls", "--tool", "Bash")
		assert.Equal(t, 1, code, "answer %q: %s", answer, screen)
		assert.Contains(t, screen, "ccsurgeon: drop-tool-calls will change "+idOf(newest)+" in place, the newest session of this folder's project (modified 1h ago, \"", answer)
		assert.Contains(t, screen, "ccsurgeon: nothing was changed\nccsurgeon: hint: ccsurgeon --config-dir "+cfg+" drop-tool-calls "+idOf(newest)+" --tool Bash\n", answer)
		now, _ := os.ReadFile(newest)
		assert.True(t, bytes.Equal(before, now), "answer %q changed the session", answer)
	}
	out, screen, code := answerOnPTY(t, "y", "--config-dir", cfg, "drop-tool-calls", "--tool", "Bash")
	require.Equal(t, 0, code, "%s%s", out, screen)
	assert.Contains(t, out, "tool calls removed")
	now, _ := os.ReadFile(newest)
	assert.False(t, bytes.Equal(before, now), "y did not change the session")
	olderNow, _ := os.ReadFile(older)
	assert.True(t, bytes.Equal(olderBefore, olderNow), "another session changed")
}
