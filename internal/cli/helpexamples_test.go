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

// exampleEnv is a config dir where the ids, backup names and paths the
// examples of --help and of the README name are real: 3f2a9c1e is a session
// of 150 turns with tool calls recorded in ~/src/app, 7be01d44 a clone of
// it, 20261121T101500 its backup, ~/src/myapp and ~/src/oldname projects
// with a session each (HOME a temp dir), ./x.jsonl a session file.
type exampleEnv struct {
	home, cfg, files string
	id, clone, old   string // the session, its clone, the session of ~/src/oldname
	backup           string
}

func newExampleEnv(t *testing.T) *exampleEnv {
	t.Helper()
	e := &exampleEnv{home: t.TempDir(), files: t.TempDir()}
	t.Setenv("HOME", e.home)
	for _, d := range []string{"src/myapp", "src/oldname", "src/newname", "src/app"} {
		require.NoError(t, os.MkdirAll(filepath.Join(e.home, d), 0o755))
	}
	e.cfg = filepath.Join(t.TempDir(), "cfg")
	require.NoError(t, os.MkdirAll(filepath.Join(e.cfg, "projects"), 0o700))
	const tools = "testdata/sessions/2.1.328/tools.jsonl"
	e.id = idOf(withCwd(t, e.cfg, "testdata/sessions/2.1.328/inprocess/long-turns.jsonl", filepath.Join(e.home, "src/app")))
	withCwd(t, e.cfg, tools, filepath.Join(e.home, "src/myapp"))
	e.old = idOf(withCwd(t, e.cfg, "testdata/sessions/2.1.328/multi-turn.jsonl", filepath.Join(e.home, "src/oldname")))
	backdate(t, e.cfg)
	// its backup (a change in place) and its clone
	_, errs, code := cliRun(t, "--config-dir", e.cfg, "--json", "compress", e.id)
	require.Equal(t, 0, code, errs)
	out, errs, code := cliRun(t, "--config-dir", e.cfg, "--json", "backups", e.id)
	require.Equal(t, 0, code, errs)
	backup := regexp.MustCompile(`"name": ?"(\d{8}T\d{6})`).FindStringSubmatch(out)
	require.NotNil(t, backup, out)
	e.backup = backup[1]
	out, errs, code = cliRun(t, "--config-dir", e.cfg, "--json", "clone", e.id)
	require.Equal(t, 0, code, errs)
	clone := regexp.MustCompile(`"session_id": ?"([0-9a-f-]{36})"`).FindStringSubmatch(out)
	require.NotNil(t, clone, out)
	e.clone = clone[1]
	backdate(t, e.cfg)
	// the files the examples name by a relative path
	for _, f := range []string{"session.jsonl", "other.jsonl", "edited.jsonl", "broken.jsonl"} {
		b, err := os.ReadFile(tools)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(e.files, f), b, 0o600))
	}
	backdate(t, e.files)
	return e
}

// args is the command line of example ex, in config dir cfg, its ids,
// names and paths made the environment's; a file it writes (-o FILE, or
// a relative .jsonl path) is one of dir.
func (e *exampleEnv) args(t *testing.T, ex, cfg, dir string) []string {
	t.Helper()
	words, err := splitShell(strings.ReplaceAll(ex, "~/", e.home+"/"))
	require.NoError(t, err, ex)
	require.Equal(t, "ccsurgeon", words[0], ex)
	for i, w := range words {
		switch {
		case w == "3f2a9c1e":
			words[i] = e.id[:8]
		case w == "7be01d44":
			words[i] = e.clone[:8]
		case w == "20261121T101500":
			words[i] = e.backup
		case strings.HasPrefix(w, "./"):
			words[i] = filepath.Join(e.files, w[2:])
		case i > 0 && (words[i-1] == "-o" || words[i-1] == "--output") && w != "-" && !filepath.IsAbs(w),
			strings.HasSuffix(w, ".jsonl") && !filepath.IsAbs(w):
			words[i] = filepath.Join(dir, w)
			if strings.HasSuffix(w, "/") {
				words[i] += string(filepath.Separator) // -o DIR/: a folder
			}
		}
	}
	return append([]string{"--config-dir", cfg}, words[1:]...)
}

// TestHelpExamplesRun: every example of every command's --help runs as
// printed (issue 34's README package): in a newExampleEnv, each example
// works in a copy of that config dir of its own, with the exit status its
// help promises: 0, or 1 where 1 is what it finds (a diff that differs).
// A usage error, an internal error or a refusal of a session the example
// names is an example a user copies and sees fail.
func TestHelpExamplesRun(t *testing.T) {
	e := newExampleEnv(t)
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
				run := t.TempDir()
				cp := filepath.Join(run, "cfg")
				require.NoError(t, copyTreeKeepingTimes(e.cfg, cp))
				args := e.args(t, ex, cp, run)
				stdout, stderr, code := cliRun(t, args...)
				assert.Equal(t, want[ex], code, "%s\n(ran: %s)\nstdout:\n%s\nstderr:\n%s", ex, strings.Join(args, " "), stdout, stderr)
			})
		}
	}
	assert.GreaterOrEqual(t, n, 30, "the examples found")
}

// TestReadmeRecipesRun: the README's Recipes run as printed, one after the
// other in one config dir as a user would (the move, then its restore),
// each with the exit status and the output its comment promises. ~/src/oldname
// is gone, as in the recipe (renamed); lines of the client (claude, cd) are
// not ccsurgeon's and are left out.
func TestReadmeRecipesRun(t *testing.T) {
	e := newExampleEnv(t)
	require.NoError(t, os.RemoveAll(filepath.Join(e.home, "src/oldname")))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	r := string(readme)
	i := strings.Index(r, "## Recipes")
	require.GreaterOrEqual(t, i, 0)
	block := r[i:]
	block = block[strings.Index(block, "```sh")+len("```sh"):]
	block = block[:strings.Index(block, "```")]
	// what a line's comment promises: the exit status but 0, and the output
	want := map[string]struct {
		code int
		out  string // regexp of stdout
	}{
		"ccsurgeon clone 3f2a9c1e":            {0, `resume it with: cd \S+ && claude --resume [0-9a-f-]{36}`},
		"ccsurgeon ls":                        {0, `projects whose folder no longer exists`},
		"ccsurgeon doctor":                    {1, `fix: ccsurgeon `},
		"ccsurgeon doctor --fix":              {1, ``},
		"ccsurgeon info 3f2a9c1e":             {0, `what a resume sends`},
		"ccsurgeon turns 3f2a9c1e":            {0, `(?m)^\s+4\s`},
		"ccsurgeon validate 3f2a9c1e":         {0, ``},
		"ccsurgeon redact 3f2a9c1e -o share/": {0, `with its files to `},
	}
	run := t.TempDir()
	n := 0
	for _, line := range strings.Split(block, "\n") {
		if j := strings.Index(line, "#"); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "ccsurgeon ") {
			continue
		}
		for _, ex := range strings.Split(line, " && ") {
			ex = strings.ReplaceAll(strings.TrimSpace(ex), "<any moved session id>", e.old)
			n++
			args := e.args(t, ex, e.cfg, run)
			stdout, stderr, code := cliRun(t, args...)
			w := want[ex]
			if assert.Equal(t, w.code, code, "%s\n(ran: %s)\nstdout:\n%s\nstderr:\n%s", ex, strings.Join(args, " "), stdout, stderr) {
				assert.Regexp(t, w.out, stdout, ex)
			}
			backdate(t, e.cfg) // the next line is a later minute, past the live-session guard
		}
	}
	assert.GreaterOrEqual(t, n, 20, "the recipes' command lines")
}
