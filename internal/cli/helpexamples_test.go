package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v3"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
)

// helpExamples returns the command lines of the examples block of a
// --help text ("example:" or "examples:", up to the next blank line), each
// as printed, its '# comment' and shell wrapping ("source <(…)", "> FILE")
// cut away, and a line of two commands joined by && as two.
func helpExamples(help string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		s := strings.TrimSpace(l)
		switch {
		case regexp.MustCompile(`^examples?:$`).MatchString(s):
			in = true
			continue
		case s == "":
			in = false
		}
		if !in {
			continue
		}
		if i := strings.Index(s, " #"); i >= 0 {
			s = strings.TrimSpace(s[:i])
		}
		if m := regexp.MustCompile(`^source <\((.*)\)$`).FindStringSubmatch(s); m != nil {
			s = m[1]
		}
		if i := strings.Index(s, " > "); i >= 0 {
			s = s[:i]
		}
		for _, c := range strings.Split(s, " && ") {
			lines = append(lines, strings.TrimSpace(c))
		}
	}
	return lines
}

// withCwd installs the tools session as one recorded in the project at
// proj (its cwd and its session id rewritten, so that it is a session of
// its own), filed where the client looks for proj's sessions.
func withCwd(t *testing.T, cfg, src, proj string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	old := sessionID(t, b)
	cwd := regexp.MustCompile(`"cwd":"([^"]*)"`).FindSubmatch(b)
	require.NotNil(t, cwd, src)
	b = bytes.ReplaceAll(b, cwd[1], []byte(proj))
	id := newIDLike(old, proj)
	b = bytes.ReplaceAll(b, []byte(old), []byte(id))
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return installSession(t, cfg, filepath.Base(chain.ProjectDirOf(cfg, proj)), p)
}

// newIDLike is a session id made from old and a name: the same for the
// same pair, another for another name.
func newIDLike(old, name string) string {
	h := uint32(2166136261)
	for _, c := range []byte(name) {
		h = (h ^ uint32(c)) * 16777619
	}
	return hex8(h) + old[8:]
}

func hex8(v uint32) string {
	const d = "0123456789abcdef"
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = d[v&15]
		v >>= 4
	}
	return string(b)
}

// TestHelpExamplesRun: every example of every command's --help runs as
// printed (issue 34's README package): on a config dir where the ids the
// examples name (3f2a9c1e, a clone of it 7be01d44, its backup
// 20261121T101500) are those of real sessions and backups, the paths
// (~/src/…, ./x.jsonl, -o FILE) real places, each example works in a copy
// of that config dir of its own, with the exit status its help promises:
// 0, or 1 where 1 is what it finds (a diff that differs). A usage error,
// an internal error or a refusal of a session the example names is an
// example a user copies and sees fail.
func TestHelpExamplesRun(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"src/myapp", "src/oldname", "src/newname", "src/app"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "cfg")
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "projects"), 0o700))
	const tools = "testdata/sessions/2.1.328/tools.jsonl"
	// the session the examples name: 150 turns, tool calls, in ~/src/app
	main := withCwd(t, cfg, "testdata/sessions/2.1.328/inprocess/long-turns.jsonl", filepath.Join(home, "src/app"))
	withCwd(t, cfg, tools, filepath.Join(home, "src/myapp"))
	withCwd(t, cfg, "testdata/sessions/2.1.328/multi-turn.jsonl", filepath.Join(home, "src/oldname"))
	backdate(t, cfg)
	id := idOf(main)
	// its backup (a change in place) and its clone
	_, errs, code := cliRun(t, "--config-dir", cfg, "--json", "compress", id)
	require.Equal(t, 0, code, errs)
	out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "backups", id)
	require.Equal(t, 0, code, errs)
	backup := regexp.MustCompile(`"name": ?"(\d{8}T\d{6})`).FindStringSubmatch(out)
	require.NotNil(t, backup, out)
	out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "clone", id)
	require.Equal(t, 0, code, errs)
	clone := regexp.MustCompile(`"session_id": ?"([0-9a-f-]{36})"`).FindStringSubmatch(out)
	require.NotNil(t, clone, out)
	backdate(t, cfg)
	// the files the examples name by a relative path
	files := t.TempDir()
	for _, f := range []string{"session.jsonl", "other.jsonl", "edited.jsonl", "broken.jsonl"} {
		b, err := os.ReadFile(tools)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(files, f), b, 0o600))
	}
	backdate(t, files)

	// the exit status each example promises but 0
	want := map[string]int{
		"ccsurgeon diff 3f2a9c1e":                1, // the last change did something
		"ccsurgeon diff 3f2a9c1e ./edited.jsonl": 1, // another session
	}
	root := newCommand(&app.Env{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	var cmds []*cli.Command
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		for _, sub := range c.Commands {
			cmds = append(cmds, sub)
			walk(sub)
		}
	}
	walk(root)
	names := []string{"completion"} // added by urfave/cli as it runs, not in the tree
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	n := 0
	for _, name := range names {
		help, _, code := cliRun(t, name, "--help")
		require.Equal(t, 0, code, name)
		examples := helpExamples(help)
		assert.NotEmpty(t, examples, "%s --help: no example found", name)
		for _, ex := range examples {
			n++
			t.Run(ex, func(t *testing.T) {
				words, err := splitShell(strings.ReplaceAll(ex, "~/", home+"/"))
				require.NoError(t, err, ex)
				require.Equal(t, "ccsurgeon", words[0], ex)
				run := t.TempDir()
				cp := filepath.Join(run, "cfg")
				require.NoError(t, copyTreeKeepingTimes(cfg, cp))
				for i, w := range words {
					switch {
					case w == "3f2a9c1e":
						words[i] = id[:8]
					case w == "7be01d44":
						words[i] = clone[1][:8]
					case w == "20261121T101500":
						words[i] = backup[1]
					case strings.HasPrefix(w, "./"):
						words[i] = filepath.Join(files, w[2:])
					case i > 0 && (words[i-1] == "-o" || words[i-1] == "--output") && w != "-" && !filepath.IsAbs(w):
						words[i] = filepath.Join(run, w)
					}
				}
				args := append([]string{"--config-dir", cp}, words[1:]...)
				stdout, stderr, code := cliRun(t, args...)
				assert.Equal(t, want[ex], code, "%s\n(ran: %s)\nstdout:\n%s\nstderr:\n%s", ex, strings.Join(args, " "), stdout, stderr)
			})
		}
	}
	assert.GreaterOrEqual(t, n, 30, "the examples found")
}
