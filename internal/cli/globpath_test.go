package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAConfigDirOfAnyNameSeesEverySessionFile: the session's files were
// found with filepath.Glob on a path that holds the config dir's, and a
// folder name with a pattern character in it (`My [old] home`, a
// CLAUDE_CONFIG_DIR under `backup[1]/`) made Glob find nothing there:
// info said no subagents, clone and a share left them out (with their
// secrets), the live-session guard did not see the client's record of the
// session, and a move's or a write's journal was not found to be finished.
// Each member, for each pattern character a folder name may hold.
func TestAConfigDirOfAnyNameSeesEverySessionFile(t *testing.T) {
	names := []string{"br[1]", "star*x", "q?x", "cl]x", "plain"}
	if runtime.GOOS != "windows" {
		names = append(names, `back\slash`)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), name, ".claude")
			// 2.1.x: <id>/subagents/agent-*.jsonl
			path := installSession(t, cfg, "-p", filepath.Join("testdata", "sessions", "2.1.328", "subagent.jsonl"))
			id := idOf(path)
			out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "info", id)
			require.Equal(t, 0, code, errs)
			var info struct {
				Subagents struct{ Count int } `json:"subagents"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &info))
			assert.Equal(t, 1, info.Subagents.Count, "info: the subagent transcript under %q", name)

			out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "-q", "clone", id)
			require.Equal(t, 0, code, errs)
			var cl struct {
				SessionID string `json:"session_id"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &cl))
			subs, _ := os.ReadDir(filepath.Join(cfg, "projects", "-p", cl.SessionID, "subagents"))
			assert.Len(t, subs, 2, "clone: the subagent transcript and its meta file under %q", name)

			// 2.0.x: agent-*.jsonl beside the session
			legacySrc := filepath.Join("testdata", "sessions", "2.0.50", "subagent.jsonl")
			lpath := installSession(t, cfg, "-q", legacySrc)
			agents, err := os.ReadDir(filepath.Join("testdata", "sessions", "2.0.50", "subagent"))
			require.NoError(t, err)
			for _, a := range agents {
				b, err := os.ReadFile(filepath.Join("testdata", "sessions", "2.0.50", "subagent", a.Name()))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(lpath), a.Name()), b, 0o600))
			}
			out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "info", idOf(lpath))
			require.Equal(t, 0, code, errs)
			require.NoError(t, json.Unmarshal([]byte(out), &info))
			assert.Equal(t, len(agents), info.Subagents.Count, "info: the 2.0.x agent files beside the session under %q", name)

			// the live-session guard reads <config-dir>/sessions/*.json
			require.NoError(t, os.MkdirAll(filepath.Join(cfg, "sessions"), 0o700))
			rec := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/p"}`, os.Getpid(), id)
			require.NoError(t, os.WriteFile(filepath.Join(cfg, "sessions", "1.json"), []byte(rec), 0o600))
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			_, errs, code = cliRun(t, "--config-dir", cfg, "compress-old-turns", id, "--keep-turns", "1")
			assert.NotEqual(t, 0, code, "the live guard under %q: the client's record of the session was not seen", name)
			assert.Contains(t, errs, "Claude Code", "the live guard under %q", name)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(before, after), "the session was changed under %q while the client had it open", name)
		})
	}
}
