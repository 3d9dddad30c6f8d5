package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"github.com/urfave/cli/v3"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// runCLI runs one command line in-process.
func cliRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"ccsurgeon"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

const example = "testdata/sessions/2.1.328/tools.jsonl"

func TestCLI(t *testing.T) {
	empty := t.TempDir() // a config dir without a session
	require.NoError(t, os.Mkdir(filepath.Join(empty, "projects"), 0o700))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // regexp
		stderr string // regexp
	}{
		{"info", []string{"info", example}, 0, `(?s)turns\s+3.*by entry type.*Edit\s+1 call\s`, `^$`},
		{"info json after the session", []string{"info", example, "--json"}, 0, `"by_tool"`, `^$`},
		{"turns", []string{"turns", example}, 0, `(?m)^\s+1\s.*Run some shell commands`, `^$`},
		{"validate ok", []string{"validate", example}, 0, ``, `valid`},
		{"validate json", []string{"--json", "validate", example}, 0, `"valid": true`, ``},
		{"rewrite copy to stdout", []string{"rewrite", example, "-o", "-"}, 0, `^\{`, `^$`},
		{"-o with several sessions", []string{"strip-thinking", example, example, "-o", filepath.Join(empty, "x.jsonl")}, 2, `^$`, `^ccsurgeon: -o names one file, but 2 sessions are given\n`},
		{"no session in this folder's project", []string{"--config-dir", empty, "info"}, 1, `^$`, `^ccsurgeon: no session to work on: this folder's project .* has no sessions\nccsurgeon: hint: name a SESSION`},
		{"two bad sessions", []string{"info", "a", "b"}, 2, `^==> a <==\n==> b <==\n$`, `(?s)^ccsurgeon: a: session id prefix "a" is too short.*ccsurgeon: b: session id prefix "b" is too short.*2 sessions: 0 ok, 2 failed\n$`},
		{"unknown flag", []string{"info", "--bogus", example}, 2, ``, `^ccsurgeon: unknown flag --bogus\nccsurgeon: hint: see 'ccsurgeon info --help'`},
		{"unknown single-dash flag", []string{"info", "-bogus", example}, 2, ``, `^ccsurgeon: unknown flag -bogus\n`},
		{"unknown flag near one", []string{"strip-thinking", example, "--before-trun", "2"}, 2, ``, `^ccsurgeon: unknown flag --before-trun\nccsurgeon: hint: did you mean --before-turn\?`},
		{"unknown global flag near one", []string{"--confg-dir", "x", "ls"}, 2, ``, `^ccsurgeon: unknown flag --confg-dir\nccsurgeon: hint: did you mean --config-dir\?`},
		{"int flag not a number", []string{"strip-thinking", example, "--before-turn", "x", "--dry-run"}, 2, `^$`, `^ccsurgeon: --before-turn "x": want a whole number, 1 or more\nccsurgeon: hint: see 'ccsurgeon strip-thinking --help'\n$`},
		{"keep not a number", []string{"strip-thinking", example, "--keep", "lots"}, 2, `^$`, `^ccsurgeon: --keep "lots": want a whole number, 1 or more\n`},
		{"negative turn number", []string{"strip-thinking", example, "--before-turn", "-3", "--dry-run"}, 2, `^$`, `^ccsurgeon: --before-turn "-3": want a whole number, 1 or more\n`},
		{"negative token target", []string{"compress", example, "--target-tokens", "-5", "--dry-run"}, 2, `^$`, `^ccsurgeon: --target-tokens "-5": want a whole number, 1 or more\n`},
		{"negative turns to keep is no sentinel", []string{"rewrite", example, "--compress-old-turns", "-1", "--dry-run"}, 2, `^$`, `^ccsurgeon: --compress-old-turns "-1": want a whole number, 0 or more\n`},
		{"keep no backups", []string{"strip-thinking", example, "--keep", "0", "--dry-run"}, 2, `^$`, `^ccsurgeon: --keep "0": want a whole number, 1 or more\n`},
		{"branch zero", []string{"clone", example, "--branch", "0", "--dry-run"}, 2, `^$`, `^ccsurgeon: --branch "0": want a whole number, 1 or more\n`},
		{"size flag without its value", []string{"drop-tool-calls", example, "--larger-than"}, 2, `^$`, "^ccsurgeon: --larger-than needs SIZE: calls whose result is larger than SIZE \\(e.g. 20KB\\)\nccsurgeon: hint: see 'ccsurgeon drop-tool-calls --help'\n$"},
		{"int flag without its value", []string{"compress", example, "--keep-turns"}, 2, `^$`, `^ccsurgeon: --keep-turns needs a whole number, 0 or more\n`},
		{"unknown command near one", []string{"inf", example}, 2, `^$`, `^ccsurgeon: unknown command "inf"\nccsurgeon: hint: did you mean 'info'\?`},
		{"help for an unknown command", []string{"help", "frob"}, 2, `^$`, `^ccsurgeon: unknown command "frob"\nccsurgeon: hint: see 'ccsurgeon --help'`},
		// urfave's own help command took no flag: "Incorrect Usage: flag
		// provided but not defined: -help", its usage, then the error, exit 1
		{"help of help", []string{"help", "--help"}, 0, `(?s)ccsurgeon help .*example`, `^$`},
		{"help of help by its alias", []string{"h", "-h"}, 0, `ccsurgeon help`, `^$`},
		{"help with an unknown flag", []string{"help", "--bogus"}, 2, `^$`, `^ccsurgeon: unknown flag --bogus\nccsurgeon: hint: see 'ccsurgeon help --help'\n$`},
		{"help of a command", []string{"help", "turns"}, 0, `ccsurgeon turns SESSION`, `^$`},
		{"help by its alias", []string{"h"}, 0, `(?m)^COMMANDS:`, `^$`},
		{"help for a near command", []string{"help", "trns"}, 2, `^$`, `^ccsurgeon: unknown command "trns"\nccsurgeon: hint: did you mean 'turns'\?`},
		{"completion for an unknown shell", []string{"completion", "powershell"}, 2, `^$`, `^ccsurgeon: unknown shell "powershell"\nccsurgeon: hint: one of bash, zsh, fish, pwsh`},
		{"completion without a shell", []string{"completion"}, 2, `^$`, `^ccsurgeon: completion needs a shell\nccsurgeon: hint: one of bash, zsh, fish, pwsh`},
		{"completion with an unknown flag", []string{"completion", "--bogus"}, 2, `^$`, `^ccsurgeon: unknown flag --bogus\nccsurgeon: hint: see 'ccsurgeon completion --help'\n$`},
		{"completion script with an unknown flag", []string{"completion", "bash", "--bogus"}, 2, `^$`, `^ccsurgeon: unknown flag --bogus\nccsurgeon: hint: see 'ccsurgeon completion bash --help'\n$`},
		{"root help lists completion", []string{"--help"}, 0, `(?m)^\s+completion\s`, `^$`},
		{"unknown id", []string{"--config-dir", empty, "info", "deadbeef"}, 1, `^$`, `(?s)^ccsurgeon: no session matches "deadbeef" in .*\nccsurgeon: hint: `},
		// a blank argument was "session id prefix \" \" is too short"
		{"blank session", []string{"info", " "}, 2, `^$`, `^ccsurgeon: the session argument " " is blank\nccsurgeon: hint: give a session id, an id prefix, or a path to a \.jsonl file\n$`},
		{"empty session", []string{"info", ""}, 2, `^$`, `^ccsurgeon: the session argument is empty\nccsurgeon: hint: give a session id`},
		{"tab for a session", []string{"strip-thinking", "\t", "--dry-run"}, 2, `^$`, `^ccsurgeon: the session argument "\\t" is blank\n`},
		{"blank among sessions", []string{"info", example, "  "}, 2, `(?m)^==> "  " <==$`, `(?m)^ccsurgeon: "  ": the session argument "  " is blank$`},
		{"short prefix", []string{"info", "abc"}, 2, `^$`, `^ccsurgeon: session id prefix "abc" is too short`},
		{"missing file", []string{"info", "nope/x.jsonl"}, 1, `^$`, `^ccsurgeon: no such file: nope/x.jsonl`},
		{"not a session", []string{"info", "go.sum"}, 1, `^$`, `(?i)^ccsurgeon: \S*go.sum is not a Claude Code session`},
		{"directory", []string{"info", "testdata"}, 1, `^$`, `^ccsurgeon: testdata is a directory, not a session file`},
		{"fork out of range", []string{"fork", example, "9", "-o", filepath.Join(empty, "f.jsonl")}, 2, ``, `^ccsurgeon: turn 9 is out of range: the branch has turns 1-3\nccsurgeon: hint: `},
		{"fork not a number", []string{"fork", example, "x"}, 2, ``, `turn number "x" is not a number`},
		{"fork at a negative turn", []string{"fork", example, "-1", "--dry-run"}, 2, `^$`, `^ccsurgeon: fork-at-turn needs SESSION and a turn number N \(1 or more\)\nccsurgeon: hint: list the turns with 'ccsurgeon turns testdata/sessions/2.1.328/tools.jsonl'\n$`},
		{"version as a command", []string{"version"}, 2, `^$`, `^ccsurgeon: unknown command "version"\nccsurgeon: hint: the version is 'ccsurgeon --version'\n$`},
		{"rewrite nothing in place", []string{"rewrite", example}, 2, ``, `would change nothing`},
		// they were ignored: the thinking went, no output was cut
		{"rewrite --max-result without compression", []string{"rewrite", example, "--strip-thinking", "--max-result", "1KB", "--dry-run"}, 2, `^$`, `^ccsurgeon: --max-result needs --compress-old-turns N\n`},
		{"rewrite --keep-exchanges without compression", []string{"rewrite", example, "--strip-thinking", "--keep-exchanges", "2", "--dry-run"}, 2, `^$`, `^ccsurgeon: --keep-exchanges needs --compress-old-turns N or --target-tokens N\n`},
		{"rewrite --keep-exchanges with a target", []string{"rewrite", example, "--keep-exchanges", "2", "--target-tokens", "1000000", "--dry-run"}, 0, `nothing was written`, `^$`},
		{"drop without selector", []string{"drop-tool-calls", example, "--dry-run"}, 2, ``, `needs a selector`},
		{"bad size", []string{"drop-tool-calls", example, "--larger-than", "lots", "--dry-run"}, 2, ``, `^ccsurgeon: --larger-than "lots": want a number with a unit`},
		{"size without a unit", []string{"drop-tool-calls", example, "--larger-than", "20", "--dry-run"}, 2, `^$`, `^ccsurgeon: --larger-than "20": 20 bytes\? say 20B or 20KB\nccsurgeon: hint: give the unit: --larger-than 20KB \(or 20B for bytes\)\n$`},
		{"max-result without a unit", []string{"compress", example, "--max-result", "300", "--dry-run"}, 2, `^$`, `^ccsurgeon: --max-result "300": 300 bytes\? say 300B or 300KB\n`},
		{"size with a unit", []string{"drop-tool-calls", example, "--larger-than", "20B", "--dry-run"}, 0, `tool calls removed`, `^$`},
		// a size past what 64 bits hold, or not a number at all, was read
		// as a negative size: --larger-than then selected every call
		{"size too large", []string{"drop-tool-calls", example, "--larger-than", "99999999999999999999GB", "--dry-run"}, 2, `^$`, `^ccsurgeon: --larger-than "99999999999999999999GB": too large\n`},
		{"size not a number", []string{"drop-tool-calls", example, "--larger-than", "NaNKB", "--dry-run"}, 2, `^$`, `^ccsurgeon: --larger-than "NaNKB": want a number with a unit`},
		{"size infinite", []string{"compress", example, "--max-result", "InfKB", "--dry-run"}, 2, `^$`, `^ccsurgeon: --max-result "InfKB": want a number with a unit`},
		{"min-size too large", []string{"ls", "--min-size", "1e30GB"}, 2, `^$`, `^ccsurgeon: --min-size "1e30GB": too large\n`},
		{"size zero", []string{"compress", example, "--max-result", "0", "--keep-turns", "1", "--dry-run"}, 0, `nothing was written`, `^$`},
		{"turns beyond the session", []string{"drop-tool-calls", example, "--turns", "9", "--dry-run"}, 2, `^$`, `^ccsurgeon: turn range "9" is out of range: the branch has turns 1-3\nccsurgeon: hint: `},
		{"turns ending beyond the session", []string{"drop-tool-calls", example, "--turns", "2-7", "--dry-run"}, 2, `^$`, `out of range: the branch has turns 1-3`},
		{"selector selects nothing", []string{"drop-tool-calls", example, "--tool", "Nope", "--dry-run"}, 0, `^dry run: drop-tool-calls on .*tools.jsonl: nothing to change; nothing was written\n`, `^$`},
		{"bad turn range", []string{"drop-tool-calls", example, "--turns", "5-2", "--dry-run"}, 2, ``, `turn range "5-2"`},
		{"strip before a turn beyond the session", []string{"strip-thinking", example, "--before-turn", "9", "--dry-run"}, 2, `^$`, `^ccsurgeon: --before-turn 9 is out of range: give 1-4 \(the branch has 3 turns; 4 means all of them\)\nccsurgeon: hint: list the turns with 'ccsurgeon turns testdata/sessions/2.1.328/tools.jsonl'\n$`},
		{"bad rule", []string{"redact", example, "--rule", "nope", "--check"}, 2, ``, `want NAME=REGEX`},
		{"dry run", []string{"strip-thinking", example, "--dry-run"}, 0, `nothing was written`, `^$`},
		// --diff printed its diff, not JSON, on the stdout --json promises JSON
		{"diff with json", []string{"--json", "strip-thinking", example, "--diff"}, 2, `^$`, `^ccsurgeon: --diff prints a line diff, not JSON\nccsurgeon: hint: leave out --json, or use --dry-run for a summary in JSON\n$`},
		{"compress every turn", []string{"compress", example, "--keep-turns", "0", "--dry-run"}, 0, `nothing was written`, `^$`},
		{"unknown command", []string{"bogus"}, 2, `^$`, `^ccsurgeon: unknown command "bogus"\nccsurgeon: hint: `},
		{"-o onto the session itself", []string{"strip-thinking", example, "-o", example}, 2, ``, `-o names a file of the session itself`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := cliRun(t, tc.args...)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", out, errs)
			if tc.stdout != "" {
				assert.Regexp(t, tc.stdout, out)
			}
			if tc.stderr != "" {
				assert.Regexp(t, tc.stderr, errs)
			}
			assert.NotRegexp(t, numberSlip, out+errs, "a count that does not agree with its noun")
			assert.NotContains(t, errs, "strconv.", "a Go error leaks to the user")
			for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
				if strings.HasPrefix(line, "ccsurgeon: ") {
					assert.False(t, strings.HasSuffix(line, "."), "error line ends with a period: %q", line)
					msg := strings.TrimPrefix(strings.TrimPrefix(line, "ccsurgeon: "), "hint: ")
					assert.Regexp(t, `^[a-z0-9-"'/-]|^[A-Z]{2}`, msg, "error starts lowercase: %q", line)
				}
			}
		})
	}
}

// TestHelpTeaches: every command's --help shows a usage line and an example.
func TestHelpTeaches(t *testing.T) {
	root := newCommand(&app.Env{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		for _, sub := range c.Commands {
			if sub.Name == "help" || sub.Name == "completion" {
				continue
			}
			t.Run(sub.Name, func(t *testing.T) {
				out, _, code := cliRun(t, sub.Name, "--help")
				assert.Equal(t, 0, code)
				assert.Contains(t, out, "ccsurgeon "+sub.Name)
				assert.Regexp(t, `(?i)example`, out, "no example in %s --help", sub.Name)
			})
		}
	}
	walk(root)
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, code := cliRun(t, "completion", sh)
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "ccsurgeon")
	}
	// the flags a shell offers are described as in --help: the backticks
	// that name a flag's value in its usage are not shown
	// ("--project:only sessions of project `PATH`…")
	for _, args := range [][]string{{"ls", "-"}, {"info", "--pr"}} {
		out, _, code := cliRun(t, append(args, "--generate-shell-completion")...)
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "--", args)
		assert.NotContains(t, out, "`", args)
	}
	out, _, _ := cliRun(t, "ls", "-", "--generate-shell-completion")
	assert.Contains(t, out, "--project:only sessions of project PATH: ")
}

// TestRewriteIsLossless: rewrite with no operation is byte-identical for
// every session file we have, of every client version.
func TestRewriteIsLossless(t *testing.T) {
	var files []string
	for _, root := range []string{"testdata", testcorpus.Optional(t)} {
		if root == "" {
			continue
		}
		require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return err
		}))
	}
	require.Greater(t, len(files), 50)
	dir := t.TempDir()
	for i, p := range files {
		out := filepath.Join(dir, regexp.MustCompile(`\W`).ReplaceAllString(p, "_"))
		_, errs, code := cliRun(t, "rewrite", p, "-o", out)
		require.Equal(t, 0, code, "%s: %s", p, errs)
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(out)
		require.True(t, bytes.Equal(a, b), "%d %s: rewrite -o is not byte-identical", i, p)
	}
}

// sessionID returns the session id a generated transcript holds.
func sessionID(t *testing.T, b []byte) string {
	t.Helper()
	m := regexp.MustCompile(`"sessionId":"([0-9a-f-]{36})"`).FindSubmatch(b)
	require.NotNil(t, m, "no sessionId")
	return string(m[1])
}

// installSession copies a generated session (and its sidecar folder, if
// any) into the project folder project of a config dir, its mtime an hour
// back so that in-place writes pass the live-session guard. It returns
// the session's path.
// installSessionOf installs the example session, made in the project
// at proj (its recorded cwd), under the project folder folder, and returns
// its path and bytes.
func installSessionOf(t *testing.T, cfg, folder, proj string) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	b = bytes.ReplaceAll(b, []byte("/tmp/ccsurgeon-gen/2.1.328/tools/work/project"), []byte(proj))
	src := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(src, b, 0o600))
	return installSession(t, cfg, folder, src), b
}

func installSession(t *testing.T, cfg, project, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	id := sessionID(t, b)
	dir := filepath.Join(cfg, "projects", project)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, id+".jsonl")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	side := strings.TrimSuffix(src, ".jsonl")
	if st, err := os.Stat(side); err == nil && st.IsDir() {
		require.NoError(t, filepath.Walk(side, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(side, p)
			dst := filepath.Join(dir, id, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o700))
			c, err := os.ReadFile(p)
			require.NoError(t, err)
			return os.WriteFile(dst, c, 0o600)
		}))
	}
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	return path
}

// TestSummaryLinesInFixedOrder: the counts of a change print in one
// documented order, whatever the run, and their JSON keys are snake_case
// identifiers a script can rely on.
func TestSummaryLinesInFixedOrder(t *testing.T) {
	args := []string{"drop-tool-calls", example, "--tool", "Bash", "--tool", "Read", "--tool", "Edit", "--tool", "Write", "--dry-run"}
	first, errs, code := cliRun(t, args...)
	require.Equal(t, 0, code, errs)
	for range 10 {
		out, _, _ := cliRun(t, args...)
		require.Equal(t, first, out, "the summary changed between two runs")
	}
	assert.Contains(t, first, "  tool calls removed: 6 (Bash 3, Edit 1, Read 1, Write 1)\n")

	out, errs, code := cliRun(t, append(args, "--json")...)
	require.Equal(t, 0, code, errs)
	var r app.WriteResult
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.NotEmpty(t, r.Counts)
	for k := range r.Counts {
		assert.Regexp(t, `^[a-z][a-z0-9_]*$`, k)
	}
	assert.Equal(t, 6, r.Counts["tool_calls_removed"])
	assert.Equal(t, map[string]int{"Bash": 3, "Edit": 1, "Read": 1, "Write": 1}, r.CountDetails["tool_calls_removed"])
}

// TestCountKeysDocumented: every count key an operation can report is in
// the README's table, with the label the text summary prints.
func TestCountKeysDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, c := range ops.CountKinds {
		assert.True(t, strings.Contains(string(readme), "| `"+c.Key+"` | "+c.Label+" |"), "README does not document count %s", c.Key)
	}
}

// TestCountKeysAreNamed: no operation counts, and no command reads a
// count, under a key of its own making: each names a constant of
// ops.CountKinds.
func TestCountKeysAreNamed(t *testing.T) {
	files, err := filepath.Glob("ops/*.go")
	require.NoError(t, err)
	app, err := filepath.Glob("app/*.go")
	require.NoError(t, err)
	files = append(files, app...)
	literal := regexp.MustCompile(`\.Count(Of)?\("|Counts\["`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range literal.FindAllIndex(b, -1) {
			line := 1 + bytes.Count(b[:m[0]], []byte("\n"))
			t.Errorf("%s:%d counts under a string literal, not a key of ops.CountKinds", f, line)
		}
	}
}

// TestPreexistingErrorsWhateverTheDestination: the errors the input
// already had are counted over the whole input session (subagent
// transcripts included), not over the files a destination happens to write.
func TestPreexistingErrorsWhateverTheDestination(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/subagent.jsonl")
	// break the subagent transcript: a line that is not JSON
	subs, err := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, subs, 1)
	b, err := os.ReadFile(subs[0])
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	lines[2] = "{not json\n" + lines[2]
	require.NoError(t, os.WriteFile(subs[0], []byte(strings.Join(lines, "")), 0o600))

	counts := map[string]int{}
	for name, dest := range map[string][]string{
		"dry-run": {"--dry-run"},
		"-o":      {"-o", filepath.Join(t.TempDir(), "out.jsonl")},
		"new":     {"--new"},
	} {
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json", "compress", path, "--keep-turns", "0"}, dest...)...)
		require.Equal(t, 0, code, "%s: %s", name, errs)
		var r app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		counts[name] = r.Preexisting
	}
	assert.Greater(t, counts["dry-run"], 0, "the broken subagent transcript is not counted")
	assert.Equal(t, map[string]int{"dry-run": counts["dry-run"], "-o": counts["dry-run"], "new": counts["dry-run"]}, counts)
}

// TestHelpShowsNoSentinelDefaults: a flag's help states its real default in
// words where it has one, never the zero or -1 a flag uses for "not given",
// and never twice.
func TestHelpShowsNoSentinelDefaults(t *testing.T) {
	root := newCommand(&app.Env{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, sub := range root.Commands {
		if sub.Hidden {
			continue
		}
		out, _, code := cliRun(t, sub.Name, "--help")
		require.Equal(t, 0, code, sub.Name)
		assert.NotContains(t, out, "(default: ", "%s --help shows a flag default urfave-style", sub.Name)
		assert.NotRegexp(t, `\(default:? (-1|0)\)`, out, "%s --help shows a sentinel default", sub.Name)
	}
	out, _, _ := cliRun(t, "rewrite", "--help")
	assert.Regexp(t, `--keep N\s+keep the N last made backups of the session, besides the original \(default 20\)\n`, out)
}

// TestExitCodesDocumented: --help and the README list the same exit codes.
func TestExitCodesDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	out, _, _ := cliRun(t, "--help")
	for _, line := range strings.Split(strings.TrimSpace(exitCodesHelp), "\n") {
		assert.Contains(t, out, line)
		assert.True(t, strings.Contains(string(readme), line), "README lacks %q", line)
	}
	assert.Contains(t, exitCodesHelp, "3 ")
}

// TestCompletionOffersSessionIDs: completing a command's SESSION offers the
// ids of the sessions under the config dir.
func TestCompletionOffersSessionIDs(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	for _, cmd := range []string{"info", "strip-thinking", "validate", "diff"} {
		out, errs, code := cliRun(t, "--config-dir", cfg, cmd, "--generate-shell-completion")
		require.Equal(t, 0, code, errs)
		assert.Contains(t, strings.Split(out, "\n"), id, "%s does not complete session ids", cmd)
	}
	out, _, _ := cliRun(t, "--config-dir", cfg, "info", "--generate-shell-completion")
	assert.NotContains(t, out, "--help", "completing an argument offers flags")
}

// TestSelectorSelectingNothingWritesNothing: a change that changes nothing
// makes no backup and no new session, and says so; -o still writes its
// output, an identical copy (TestOutputAlwaysWrites).
func TestSelectorSelectingNothingWritesNothing(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	st0, err := os.Stat(path)
	require.NoError(t, err)
	for _, dest := range [][]string{nil, {"--new"}, {"-o", filepath.Join(t.TempDir(), "x.jsonl")}} {
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "drop-tool-calls", path, "--tool", "Nope"}, dest...)...)
		assert.Equal(t, 0, code, errs)
		if len(dest) == 2 {
			assert.Regexp(t, `^drop-tool-calls: no change; wrote an identical copy to `, out)
			assert.FileExists(t, dest[1])
			continue
		}
		assert.Regexp(t, `^drop-tool-calls: nothing to change in .*; nothing was written\n`, out, "%v", dest)
	}
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	st1, _ := os.Stat(path)
	assert.Equal(t, st0.ModTime(), st1.ModTime())
	assert.NoDirExists(t, filepath.Join(cfg, "ccsurgeon", "backups"), "a backup of a change that changed nothing")
	sessions, _ := filepath.Glob(filepath.Join(cfg, "projects", "-work-p", "*.jsonl"))
	assert.Len(t, sessions, 1, "--new wrote a copy of a session it did not change")
}

// lsSandbox is a config dir with two generated sessions in one project
// folder whose name is not the slug of their working directory (as after a
// move, or a slug the client shortened): tools (206 KB, modified a day
// ago) and multi-turn (smaller, an hour ago).
func lsSandbox(t *testing.T) (cfg, tools, multi string) {
	t.Helper()
	cfg = t.TempDir()
	tools = installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/tools.jsonl")
	multi = installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/multi-turn.jsonl")
	day := time.Now().Add(-24 * time.Hour)
	require.NoError(t, os.Chtimes(tools, day, day))
	return cfg, tools, multi
}

func idOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

func TestLsProjectAsShown(t *testing.T) {
	cfg, tools, _ := lsSandbox(t)
	out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "ls")
	require.Equal(t, 0, code, errs)
	var rows []app.SessionSummary
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 2)
	var shown string
	for _, r := range rows {
		if r.ID == idOf(tools) {
			shown = r.Project
		}
	}
	require.True(t, strings.HasPrefix(shown, "/"), "PROJECT shows %q", shown)
	for _, p := range []string{shown, "-work-p"} {
		out, errs, code := cliRun(t, "--config-dir", cfg, "ls", "--project", p)
		assert.Equal(t, 0, code, "%s: %s", p, errs)
		assert.Contains(t, out, idOf(tools), "ls --project %s", p)
	}
	_, errs, code = cliRun(t, "--config-dir", cfg, "ls", "--project", "/no/such/project")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^ccsurgeon: no sessions of project "/no/such/project"\nccsurgeon: hint: `, errs)
}

func TestLsMissingConfigDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, errs, code := cliRun(t, "--config-dir", missing, "ls")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^ccsurgeon: no Claude Code config dir at .*nope\nccsurgeon: hint: `, errs)
}

func TestLsSortAndFilter(t *testing.T) {
	cfg, tools, multi := lsSandbox(t)
	ids := func(args ...string) []string {
		t.Helper()
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json", "ls"}, args...)...)
		require.Equal(t, 0, code, errs)
		var rows []app.SessionSummary
		require.NoError(t, json.Unmarshal([]byte(out), &rows))
		var out2 []string
		for _, r := range rows {
			out2 = append(out2, r.ID)
		}
		return out2
	}
	assert.Equal(t, []string{idOf(multi), idOf(tools)}, ids(), "newest first")
	assert.Equal(t, []string{idOf(multi), idOf(tools)}, ids("--sort", "date"))
	assert.Equal(t, []string{idOf(tools), idOf(multi)}, ids("--sort", "size"), "biggest first")
	assert.Equal(t, []string{idOf(tools)}, ids("--min-size", "200KB"))
	assert.Equal(t, []string{idOf(multi)}, ids("--since", "2h"))
	assert.Equal(t, []string{idOf(multi), idOf(tools)}, ids("--since", "3d"))
	assert.Equal(t, []string{idOf(multi)}, ids("--since", time.Now().Add(-2*time.Hour).Format("2006-01-02T15:04")))
	for _, bad := range [][]string{{"--sort", "name"}, {"--since", "yesterday"}, {"--min-size", "20"}} {
		_, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "ls"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
		assert.Regexp(t, `^ccsurgeon: `+bad[0]+` "`, errs)
	}
}

// TestLsMarksCopies: a clone or a fork lists as one, with the session it
// came from; the original does not.
func TestLsMarksCopies(t *testing.T) {
	cfg, tools, _ := lsSandbox(t)
	out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "clone", tools)
	require.Equal(t, 0, code, errs)
	var r app.WriteResult
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "fork", tools, "2")
	require.Equal(t, 0, code, errs)
	var f app.WriteResult
	require.NoError(t, json.Unmarshal([]byte(out), &f))

	out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "ls")
	require.Equal(t, 0, code, errs)
	var rows []app.SessionSummary
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	origin := map[string]*app.Origin{}
	for _, row := range rows {
		origin[row.ID] = row.Origin
	}
	assert.Nil(t, origin[idOf(tools)])
	require.NotNil(t, origin[r.SessionID])
	assert.Equal(t, app.Origin{Session: idOf(tools), Operation: "clone"}, *origin[r.SessionID])
	require.NotNil(t, origin[f.SessionID])
	assert.Equal(t, app.Origin{Session: idOf(tools), Operation: "fork-at-turn"}, *origin[f.SessionID])

	out, _, _ = cliRun(t, "--config-dir", cfg, "ls")
	assert.Regexp(t, r.SessionID+`.*\(clone of `+idOf(tools)[:8]+`\) `, out)
	assert.Regexp(t, f.SessionID+`.*\(fork of `+idOf(tools)[:8]+`\) `, out)
}

// manySandbox is a config dir with three generated sessions in two projects.
func manySandbox(t *testing.T) (cfg string, paths []string) {
	t.Helper()
	cfg = t.TempDir()
	paths = append(paths,
		installSession(t, cfg, "-work-a", "testdata/sessions/2.1.328/tools.jsonl"),
		installSession(t, cfg, "-work-a", "testdata/sessions/2.1.328/thinking-tool-loop.jsonl"),
		installSession(t, cfg, "-work-b", "testdata/sessions/2.1.328/multi-turn.jsonl"))
	return cfg, paths
}

// TestManySessions: a command that takes SESSION takes several, --all or
// --project: each session is reported under its name, in the order given,
// then the total; the exit code says whether any failed.
func TestManySessions(t *testing.T) {
	cfg, paths := manySandbox(t)
	out, errs, code := cliRun(t, "--config-dir", cfg, "info", paths[0], filepath.Join(t.TempDir(), "nope.jsonl"), paths[2])
	assert.Equal(t, 1, code)
	assert.Regexp(t, `(?s)^==> `+regexp.QuoteMeta(paths[0])+` <==\nsession .*==> .*nope.jsonl <==\n==> `+regexp.QuoteMeta(paths[2])+` <==\nsession `, out)
	assert.Regexp(t, `(?m)^ccsurgeon: .*nope.jsonl: no such file`, errs)
	assert.Regexp(t, `3 sessions: 2 ok, 1 failed\n$`, errs)

	out, errs, code = cliRun(t, "--config-dir", cfg, "info", "--all")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, 3, strings.Count(out, "\n==> ")+boolInt(strings.HasPrefix(out, "==> ")), out)
	assert.Regexp(t, `3 sessions: 3 ok\n$`, errs)

	out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "info", "--project", "-work-a")
	assert.Equal(t, 0, code, errs)
	var many struct {
		Sessions []struct {
			Session  string          `json:"session"`
			ExitCode int             `json:"exit_code"`
			Error    string          `json:"error"`
			Result   json.RawMessage `json:"result"`
		} `json:"sessions"`
		OK     int `json:"ok"`
		Failed int `json:"failed"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &many), out)
	assert.Len(t, many.Sessions, 2)
	assert.Equal(t, 2, many.OK)
	for _, s := range many.Sessions {
		assert.Contains(t, string(s.Result), `"by_type"`)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestManySessionsChange: an in-place change over a project goes session by
// session, each backed up, with a summary.
func TestManySessionsChange(t *testing.T) {
	cfg, paths := manySandbox(t)
	out, errs, code := cliRun(t, "--config-dir", cfg, "drop-tool-calls", "--project", "-work-a", "--tool", "Bash")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "backup: ")
	assert.Regexp(t, `2 sessions: 2 ok\n$`, errs)
	for _, p := range paths[:2] {
		dirs, _ := filepath.Glob(filepath.Join(cfg, "ccsurgeon", "backups", idOf(p), "*"))
		assert.Len(t, dirs, 1, "a backup of %s", p)
	}
	dirs, _ := filepath.Glob(filepath.Join(cfg, "ccsurgeon", "backups", idOf(paths[2]), "*"))
	assert.Empty(t, dirs, "a session of another project was changed")

	// validate and redact --check report per session and in total
	_, errs, code = cliRun(t, "--config-dir", cfg, "validate", "--all")
	assert.Equal(t, 0, code, errs)
	assert.Regexp(t, `3 sessions: 3 valid\n$`, errs)
	_, errs, code = cliRun(t, "--config-dir", cfg, "redact", "--check", "--all")
	assert.Equal(t, 0, code, errs)
	assert.Regexp(t, `3 sessions: 3 ok\n$`, errs)
}

// TestNoSessionMeansThisProject: with no SESSION a command works on the
// newest session of the current folder's project, as 'claude --continue'
// does, and says which it took.
func TestNoSessionMeansThisProject(t *testing.T) {
	cfg := t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(wd, "-")
	older := installSession(t, cfg, slug, "testdata/sessions/2.1.328/tools.jsonl")
	newer := installSession(t, cfg, slug, "testdata/sessions/2.1.328/multi-turn.jsonl")
	installSession(t, cfg, "-elsewhere", "testdata/sessions/2.1.328/secrets.jsonl") // newest of all, another project
	day := time.Now().Add(-24 * time.Hour)
	require.NoError(t, os.Chtimes(older, day, day))
	out, errs, code := cliRun(t, "--config-dir", cfg, "info")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, newer)
	assert.Regexp(t, `^ccsurgeon: using `+idOf(newer)+`, the newest session of this folder's project\n`, errs)
}

// TestNoSessionAndAnEmptyNewestFile: an empty <uuid>.jsonl newer than
// every session of this folder's project is what 'claude --continue'
// (2.1.332) takes, starting from nothing; the default session refuses to
// take another one quietly: it names both, exit 1, and the hint, the
// command with the session's id, works as printed.
func TestNoSessionAndAnEmptyNewestFile(t *testing.T) {
	cfg := t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(wd, "-")
	s := installSession(t, cfg, slug, "testdata/sessions/2.1.328/multi-turn.jsonl")
	empty := filepath.Join(cfg, "projects", slug, "0badc0de-0000-4000-8000-000000000000.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	_, errs, code := cliRun(t, "--config-dir", cfg, "info")
	assert.Equal(t, 1, code, errs)
	assert.Regexp(t, `^ccsurgeon: the newest file of this folder's project is `+regexp.QuoteMeta(empty)+`, an empty transcript: 'claude --continue' here takes it and starts from nothing, not from `+idOf(s)+`, the newest session\nccsurgeon: hint: ccsurgeon --config-dir \S+ info `+idOf(s)+"\n$", errs)
	hint := strings.TrimPrefix(strings.Split(strings.TrimSpace(errs), "\n")[1], "ccsurgeon: hint: ")
	args := strings.Fields(hint)
	out, errs, code := cliRun(t, args[1:]...)
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, s)
}

// TestDiffAgainstNewestBackup: 'diff SESSION' alone diffs the newest backup
// against the session; long lines are shortened with a note saying how to
// see them whole.
func TestDiffAgainstNewestBackup(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	_, errs, code := cliRun(t, "--config-dir", cfg, "diff", path)
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^ccsurgeon: no backups of session `+idOf(path)+`\nccsurgeon: hint: `, errs)

	_, errs, code = cliRun(t, "--config-dir", cfg, "drop-tool-calls", path, "--tool", "Bash")
	require.Equal(t, 0, code, errs)
	out, errs, code := cliRun(t, "--config-dir", cfg, "diff", idOf(path))
	assert.Equal(t, 1, code, errs)
	assert.Regexp(t, `^--- \S*ccsurgeon/backups/`+idOf(path)+`/\S+-drop-tool-calls/\S+\.jsonl\n\+\+\+ `+regexp.QuoteMeta(path)+`\n@@ `, out)
	assert.Contains(t, out, "…")
	assert.Regexp(t, `^ccsurgeon: note: [0-9]+ long lines? shortened around the first difference; --whole-lines shows them whole\n$`, errs)

	whole, errs, code := cliRun(t, "--config-dir", cfg, "diff", idOf(path), "--whole-lines")
	assert.Equal(t, 1, code)
	assert.Empty(t, errs)
	assert.Greater(t, len(whole), len(out))
	orig, err := os.ReadFile(example)
	require.NoError(t, err)
	for _, line := range strings.Split(whole, "\n") {
		if strings.HasPrefix(line, "-{") {
			assert.Contains(t, string(orig), line[1:]+"\n", "a removed line is not whole")
		}
	}
}

// numberSlip matches a count that does not agree with its noun: "1
// entries", "1 turns", or a hedge such as "session(s)".
var numberSlip = regexp.MustCompile(`\b1 (entries|calls|errors|warnings|blocks|turns|sessions|secrets|fixes|backups|files|prompts|paths|exchanges|tool exchanges|thinking blocks|empty text blocks|old backups|path fields|project files|validation errors)\b|[a-z]\((s|es)\)`)

// TestCountsAgreeWithTheirNoun: every count a command prints reads as
// English when it is one ("1 session", "the last turn"), not "1 sessions"
// or "session(s)", in whatever command prints it.
func TestCountsAgreeWithTheirNoun(t *testing.T) {
	cfg := t.TempDir()
	// a session whose cwd does not exist: the cwd the client recorded is
	// moved into a temp dir, so that whatever this machine has at the
	// recorded path (gentestdata makes it) the session stays stranded
	src, err := os.ReadFile("testdata/sessions/2.1.328/tools.jsonl")
	require.NoError(t, err)
	gone := filepath.Join(t.TempDir(), "gone", "project")
	recorded := gjson.GetBytes(src[:bytes.IndexByte(src, '\n')], "cwd").String()
	if recorded == "" {
		for _, line := range bytes.Split(src, []byte("\n")) {
			if recorded = gjson.GetBytes(line, "cwd").String(); recorded != "" {
				break
			}
		}
	}
	require.NotEmpty(t, recorded)
	strandedSrc := filepath.Join(t.TempDir(), "tools.jsonl")
	require.NoError(t, os.WriteFile(strandedSrc, bytes.ReplaceAll(src, []byte(`"cwd":"`+recorded+`"`), []byte(`"cwd":"`+gone+`"`)), 0o600))
	tools := installSession(t, cfg, "-tmp-gone", strandedSrc)
	secrets := installSession(t, cfg, "-tmp-secrets", "testdata/sessions/2.1.328/secrets.jsonl")
	torn := filepath.Join(t.TempDir(), "torn.jsonl") // one validation error: its last line cut short
	b, err := os.ReadFile("testdata/sessions/2.1.328/multi-turn.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(torn, append(b, b[:100]...), 0o600))
	dest := t.TempDir()
	type countCase struct {
		args []string
		want string // what the count must read, where it is one
	}
	var fromCorpus []countCase
	if corpus := testcorpus.Optional(t); corpus != "" {
		loop := installSession(t, cfg, "-tmp-loop", filepath.Join(corpus, "claudeless/v2.1.29/write-permission-dialog/91348717-fea3-46ed-a511-2370f1aaa5b7.jsonl")) // ends in a tool-use loop with one thinking block
		fromCorpus = append(fromCorpus, countCase{[]string{"strip-thinking", loop, "--dry-run"}, "kept 1 thinking block of the last turn"})
	}
	for _, tc := range append([]countCase{
		{[]string{"ls"}, "(1 session): ccsurgeon --config-dir " + cfg + " move --project"},
		{[]string{"move", tools, "--to", dest, "--dry-run"}, "would move 1 session from"},
		{[]string{"compress", tools, "--keep-turns", "1", "--keep-exchanges", "1", "--target-tokens", "1000", "--dry-run"}, "(the last turn and 1 tool exchange, kept by --keep-turns and --keep-exchanges)"},
		{[]string{"redact", secrets, "--force"}, "the backup of this session still holds the secrets"},
		{[]string{"backups", secrets, "--purge"}, "removed 1 backup of"},
		{[]string{"repair", torn, "--dry-run"}, "note: the input already had 1 validation error; it is not new"},
	}, fromCorpus...) {
		t.Run(tc.args[0], func(t *testing.T) {
			out, errs, code := cliRun(t, append([]string{"--config-dir", cfg}, tc.args...)...)
			assert.Contains(t, out+errs, tc.want, "exit %d", code)
			assert.NotRegexp(t, numberSlip, out+errs)
		})
	}
}

// TestTurnsOfIDEContextAndInterruptions: an <ide_opened_file> entry of its
// own is no turn (the client merges it into the prompt after it); a turn
// the person interrupted is marked so in 'turns', and forking at it says
// it was interrupted; "entries after the fork point" counts no more than
// the lines that follow it.
func TestTurnsOfIDEContextAndInterruptions(t *testing.T) {
	data, err := os.ReadFile("testdata/sessions/2.1.328/multi-turn.jsonl")
	require.NoError(t, err)
	f, err := chain.LoadBytes("x.jsonl", data)
	require.NoError(t, err)
	ts := f.ActiveTurns().List
	require.Len(t, ts, 3)
	second, third := ts[1].Entry, ts[2].Entry
	lines := bytes.SplitAfter(data, []byte("\n"))
	entry := func(like []byte, uuid, parent, text string) []byte {
		l := []byte(`{}`)
		for _, kv := range [][2]any{{"parentUuid", parent}, {"isSidechain", false}, {"type", "user"}, {"uuid", uuid},
			{"message", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}},
			{"sessionId", gjson.GetBytes(like, "sessionId").Str}, {"timestamp", gjson.GetBytes(like, "timestamp").Str}} {
			l, err = sjson.SetBytes(l, kv[0].(string), kv[1])
			require.NoError(t, err)
		}
		return append(l, '\n')
	}
	const ide, stop = "1de00000-0000-4000-8000-000000000001", "1de00000-0000-4000-8000-000000000002"
	var out []byte
	for k, l := range lines[:third+1] {
		switch {
		case k < third && f.Entries[k].Type() == "last-prompt":
			continue
		case k == second: // the IDE's note of an opened file, an entry of its own before the prompt
			out = append(out, entry(l, ide, f.Entries[second].ParentUUID(), "<ide_opened_file>The user opened the file /w/notes.txt in the IDE. This may or may not be related to the current task.</ide_opened_file>")...)
			l, err = sjson.SetBytes(l, "parentUuid", ide)
			require.NoError(t, err)
		}
		out = append(out, l...)
	}
	out = append(out, entry(lines[third], stop, f.Entries[third].UUID(), "[Request interrupted by user]")...)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, out, 0o600))

	stdout, errs, code := cliRun(t, "turns", p)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?s)^\s+1\s.*What is a JSONL file\?\n\s+2\s.*Why do session logs use it\?\n\s+3\s.*Give one drawback\..*interrupted.*\n$`, stdout)
	assert.NotContains(t, stdout, "ide_opened_file")

	stdout, errs, code = cliRun(t, "fork", p, "3", "-o", filepath.Join(t.TempDir(), "f.jsonl"))
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, stdout+errs, "turn 3 was interrupted")

	stdout, errs, code = cliRun(t, "fork", p, "1", "--dry-run")
	require.Equal(t, 0, code, errs)
	m := regexp.MustCompile(`entries after the fork point removed: (\d+)`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	n, _ := strconv.Atoi(m[1])
	outLines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	follow := 0 // the lines after the answer to turn 1: its last assistant entry before the IDE entry
	for k, l := range outLines {
		if gjson.GetBytes(l, "type").Str == "assistant" {
			follow = len(outLines) - 1 - k
		}
		if bytes.Contains(l, []byte(ide)) {
			break
		}
	}
	assert.LessOrEqual(t, n, follow, "at most the %d lines after the answer to turn 1", follow)
	assert.Positive(t, n)
}

// TestValidateJSONPerSession: validate --json of several sessions says
// which are valid, with their counts, and names one it could not read;
// the total is valid only when all are.
func TestValidateJSONPerSession(t *testing.T) {
	cfg, paths := manySandbox(t)
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "validate", paths[0], missing, paths[2])
	assert.Equal(t, 1, code, errs)
	var r struct {
		Valid bool `json:"valid"`
		Files []struct {
			File     string `json:"file"`
			Valid    bool   `json:"valid"`
			Errors   int    `json:"errors"`
			Warnings int    `json:"warnings"`
			Error    string `json:"error"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	assert.False(t, r.Valid, "one of them could not be read")
	require.Len(t, r.Files, 3)
	assert.Equal(t, paths[0], r.Files[0].File)
	assert.True(t, r.Files[0].Valid)
	assert.Equal(t, missing, r.Files[1].File)
	assert.False(t, r.Files[1].Valid)
	assert.Contains(t, r.Files[1].Error, "no such file")
	assert.Equal(t, paths[2], r.Files[2].File)
	assert.True(t, r.Files[2].Valid)

	out, _, code = cliRun(t, "--config-dir", cfg, "--json", "validate", "--all")
	assert.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	assert.True(t, r.Valid)
	assert.Len(t, r.Files, 3)
}

// Review finding: --rule and --allow were split at commas, as urfave does
// with every repeatable flag, so a regexp with a bounded repeat ({3,40})
// was refused ('--rule "40}": want NAME=REGEX') or, for --allow, became
// two other regexps and allowed nothing it named.
func TestRedactRegexpsHoldCommas(t *testing.T) {
	const secrets = "testdata/sessions/2.1.328/secrets.jsonl"
	out, errs, code := cliRun(t, "redact", secrets, "--rule", "tok=ghp_[A-Za-z0-9]{3,40}", "--check")
	assert.Equal(t, 1, code, errs)
	assert.NotContains(t, errs, "want NAME=REGEX")
	assert.Contains(t, out, "[REDACTED:tok:1]")
	out, errs, code = cliRun(t, "redact", secrets, "--allow", "ghp_[A-Za-z0-9]{1,99}", "--check")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, out, "-> [REDACTED:", "the other secrets are found")
	assert.NotContains(t, out, "github-pat", "the allowed token is not")
}

// TestRelativeConfigDir: a config dir named by a relative path
// (--config-dir cfg, CLAUDE_CONFIG_DIR=cfg) works for every command; move
// refused it ("backup: cfg/projects/... is not inside the config dir
// /abs/cfg"), even with --dry-run.
func TestRelativeConfigDir(t *testing.T) {
	root := t.TempDir()
	installSession(t, filepath.Join(root, "cfg"), "-work-app", example)
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	id := sessionID(t, b)
	t.Chdir(root)
	for _, viaEnv := range []bool{false, true} {
		args := []string{"--config-dir", "cfg"}
		if viaEnv {
			t.Setenv("CLAUDE_CONFIG_DIR", "cfg")
			args = nil
		}
		_, stderr, code := cliRun(t, append(args, "move", id, "--to", filepath.Join(root, "elsewhere"), "--dry-run")...)
		require.Equal(t, 0, code, "env=%v: %s", viaEnv, stderr)
	}
	_, stderr, code := cliRun(t, "--config-dir", "cfg", "move", id, "--to", filepath.Join(root, "elsewhere"), "--force") // the sidecar files were just written
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, filepath.Join(root, "cfg", "projects", chain.ProjectSlug(filepath.Join(root, "elsewhere")), id+".jsonl"))
}

// TestConfigDirWithoutProjects: --config-dir / (or any folder that holds
// no projects/) said "no sessions under /projects match" (exit 0) or "no
// session matches": as if the sessions were missing, not the config dir.
// Every command that looks sessions up says the folder is not a Claude
// Code config dir, with a hint, and writes nothing.
func TestConfigDirWithoutProjects(t *testing.T) {
	dirs := []string{t.TempDir()}
	if _, err := os.Lstat("/projects"); os.IsNotExist(err) {
		dirs = append(dirs, "/")
	}
	cmds := [][]string{{"ls"}, {"--json", "ls"}, {"info", "97e1284d"}, {"info"}, {"info", "--pick"}, {"strip-thinking", "--all"}, {"restore", "97e1284d"}, {"backups", "97e1284d"}, {"move", "--project", "/no/such/old", "--to", "/no/such/new"}, {"ls", "--project", "/no/such/old"}}
	for _, dir := range dirs {
		_, noBackups := os.Lstat(filepath.Join(dir, "ccsurgeon"))
		for _, args := range cmds {
			out, errs, code := cliRun(t, append([]string{"--config-dir", dir}, args...)...)
			what := dir + " " + strings.Join(args, " ")
			assert.Equal(t, 1, code, "%s\nstdout: %s\nstderr: %s", what, out, errs)
			assert.Regexp(t, `^ccsurgeon: `+regexp.QuoteMeta(dir)+` is not a Claude Code config dir: it has no projects folder\nccsurgeon: hint: [^\n]*--config-dir[^\n]*\n$`, errs, what)
			if args[0] != "--json" {
				assert.Empty(t, out, what)
			}
		}
		if noBackups != nil {
			assert.NoFileExists(t, filepath.Join(dir, "ccsurgeon"), "something was written in %s", dir)
		}
	}
}

// TestErrorsWordedWithContextKeepTheirHint: an error the command layer
// words with context around it ("diff: …", "an interrupted move could
// not be finished: …") keeps the hint and exit code of the error inside.
// Members: diff against a newest backup whose copy is a named pipe (the
// user's side: the backup named as what cannot be read, and a hint that
// lists the backups, not the session's own), and each kind of inner error through
// app.Errorf and the error report (a chain error with a hint, an argument
// error with exit 2, a backup error the command layer words, a plain one
// without a hint); the member says which lost it.
func TestErrorsWordedWithContextKeepTheirHint(t *testing.T) {
	t.Run("diff against a backup copy that is a named pipe", func(t *testing.T) {
		cfg := t.TempDir()
		path := installSession(t, cfg, "-work-p", example)
		_, errs, code := cliRun(t, "--config-dir", cfg, "drop-tool-calls", path, "--tool", "Bash")
		require.Equal(t, 0, code, errs)
		var copies []string
		require.NoError(t, filepath.WalkDir(filepath.Join(cfg, "ccsurgeon", "backups"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && filepath.Base(p) == idOf(path)+".jsonl" {
				copies = append(copies, p)
			}
			return err
		}))
		require.Len(t, copies, 1, "the backup's copy of the session")
		require.NoError(t, os.Remove(copies[0]))
		mkfifo(t, copies[0])
		_, errs, code = cliRun(t, "--config-dir", cfg, "diff", idOf(path))
		assert.Equal(t, 1, code, errs)
		assert.Regexp(t, `^ccsurgeon: diff: the newest backup's copy of session `+idOf(path)+` cannot be read: \S+ is not a regular file \(a named pipe\)\nccsurgeon: hint: list the backups with 'ccsurgeon --config-dir \S+ backups `+idOf(path)+`'\n$`, errs)
		// the hint, as printed, lists them
		hint := strings.TrimPrefix(strings.Split(strings.TrimSpace(errs), "\n")[1], "ccsurgeon: hint: ")
		args := strings.Fields(strings.Trim(strings.TrimPrefix(hint, "list the backups with "), "'"))
		out, errs, code := cliRun(t, args[1:]...)
		assert.Equal(t, 0, code, errs)
		assert.Contains(t, out, "drop-tool-calls")
	})
	for _, m := range []struct {
		name  string
		inner error
		code  int
		hint  string
		words string // what the command layer says of inner ("": its own words)
	}{
		{"a chain error with its hint", &chain.Error{Msg: "x is not a regular file", Hint: "give its path"}, 1, "give its path", ""},
		{"an argument error", &chain.ArgError{Msg: "bad id", Hint: "give an id"}, 2, "give an id", ""},
		{"a backup error the command layer words", &backup.ExistsError{Path: "/tmp/out.jsonl"}, 1, "pass --force to replace it, or choose another name", ""},
		{"an error the command layer words anew", &ops.OptionError{Option: "Target", Value: 0, Want: "a positive count"}, 2, "", "--target-tokens must be a positive count"},
		{"a plain error", errors.New("disk full"), 1, "", ""},
	} {
		t.Run(m.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := reportErrorAs(&stderr, app.Errorf("diff: %v", m.inner), "ccsurgeon")
			assert.Equal(t, m.code, code, "exit code")
			words := m.inner.Error()
			if m.words != "" {
				words = m.words
			}
			want := "ccsurgeon: diff: " + words + "\n"
			if m.hint != "" {
				want += "ccsurgeon: hint: " + m.hint + "\n"
			}
			assert.Equal(t, want, stderr.String())
		})
	}
}
