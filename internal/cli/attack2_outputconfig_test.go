package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNeverWritesTheClientsOwnFiles: `-o … --force` replaced the
// client's own files in the config dir (settings.json, history.jsonl,
// file-history/…, todos/…, sessions/…) with a transcript. Inside the config
// dir only a session's files are ccsurgeon's to write, and those by their
// commands (in place, --new), never by -o: every -o there is refused (exit
// 2, one line and a hint, nothing changed), as -o into ccsurgeon/ and
// projects/ already were. The member that broke: the rest of the config
// dir (neither ccsurgeon/ nor projects/).
func TestOutputNeverWritesTheClientsOwnFiles(t *testing.T) {
	cfg := t.TempDir()
	path, _ := installSessionOf(t, cfg, "-tmp-p", "/tmp/p")
	id := idOf(path)
	for name, data := range map[string]string{
		"settings.json":                          `{"cleanupPeriodDays":30}` + "\n",
		"history.jsonl":                          `{"display":"hi","project":"/tmp/p"}` + "\n",
		"file-history/" + id + "/abc@v1":         "the file as it was\n",
		"todos/" + id + "-agent-" + id + ".json": "[]\n",
		"sessions/123.json":                      `{"pid":123}` + "\n",
	} {
		p := filepath.Join(cfg, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	for _, tc := range []struct{ name, out string }{
		{"settings.json", filepath.Join(cfg, "settings.json")},
		{"history.jsonl", filepath.Join(cfg, "history.jsonl")},
		{"a file-history backup", filepath.Join(cfg, "file-history", id, "abc@v1")},
		{"a todo list", filepath.Join(cfg, "todos", id+"-agent-"+id+".json")},
		{"a sessions/ record", filepath.Join(cfg, "sessions", "123.json")},
		{"a new file at the config dir's top", filepath.Join(cfg, "copy.jsonl")},
		{"a new file in file-history/", filepath.Join(cfg, "file-history", "new.jsonl")},
		{"a share folder at the config dir's top", filepath.Join(cfg, "share") + "/"},
	} {
		for _, cmd := range [][]string{
			{"strip-thinking", id},
			{"clone", id},
			{"redact", id},
		} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				before := hashTree(t, cfg)
				args := append([]string{"--config-dir", cfg}, cmd...)
				_, stderr, code := cliRun(t, append(args, "-o", tc.out, "--force")...)
				assert.Equal(t, 2, code, stderr)
				assert.Contains(t, stderr, "the client's own files")
				assert.Regexp(t, `(?m)^ccsurgeon: hint: give -o a path outside `, stderr)
				assert.Empty(t, changes(before, hashTree(t, cfg)), "-o wrote into the client's own files")
			})
		}
	}
}

// TestOutputForceNeverReplacesASubagentTranscript: a copy of a subagent
// transcript carries its session's sessionId, so `-o COPY --force` took it
// for an earlier copy of the session and replaced it with the main
// transcript. Only a file that is a copy of the session's main transcript
// is replaced.
func TestOutputForceNeverReplacesASubagentTranscript(t *testing.T) {
	m := newMalEnv(t)
	id, agent := copySubagentSession(t, m)
	out := filepath.Join(m.root, "agent-copy.jsonl")
	b, err := os.ReadFile(agent)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, b, 0o644))
	for _, cmd := range [][]string{{"strip-thinking", id}, {"clone", id}, {"redact", id}} {
		t.Run(cmd[0], func(t *testing.T) {
			r := m.cli(t, append(cmd, "-o", out, "--force")...)
			checkRun(t, cmd[0], r, want{1, "", "subagent transcript"})
			assert.Regexp(t, `(?m)^ccsurgeon: hint: `, r.stderr)
			after, _ := os.ReadFile(out)
			assert.Equal(t, string(b), string(after), "the subagent transcript was replaced")
		})
	}
	// a copy of the main transcript is still replaced
	main := filepath.Join(m.root, "main-copy.jsonl")
	mb, err := os.ReadFile(filepath.Join(m.proj, id+".jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(main, mb, 0o644))
	r := m.cli(t, "strip-thinking", id, "-o", main, "--force")
	require.Equal(t, 0, r.code, r.stderr)
}
