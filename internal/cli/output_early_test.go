package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputArgs are the arguments a command with -o takes after SESSION, to
// have work to do (a new command with -o is added here, or the test fails).
var outputArgs = map[string][]string{
	"clone":              nil,
	"fork-at-turn":       {"1"},
	"strip-thinking":     nil,
	"drop-tool-calls":    {"--tool", "Bash"},
	"compress-old-turns": {"--target-tokens", "18000"},
	"redact-secrets":     nil,
	"rewrite":            nil,
	"repair":             nil,
}

// TestOutputIsRefusedBeforeTheSessionIsRead: every command with -o refuses
// an output it will not write — an existing file without --force (a
// plain file, or a copy of this session an earlier -o wrote), another
// session's transcript (never replaced, --force or not), a share folder
// DIR/ that holds the session's files already (for a command that keeps
// the session's id) — before the session is read or worked on: the
// refusal comes at once (no "write-session-read" step, the one before the
// session's bytes are read), exits non-zero with one error line, and
// changes no file. A member per command and kind of output.
func TestOutputIsRefusedBeforeTheSessionIsRead(t *testing.T) {
	var cmds []string
	for _, c := range newCommand(&app.Env{}).Commands {
		if hasFlag(c, "output") {
			cmds = append(cmds, c.Name)
			_, ok := outputArgs[c.Name]
			assert.True(t, ok, "%s has -o: add it to outputArgs", c.Name)
		}
	}
	slices.Sort(cmds)
	for _, cmd := range cmds {
		for _, kind := range []string{"file", "copy", "copy-force", "other-session", "other-session-force", "share-folder"} {
			if kind == "share-folder" && (cmd == "clone" || cmd == "fork-at-turn") {
				continue // a new id: names nothing there yet
			}
			t.Run(cmd+"/"+kind, func(t *testing.T) { testOutputRefusedEarly(t, cmd, kind) })
		}
	}
}

func testOutputRefusedEarly(t *testing.T, cmd, kind string) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	src := filepath.Join("testdata", "sessions", "2.1.328", "thinking-tool-loop.jsonl")
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	id := chain.StrValue(string(bytes.SplitN(bytes.SplitN(b, []byte(`"sessionId":`), 2)[1], []byte(","), 2)[0]))
	session := filepath.Join(cfg, "projects", "-work-p", id+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(session), 0o700))
	require.NoError(t, os.WriteFile(session, b, 0o600))
	other, err := os.ReadFile(filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	require.NoError(t, err)
	outDir := filepath.Join(root, "out")
	require.NoError(t, os.MkdirAll(outDir, 0o700))
	out := filepath.Join(outDir, "out.jsonl")
	var extra []string
	switch kind {
	case "file":
		require.NoError(t, os.WriteFile(out, []byte("the user's notes\n"), 0o600))
	case "copy", "copy-force":
		require.NoError(t, os.WriteFile(out, b, 0o600))
	case "other-session", "other-session-force":
		require.NoError(t, os.WriteFile(out, other, 0o600))
	case "share-folder":
		require.NoError(t, os.WriteFile(filepath.Join(outDir, id+".jsonl"), b, 0o600))
		out = outDir + string(filepath.Separator)
	}
	if strings.HasSuffix(kind, "-force") {
		extra = append(extra, "--force")
	}
	before := hashTree(t, root)
	var mu sync.Mutex
	var steps []string
	backup.TestHook = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, s)
	}
	defer func() { backup.TestHook = nil }()
	args := append([]string{"--config-dir", cfg, cmd, id}, outputArgs[cmd]...)
	r := runCLI(t, append(append(args, "-o", out), extra...)...)
	backup.TestHook = nil
	if kind == "copy-force" {
		// replacing an earlier output of this session is what --force is for
		assert.Equal(t, 0, r.code, "stderr: %s", r.stderr)
		return
	}
	assert.NotEqual(t, 0, r.code, "the output was not refused\nstderr: %s", r.stderr)
	var errLines []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "ccsurgeon: ") && !strings.HasPrefix(l, "ccsurgeon: hint: ") && !strings.HasPrefix(l, "ccsurgeon: warning: ") {
			errLines = append(errLines, l)
		}
	}
	assert.Len(t, errLines, 1, "stderr: %s", r.stderr)
	assert.NotContains(t, steps, "write-session-read", "the session was read before the output was refused: %s", r.stderr)
	assert.Empty(t, changes(before, hashTree(t, root)), "the refusal changed files")
}
