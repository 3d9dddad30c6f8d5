package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackCloneWhileTheClientAppends: a clone (a new session) made while
// the client appends to the source changes no byte of the source — it
// ends as it was plus exactly what was appended — and the clone, when
// made, is a whole session that validates; a refusal leaves no new
// session. Members: one clone, and two clones of the same session at once.
func TestAttackCloneWhileTheClientAppends(t *testing.T) {
	for _, clones := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d-clones", clones), func(t *testing.T) {
			m := newMalEnv(t)
			id, _ := copySubagentSession(t, m)
			src := filepath.Join(m.proj, id+".jsonl")
			orig, err := os.ReadFile(src)
			require.NoError(t, err)
			stop := make(chan struct{})
			var appended bytes.Buffer
			started := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // the client, appending a line every millisecond
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					line := fmt.Sprintf(`{"type":"system","subtype":"attack","content":"line %d","sessionId":"%s"}`+"\n", n, id)
					f, err := os.OpenFile(src, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						t.Error(err)
						return
					}
					_, err = f.WriteString(line)
					f.Close()
					if err != nil {
						t.Error(err)
						return
					}
					appended.WriteString(line)
					if n == 3 {
						close(started) // the clones start with the client at work
					}
					time.Sleep(time.Millisecond)
				}
			}()
			<-started
			results := make([]ran, clones)
			var cw sync.WaitGroup
			for k := range clones {
				cw.Add(1)
				go func() { defer cw.Done(); results[k] = m.cli(t, "--json", "clone", id) }()
			}
			cw.Wait()
			close(stop)
			wg.Wait()
			t.Logf("the client appended %d bytes", appended.Len())
			got, err := os.ReadFile(src)
			require.NoError(t, err)
			require.Equal(t, string(orig)+appended.String(), string(got), "the source is not its bytes plus what the client appended")
			for _, r := range results {
				if r.code != 0 {
					t.Logf("refused (allowed): %s", r.stderr)
					continue
				}
				var out struct {
					SessionID string `json:"session_id"`
				}
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
				v := m.cli(t, "validate", out.SessionID)
				require.Equal(t, 0, v.code, "the clone %s does not validate: %s%s", out.SessionID, v.stdout, v.stderr)
			}
		})
	}
}
