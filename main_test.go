package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v3"

	"github.com/ccsurgeon/ccsurgeon/app"
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
	empty := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // regexp
		stderr string // regexp
	}{
		{"info", []string{"info", example}, 0, `(?s)turns\s+3.*by entry type`, `^$`},
		{"info json after the session", []string{"info", example, "--json"}, 0, `"by_tool"`, `^$`},
		{"turns", []string{"turns", example}, 0, `(?m)^\s+1\s.*Run some shell commands`, `^$`},
		{"validate ok", []string{"validate", example}, 0, ``, `valid`},
		{"validate json", []string{"--json", "validate", example}, 0, `"valid": true`, ``},
		{"rewrite copy to stdout", []string{"rewrite", example, "-o", "-"}, 0, `^\{`, `^$`},
		{"no session", []string{"info"}, 2, `^$`, `^ccsurgeon: info needs a SESSION`},
		{"two sessions", []string{"info", "a", "b"}, 2, `^$`, `^ccsurgeon: info takes one SESSION`},
		{"unknown flag", []string{"info", "--bogus", example}, 2, ``, `^ccsurgeon: flag provided but not defined`},
		{"unknown id", []string{"--config-dir", empty, "info", "deadbeef"}, 1, `^$`, `(?s)^ccsurgeon: no session matches "deadbeef" in .*\nccsurgeon: hint: `},
		{"short prefix", []string{"info", "abc"}, 2, `^$`, `^ccsurgeon: session id prefix "abc" is too short`},
		{"missing file", []string{"info", "nope/x.jsonl"}, 1, `^$`, `^ccsurgeon: no such file: nope/x.jsonl`},
		{"directory", []string{"info", "testdata"}, 1, `^$`, `^ccsurgeon: testdata is a directory, not a session file`},
		{"fork out of range", []string{"fork", example, "9", "-o", filepath.Join(empty, "f.jsonl")}, 2, ``, `^ccsurgeon: turn 9 is out of range: the branch has turns 1-3\nccsurgeon: hint: `},
		{"fork not a number", []string{"fork", example, "x"}, 2, ``, `turn number "x" is not a number`},
		{"rewrite nothing in place", []string{"rewrite", example}, 2, ``, `would change nothing`},
		{"drop without selector", []string{"drop-tool-calls", example, "--dry-run"}, 2, ``, `needs a selector`},
		{"bad size", []string{"drop-tool-calls", example, "--larger-than", "lots", "--dry-run"}, 2, ``, `size "lots"`},
		{"bad turn range", []string{"drop-tool-calls", example, "--turns", "5-2", "--dry-run"}, 2, ``, `turn range "5-2"`},
		{"bad rule", []string{"redact", example, "--rule", "nope", "--check"}, 2, ``, `want NAME=REGEX`},
		{"dry run", []string{"strip-thinking", example, "--dry-run"}, 0, `nothing was written`, `^$`},
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
}

// TestRewriteIsLossless: rewrite with no operation is byte-identical for
// every session file we have, of every client version.
func TestRewriteIsLossless(t *testing.T) {
	var files []string
	for _, root := range []string{"testdata", filepath.Join("..", "shared", "corpus")} {
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
