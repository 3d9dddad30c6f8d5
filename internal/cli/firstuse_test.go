package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a first-time user met, each pinned from the command line.

// TestRewriteDryRunWithoutOperation: `rewrite S --dry-run` with no
// operation printed a summary and exit 0, and the same line without
// --dry-run was then refused as a usage error (exit 2): the dry run must
// say what the real run says.
func TestRewriteDryRunWithoutOperation(t *testing.T) {
	for _, args := range [][]string{
		{"rewrite", example, "--dry-run"},
		{"rewrite", example, "--diff"},
		{"rewrite", example},
	} {
		out, errs, code := cliRun(t, args...)
		assert.Equal(t, 2, code, "%v\nstdout: %s\nstderr: %s", args, out, errs)
		assert.Empty(t, out, "%v", args)
		assert.Regexp(t, `^ccsurgeon: rewrite without an operation would change nothing\nccsurgeon: hint: add .*--target-tokens N`, errs, "%v", args)
	}
	// a copy is still a copy, previewed or not
	dst := filepath.Join(t.TempDir(), "copy.jsonl")
	_, errs, code := cliRun(t, "rewrite", example, "-o", dst, "--dry-run")
	assert.Equal(t, 0, code, errs)
}

// TestLsMarksABranchCloneAsAClone: `clone --branch 1` was listed as
// "(clone+select-branch copy of …)", the operation's internal name.
func TestLsMarksABranchCloneAsAClone(t *testing.T) {
	cfg := t.TempDir()
	src := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/rewind.jsonl")
	out, errs, code := cliRun(t, "--config-dir", cfg, "clone", src, "--branch", "1")
	require.Equal(t, 0, code, errs)
	m := regexp.MustCompile(`new session ([0-9a-f-]{36})`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	out, errs, code = cliRun(t, "--config-dir", cfg, "ls")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, m[1]+`.*\(clone of `+idOf(src)[:8]+`\) `, out)
	assert.NotContains(t, out, "select-branch")
	out, errs, code = cliRun(t, "--config-dir", cfg, "--json", "ls")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"operation": "clone+select-branch"`, "--json keeps the operation as recorded")
}

// TestRestoreWithoutBackups: restore of a session ccsurgeon never changed
// said "no backups of PATH" and nothing more.
func TestRestoreWithoutBackups(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	out, errs, code := cliRun(t, "--config-dir", cfg, "restore", idOf(p))
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.Regexp(t, `^ccsurgeon: no backups of .*\.jsonl\nccsurgeon: hint: nothing to undo: .*--no-backup.*\n$`, errs)
}

// TestRedactCheckHintNamesTheSession: the hint of a failed --check was
// "ccsurgeon redact SESSION -o redacted.jsonl", to be retyped; it names
// the session checked, as the other hints do.
func TestRedactCheckHintNamesTheSession(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", "testdata/sessions/2.0.50/secrets.jsonl")
	_, errs, code := cliRun(t, "--config-dir", cfg, "redact", idOf(p)[:8], "--check")
	assert.Equal(t, 1, code, errs)
	// the config dir named too: the hint runs as printed (issue 27, finding 12)
	assert.Contains(t, errs, "ccsurgeon: hint: write a redacted copy with 'ccsurgeon --config-dir "+cfg+" redact "+idOf(p)+" -o redacted.jsonl'\n")

	loose := filepath.Join(t.TempDir(), "share.jsonl")
	b, err := os.ReadFile("testdata/sessions/2.0.50/secrets.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(loose, b, 0o600))
	_, errs, code = cliRun(t, "--config-dir", cfg, "redact", loose, "--check")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "ccsurgeon: hint: write a redacted copy with 'ccsurgeon --config-dir "+cfg+" redact "+loose+" -o redacted.jsonl'\n")
}

// TestLsWithNothingToList: with no filter, "no sessions under DIR match"
// asked what they should have matched.
func TestLsWithNothingToList(t *testing.T) {
	cfg := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(cfg, "projects"), 0o700))
	out, errs, code := cliRun(t, "--config-dir", cfg, "ls")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.Equal(t, "no sessions under "+filepath.Join(cfg, "projects")+"\n", errs)

	installSession(t, cfg, "-work-p", example) // an hour old
	_, errs, code = cliRun(t, "--config-dir", cfg, "ls", "--since", "1m")
	assert.Equal(t, 0, code)
	assert.Equal(t, "no sessions under "+filepath.Join(cfg, "projects")+" match\n", errs)
}

// TestInfoHelpSaysTokens: info leads with the tokens a resume sends, but
// its one-line description in 'ccsurgeon --help' spoke only of sizes.
func TestInfoHelpSaysTokens(t *testing.T) {
	out, _, code := cliRun(t, "--help")
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^\s+info\s+.*tokens a resume sends`, out)
}

// TestTargetTokensDropsBookkeepingEvenWhenItFits: `compress
// --target-tokens 150000` on a session of 20,000 tokens removed its
// bookkeeping entries ("0.0% fewer" tokens, 35% fewer bytes), where the
// help and README said it "cuts only as much as needed". What always goes
// is said, in the help and in the README.
func TestTargetTokensDropsBookkeepingEvenWhenItFits(t *testing.T) {
	out, errs, code := cliRun(t, "compress", example, "--target-tokens", "1000000", "--dry-run")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "bookkeeping entries removed")
	help, _, _ := cliRun(t, "compress", "--help")
	assert.Regexp(t, `(?s)--target-tokens N always drops the failed-retry error\s+entries\s+and\s+the\s+bookkeeping.*even\s+when\s+the\s+session\s+already\s+fits`, help)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Regexp(t, "(?s)always drops the synthetic\\s+\"Prompt is too long\" error entries.*and the bookkeeping.*even when the session\\s+already fits", string(readme))
}

// TestReadmeForkTakesABranch: fork --help shows [--branch N | --leaf UUID]
// (fork on a branch /rewind left behind), the README's table did not.
func TestReadmeForkTakesABranch(t *testing.T) {
	help, _, _ := cliRun(t, "fork", "--help")
	const usage = "fork-at-turn SESSION N [--branch N | --leaf UUID]"
	require.Contains(t, help, usage)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| `"+strings.ReplaceAll(usage, "|", `\|`)+"` (alias `fork`) |", "in a table, | is escaped")
}

// TestJustWrittenSessionSaysWait: a session file written in the last 5
// seconds (Claude Code just quit, or wrote its last line) was refused
// with "close Claude Code or pass --force" only: the safe answer, to wait
// a few seconds, was not said, and --force is the unsafe one.
func TestJustWrittenSessionSaysWait(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	now := time.Now()
	require.NoError(t, os.Chtimes(p, now, now))
	out, errs, code := cliRun(t, "--config-dir", cfg, "compress", idOf(p), "--keep-turns", "1")
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.Regexp(t, `^ccsurgeon: session file .* was modified .* ago; Claude Code may still be writing it\nccsurgeon: hint: if Claude Code is done with it, try again in 5 seconds; else close Claude Code or pass --force\n$`, errs)
}

// TestReadmeDocumentsTheOtherJSONShapes: `backups`, `restore`, `diff` and
// `move` print JSON with --json, and the README's "--json shapes" named
// none of their keys; a script had to guess them.
func TestReadmeDocumentsTheOtherJSONShapes(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	id := idOf(p)
	_, errs, code := cliRun(t, "--config-dir", cfg, "compress", id, "--keep-turns", "1")
	require.Equal(t, 0, code, errs)
	keysOf := func(out string) []string {
		var v any
		require.NoError(t, json.Unmarshal([]byte(out), &v), out)
		if l, ok := v.([]any); ok {
			require.NotEmpty(t, l)
			v = l[0]
		}
		var keys []string
		for k := range v.(map[string]any) {
			keys = append(keys, k)
		}
		return keys
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"backups", []string{"backups", id}, 0},
		{"diff", []string{"diff", id}, 1},
		{"move", []string{"move", id, "--to", "/tmp/elsewhere", "--dry-run"}, 0},
		{"restore", []string{"restore", id}, 0},
	} {
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json"}, c.args...)...)
		require.Equal(t, c.code, code, "%s: %s", c.name, errs)
		m := regexp.MustCompile("`" + c.name + "` →\\s*`([^`]*)`").FindStringSubmatch(string(readme))
		require.NotNil(t, m, "README: no --json shape of %s", c.name)
		for _, k := range keysOf(out) {
			assert.Regexp(t, `\b`+k+`\b`, m[1], "README: %s --json key %q", c.name, k)
		}
	}
}

// TestRestoreWithoutSessionHints: 'ccsurgeon restore' alone (restore does
// not take the newest session as the other commands do) said what it
// needs and nothing about where to find it. The hint names no SESSION
// placeholder: it runs as printed (issue 27, finding 12).
func TestRestoreWithoutSessionHints(t *testing.T) {
	for _, args := range [][]string{{"restore"}, {"restore", "a", "b", "c"}} {
		out, errs, code := cliRun(t, args...)
		assert.Equal(t, 2, code, errs)
		assert.Empty(t, out)
		assert.Equal(t, "ccsurgeon: restore needs SESSION and optionally BACKUP\n"+
			"ccsurgeon: hint: name the session to put back (its id, an id prefix or its path); 'ccsurgeon ls' lists the sessions\n", errs)
	}
}

// TestTokenCountInShortHand: compress prints "target 150k" and info "the
// 200k-token context window", so "--target-tokens 150k" is what a user
// types: every whole-number flag takes a count as ccsurgeon prints one
// (150k, 1.5M, 150,000; --flag=150k too), read as the number in full.
func TestTokenCountInShortHand(t *testing.T) {
	for typed, full := range map[string]int{"150k": 150000, "150K": 150000, "1.5M": 1500000, "150,000": 150000, "20k": 20000,
		// decimals a float multiplies inexactly (8.2*1e6 is 8199999.999…), as info prints them (%.2fM)
		"8.2M": 8200000, "8.20M": 8200000, "20.001k": 20001, "1.01M": 1010000} {
		for _, args := range [][]string{{"--target-tokens", typed}, {"--target-tokens=" + typed}} {
			out, errs, code := cliRun(t, append(append([]string{"--json", "compress", example}, args...), "--dry-run")...)
			require.Equal(t, 0, code, "%v: %s", args, errs)
			var r app.WriteResult
			require.NoError(t, json.Unmarshal([]byte(out), &r), out)
			assert.Equal(t, full, r.ResumeTokens.Target, "%v", args)
		}
	}
	// a count that is no whole number is still refused
	_, errs, code := cliRun(t, "compress", example, "--target-tokens", "1.5k5", "--dry-run")
	assert.Equal(t, 2, code, errs)
	// what is no number at all keeps the pointer to --help
	_, errs, _ = cliRun(t, "compress", example, "--target-tokens", "lots", "--dry-run")
	assert.Contains(t, errs, "ccsurgeon: hint: see 'ccsurgeon compress-old-turns --help'\n")
}
