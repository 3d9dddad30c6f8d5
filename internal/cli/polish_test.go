package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNeverUnderProjects: -o FILE anywhere under <config-dir>/projects/
// wrote a second file with the session's id (also when nothing changed:
// -o always writes), and two files with one sessionId there confuse the
// client. Every writing command refuses it (exit 2, nothing written), by
// whichever path the folder is reached (a link to projects/, a link to the
// config dir), with a hint to use --new or a path outside projects/; the
// same rule as a share folder (redact -o DIR/).
func TestOutputNeverUnderProjects(t *testing.T) {
	testlink.Need(t)
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	proj := filepath.Dir(path)
	projects := filepath.Join(cfg, "projects")
	links := t.TempDir()
	require.NoError(t, os.Symlink(projects, filepath.Join(links, "p")))
	require.NoError(t, os.Symlink(cfg, filepath.Join(links, "c")))
	backdate(t, cfg)
	h0 := hashTree(t, cfg)
	for _, op := range [][]string{
		{"redact"}, // nothing to redact: -o writes an identical copy
		{"strip-thinking"},
		{"drop-tool-calls", "--tool", "Bash"}, // changes something
		{"compress"},
		{"repair"},
		{"clone"},
		{"fork", "1"},
	} {
		for _, out := range []string{
			filepath.Join(proj, "copy.jsonl"),
			filepath.Join(projects, "copy.jsonl"),
			filepath.Join(projects, "-elsewhere") + "/",
			filepath.Join(links, "p", "-work-p", "copy.jsonl"),
			filepath.Join(links, "c", "projects", "-work-p", "copy.jsonl"),
		} {
			args := append([]string{"--config-dir", cfg, op[0], path}, op[1:]...)
			_, errs, code := cliRun(t, append(args, "-o", out)...)
			assert.Equal(t, 2, code, "%s -o %s: %s", op, out, errs)
			assert.Contains(t, errs, "is under the config dir's projects folder", "%s -o %s", op, out)
			assert.Regexp(t, `(?m)^ccsurgeon: hint: .*outside `, errs, "%s -o %s", op, out)
		}
	}
	assert.Empty(t, changes(h0, hashTree(t, cfg)), "a refused -o wrote under projects/")
	assert.NoDirExists(t, filepath.Join(projects, "-elsewhere"))
}

// TestRedactCheckTakesNoWriteFlag: 'redact --check' wrote nothing and
// exited as a check whatever write flag came with it (-o, --new,
// --no-backup, --keep, --force), while the README says -o always writes.
// --check is a scan, not a preview of a write (--dry-run and --diff
// preview the command as given, with its flags): each write flag is
// refused (exit 2, nothing written), and the hint is the command without
// --check, which runs as printed.
func TestRedactCheckTakesNoWriteFlag(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/secrets.jsonl")
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	backdate(t, cfg)
	out := filepath.Join(t.TempDir(), "share.jsonl")
	for _, c := range []struct {
		flags []string
		name  string
	}{
		{[]string{"-o", out}, "-o"},
		{[]string{"--output", out}, "-o"},
		{[]string{"-o", "-"}, "-o"},
		{[]string{"--new"}, "--new"},
		{[]string{"--no-backup"}, "--no-backup"},
		{[]string{"--keep", "3"}, "--keep"},
		{[]string{"--force"}, "--force"},
		{[]string{"--rule", "x=abc(def)", "-o", out, "--force"}, "-o"},
	} {
		h0 := hashTree(t, cfg)
		args := append([]string{"--config-dir", cfg, "redact", id, "--check"}, c.flags...)
		stdout, errs, code := cliRun(t, args...)
		assert.Equal(t, 2, code, "%v: %s", c.flags, errs)
		assert.Empty(t, stdout, "%v", c.flags)
		assert.Contains(t, errs, "ccsurgeon: --check writes nothing; it cannot take "+c.name+"\n", "%v", c.flags)
		assert.Empty(t, changes(h0, hashTree(t, cfg)), "%v: a refused --check changed the config dir", c.flags)
		assert.NoFileExists(t, out, "%v", c.flags)

		// the hint is the command without --check, runnable as printed
		m := regexp.MustCompile(`(?m)^ccsurgeon: hint: (ccsurgeon .*)$`).FindStringSubmatch(errs)
		require.NotNil(t, m, "%v: %s", c.flags, errs)
		words := shellWords(t, m[1])
		assert.NotContains(t, words, "--check", "%v", c.flags)
		for _, f := range c.flags {
			if f == "--output" {
				f = "-o"
			}
			assert.Contains(t, words, f, "%v: the hint lost a flag: %s", c.flags, m[1])
		}
		if c.name == "-o" && slices.Contains(c.flags, out) {
			_, errs, code = cliRun(t, words[1:]...)
			assert.Equal(t, 0, code, "%v: the hint failed: %s", c.flags, errs)
			assert.FileExists(t, out, "%v: the hint wrote nothing", c.flags)
			os.Remove(out)
		}
	}
	// --dry-run and --diff are previews of the command as given: no refusal
	_, errs, code := cliRun(t, "--config-dir", cfg, "redact", id, "--check", "--dry-run")
	assert.Equal(t, 1, code, "--check --dry-run: %s", errs) // secrets found
	assert.Contains(t, errs, "found; nothing was written")
}

// TestNoSessionQuestionSaysJustNow: the refusal (and question) of a change
// with no SESSION said "modified 0m ago" of a session written seconds
// before: the age is "just now" under 2 s, "N seconds ago" under a
// minute, then minutes, hours, days as before (app.Ago, the one formatter
// of ls --pick and this question).
func TestNoSessionQuestionSaysJustNow(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-3 * time.Second:        "just now", // a clock a little behind the file's
		0:                       "just now",
		1500 * time.Millisecond: "just now",
		2 * time.Second:         "2 seconds ago",
		59 * time.Second:        "59 seconds ago",
		time.Minute:             "1m ago",
		3 * time.Hour:           "3h ago",
		72 * time.Hour:          "3d ago",
	} {
		assert.Equal(t, want, app.Ago(d), "%s", d)
	}
	cfg, _, newest := thisProject(t)
	for _, c := range []struct {
		age  time.Duration
		want string
	}{{0, `just now`}, {20 * time.Second, `(19|2\d) seconds ago`}} {
		at := time.Now().Add(-c.age)
		require.NoError(t, os.Chtimes(newest, at, at))
		_, errs, code := cliRunIn(t, strings.NewReader(""), "--config-dir", cfg, "strip-thinking")
		assert.Equal(t, 2, code, errs)
		assert.Regexp(t, `the newest session of this folder's project \(modified `+c.want+`, "`, errs)
		assert.NotContains(t, errs, "0m ago")
	}
}

// TestReadmeDocumentsEveryWriteJSONKey: a key a changing command prints
// with --json and the README does not name is a key a script has to
// guess (entries_removed, entries_changed, entries_added were printed and
// not documented). Every top-level key of the object of each way to write
// (in place, -o FILE, -o -, -o DIR/, --new, clone, fork, --dry-run,
// nothing to change, repair, redact) is named in the README, as `key`
// (or "key" in a JSON example).
func TestReadmeDocumentsEveryWriteJSONKey(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/secrets.jsonl")
	id := idOf(p)
	backdate(t, cfg)
	out := t.TempDir()
	seen := map[string][]string{}
	for _, args := range [][]string{
		{"strip-thinking", id, "--dry-run"},
		{"drop-tool-calls", id, "--tool", "Nope", "-o", filepath.Join(out, "same.jsonl")},
		{"redact", id, "-o", filepath.Join(out, "r.jsonl")},
		{"redact", id, "-o", filepath.Join(out, "share") + "/"},
		{"compress", id, "--keep-turns", "1", "--new"},
		{"compress", id, "--target-tokens", "30000", "--dry-run"},
		{"clone", id},
		{"fork", id, "1"},
		{"repair", id},
		{"redact", id},
	} {
		stdout, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json"}, args...)...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
		var v any
		require.NoError(t, json.Unmarshal([]byte(stdout), &v), "%v: %s", args, stdout)
		if l, ok := v.([]any); ok {
			require.NotEmpty(t, l)
			v = l[0]
		}
		for k := range v.(map[string]any) {
			seen[k] = append(seen[k], args[0])
		}
	}
	for _, k := range []string{"entries_removed", "entries_changed", "entries_added"} {
		require.Contains(t, seen, k, "the runs above print %s", k)
	}
	for k, cmds := range seen {
		assert.True(t, strings.Contains(string(readme), "`"+k+"`") || strings.Contains(string(readme), `"`+k+`"`), "README does not name --json key %q (printed by %v)", k, cmds)
	}
}
