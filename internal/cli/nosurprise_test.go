package cli

// Issue 27, findings 9–13: no surprises. The session that changes is the
// one the user meant, -o always writes, move --project says why it moved
// nothing, every hint works as printed, --help lists only what a command
// accepts.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v3"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
)

// cliRunIn is cliRun with stdin.
func cliRunIn(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"ccsurgeon"}, args...), stdin, &out, &errb)
	return out.String(), errb.String(), code
}

// thisProject makes a config dir whose project of the current folder
// holds an older session (tools, a day old) and the newest one
// (thinking-tool-loop, an hour old): the one a command with no SESSION
// falls back to.
func thisProject(t *testing.T) (cfg, older, newest string) {
	t.Helper()
	cfg = t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(wd, "-")
	older = installSession(t, cfg, slug, "testdata/sessions/2.1.328/tools.jsonl")
	newest = installSession(t, cfg, slug, "testdata/sessions/2.1.328/thinking-tool-loop.jsonl")
	day := time.Now().Add(-24 * time.Hour)
	require.NoError(t, os.Chtimes(older, day, day))
	return cfg, older, newest
}

// shellWords splits a command line as a POSIX shell does for the quoting
// ccsurgeon's hints use (splitShell, which the hint checker uses too),
// failing t on what a shell would read otherwise.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	words, err := splitShell(line)
	if err != nil {
		t.Fatalf("hint: %v: quote it", err)
	}
	return words
}

// hintOf returns the hint line of an error output ("" if none).
func hintOf(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if h, ok := strings.CutPrefix(l, "ccsurgeon: hint: "); ok {
			return h
		}
	}
	return ""
}

// TestNoSessionChangeOffTerminalRefuses (finding 9): a command that would
// change a session in place, given no SESSION, names the session it would
// take and refuses when no one can answer (stdin not a terminal, /dev/null
// included); the hint is the command to run, with that session's id, and
// runs as printed. What does not change a session keeps the default.
func TestNoSessionChangeOffTerminalRefuses(t *testing.T) {
	cfg, older, newest := thisProject(t)
	before, err := os.ReadFile(newest)
	require.NoError(t, err)
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devnull.Close()
	for name, stdin := range map[string]io.Reader{"a pipe saying y": strings.NewReader("y\n"), "/dev/null": devnull} {
		for _, args := range [][]string{
			{"drop-tool-calls", "--tool", "Bash"},
			{"strip-thinking"},
			{"backups", "--purge"},
		} {
			what := name + ": " + strings.Join(args, " ")
			out, errs, code := cliRunIn(t, stdin, append([]string{"--config-dir", cfg}, args...)...)
			assert.Equal(t, 2, code, "%s\nstdout: %s\nstderr: %s", what, out, errs)
			assert.Regexp(t, `^ccsurgeon: `+args[0]+` with no SESSION would change `+idOf(newest)+`, the newest session of this folder's project \(modified 1h ago, "[^"]+"\): name it\n`, errs, what)
			assert.Equal(t, "ccsurgeon --config-dir "+cfg+" "+args[0]+" "+idOf(newest)+strings.TrimPrefix(strings.Join(args, " "), args[0]), hintOf(errs), what)
			now, err := os.ReadFile(newest)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(before, now), "%s: the session changed", what)
			assert.NoDirExists(t, filepath.Join(cfg, "ccsurgeon", "backups", idOf(newest)), what)
		}
	}

	// the hint, run as printed, changes that session and no other
	_, errs, _ := cliRun(t, "--config-dir", cfg, "drop-tool-calls", "--tool", "Bash")
	words := shellWords(t, hintOf(errs))
	require.NotEmpty(t, words, "no hint: %s", errs)
	require.Equal(t, "ccsurgeon", words[0])
	olderBefore, _ := os.ReadFile(older)
	out, errs, code := cliRun(t, words[1:]...)
	require.Equal(t, 0, code, "%s%s", out, errs)
	now, _ := os.ReadFile(newest)
	assert.False(t, bytes.Equal(before, now), "the hint did not change the session it named")
	olderNow, _ := os.ReadFile(older)
	assert.True(t, bytes.Equal(olderBefore, olderNow), "another session changed")

	// what changes no session keeps today's default, and says which it took
	for _, args := range [][]string{
		{"info"}, {"turns"}, {"validate"}, {"backups"}, {"redact", "--check"},
		{"strip-thinking", "--dry-run"}, {"strip-thinking", "-o", filepath.Join(t.TempDir(), "out.jsonl")},
		{"clone", "--dry-run"},
	} {
		_, errs, code := cliRun(t, append([]string{"--config-dir", cfg}, args...)...)
		assert.Equal(t, 0, code, "%s: %s", args, errs)
		assert.Contains(t, errs, "ccsurgeon: using "+idOf(newest)+", the newest session of this folder's project", args)
	}
}

// TestChangeInPlaceKeepsTimes (finding 9): a change in place, and a
// restore, leave the file's modification time as it was: the order of
// Claude Code's picker, 'claude --continue' and ccsurgeon's own default
// stay where they were. (The access time is kept too, TestApplyKeepsTimes,
// but any read after the change may set it again: the kernel's relatime
// updates it once the inode's change time is newer.)
func TestChangeInPlaceKeepsTimes(t *testing.T) {
	cfg, older, newest := thisProject(t)
	stamp := func() time.Time {
		fi, err := os.Stat(older)
		require.NoError(t, err)
		return fi.ModTime()
	}
	m0 := stamp()
	for _, args := range [][]string{
		{"drop-tool-calls", older, "--tool", "Bash"},
		{"compress", older, "--keep-turns", "0", "--max-result", "100B", "--no-backup"},
		{"redact", older},
		{"restore", older},
	} {
		before, _ := os.ReadFile(older)
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg}, args...)...)
		require.Equal(t, 0, code, "%s\n%s%s", args, out, errs)
		m := stamp()
		assert.True(t, m.Equal(m0), "%s: mtime moved from %s to %s", args[0], m0, m)
		if args[0] != "redact" { // a session without secrets: nothing to write
			now, _ := os.ReadFile(older)
			assert.False(t, bytes.Equal(before, now), "%s changed nothing: the test proves nothing", args[0])
		}
	}
	_, errs, code := cliRun(t, "--config-dir", cfg, "info")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "using "+idOf(newest))
}

// TestOwnWriteToldFromClients (finding 9): with the time kept, the
// live-session guard still tells ccsurgeon's own write from a client's.
// A session written 2 seconds ago is refused as maybe live; after a
// forced change, the next change goes through (the file is as ccsurgeon
// left it), and a line appended then (as a client does) is refused again.
func TestOwnWriteToldFromClients(t *testing.T) {
	cfg, _, newest := thisProject(t)
	recent := time.Now().Add(-2 * time.Second)
	require.NoError(t, os.Chtimes(newest, recent, recent))
	_, errs, code := cliRun(t, "--config-dir", cfg, "strip-thinking", newest)
	require.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "Claude Code may still be writing it")

	_, errs, code = cliRun(t, "--config-dir", cfg, "strip-thinking", newest, "--force")
	require.Equal(t, 0, code, errs)
	fi, err := os.Stat(newest)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(recent), "mtime %s, want %s", fi.ModTime(), recent)

	_, errs, code = cliRun(t, "--config-dir", cfg, "drop-tool-calls", newest, "--tool", "Bash")
	require.Equal(t, 0, code, "ccsurgeon's own write taken for a client's: %s", errs)

	f, err := os.OpenFile(newest, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"last-prompt","lastPrompt":"x","sessionId":"` + idOf(newest) + `"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, errs, code = cliRun(t, "--config-dir", cfg, "compress", newest, "--keep-turns", "1")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "Claude Code may still be writing it")
}

// TestOutputAlwaysWrites (finding 10): -o writes its output whatever the
// operation found: an identical copy when nothing changes (exit 0, and it
// says so), the bytes themselves on stdout with -o -. 'ccsurgeon redact X
// -o share.jsonl && upload share.jsonl' failed on a session without a
// secret: nothing was written.
func TestOutputAlwaysWrites(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, op := range [][]string{
		{"redact"},
		{"drop-tool-calls", "--tool", "Nope"},
		{"strip-thinking"}, // tools.jsonl has no thinking
		{"repair"},
	} {
		share := filepath.Join(dir, op[0]+".jsonl")
		args := append([]string{"--config-dir", cfg, op[0], path}, op[1:]...)
		out, errs, code := cliRun(t, append(args, "-o", share)...)
		require.Equal(t, 0, code, "%s: %s", op, errs)
		assert.Contains(t, out, "no change; wrote an identical copy to "+share, op)
		got, err := os.ReadFile(share)
		require.NoError(t, err, "%s -o wrote nothing", op)
		assert.True(t, bytes.Equal(orig, got), "%s -o: the copy differs from the session", op)

		// a file there already: replaced only with --force, as any -o
		_, errs, code = cliRun(t, append(args, "-o", share)...)
		assert.Equal(t, 1, code, "%s: an existing file was replaced without --force: %s", op, errs)
		_, errs, code = cliRun(t, append(args, "-o", share, "--force")...)
		assert.Equal(t, 0, code, "%s --force: %s", op, errs)

		out, errs, code = cliRun(t, append(args, "-o", "-")...)
		require.Equal(t, 0, code, "%s: %s", op, errs)
		assert.True(t, bytes.Equal(orig, []byte(out)), "%s -o -: %d bytes on stdout, want the session's %d", op, len(out), len(orig))
		assert.Contains(t, errs, "no change; wrote an identical copy to stdout", op)

		js := filepath.Join(dir, op[0]+"-json.jsonl")
		out, errs, code = cliRun(t, append([]string{"--json"}, append(args, "-o", js)...)...)
		require.Equal(t, 0, code, "%s: %s", op, errs)
		assert.Regexp(t, `"nothing_to_change": true`, out, op)
		assert.Contains(t, out, `"path": "`+js+`"`, op)
		assert.FileExists(t, js)
	}
	now, _ := os.ReadFile(path)
	assert.True(t, bytes.Equal(orig, now), "the session changed")
	assert.NoDirExists(t, filepath.Join(cfg, "ccsurgeon", "backups"))
}

// TestMoveProjectMatchingNothing (finding 11): 'move --project OLD' whose
// folder holds sessions that record another cwd (copied from another
// machine) moved nothing and exited 0 without a word. It exits 1, says
// what the folder holds and which cwd its sessions record, changes
// nothing, and its hint, run as printed, moves them.
func TestMoveProjectMatchingNothing(t *testing.T) {
	cfg := t.TempDir()
	here := filepath.Join(t.TempDir(), "proj")
	to := filepath.Join(filepath.Dir(here), "newproj")
	require.NoError(t, os.MkdirAll(here, 0o755))
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(here, "-")
	path := installSession(t, cfg, slug, example) // records /tmp/ccsurgeon-gen/2.1.328/tools/work/project
	const recorded = "/tmp/ccsurgeon-gen/2.1.328/tools/work/project"
	backdate(t, cfg)
	h0 := hashTree(t, cfg)
	out, errs, code := cliRun(t, "--config-dir", cfg, "move", "--project", here, "--to", to)
	assert.Equal(t, 1, code, "%s%s", out, errs)
	assert.Regexp(t, `^ccsurgeon: no session of `+regexp.QuoteMeta(here)+` to move: its folder `+regexp.QuoteMeta(filepath.Dir(path))+` holds 1 session, whose entries record another working directory: `+regexp.QuoteMeta(recorded)+` \(copied from another machine\?\)\n`, errs)
	hint := hintOf(errs)
	assert.Equal(t, "ccsurgeon --config-dir "+cfg+" move --project "+recorded+" --to "+to, hint)
	assert.Empty(t, changes(h0, hashTree(t, cfg)), "a move that moved nothing changed files")

	// a --project that names no folder and no session: exit 1 as before
	_, errs, code = cliRun(t, "--config-dir", cfg, "move", "--project", "/no/such/place", "--to", to)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "no sessions of /no/such/place")

	words := shellWords(t, hint)
	require.NotEmpty(t, words)
	out, errs, code = cliRun(t, words[1:]...)
	require.Equal(t, 0, code, "the hint: %s%s", out, errs)
	moved := filepath.Join(cfg, "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(to, "-"), idOf(path)+".jsonl")
	b, err := os.ReadFile(moved)
	require.NoError(t, err, "the hint did not move the session")
	assert.Contains(t, string(b), `"cwd":"`+to+`"`)
}

// TestRestoreHintOfADeletedSessionWorks (finding 12): restore of a deleted
// session whose id has backups in two project folders hints the restore
// of one by its path; run as printed, that restores it, also when its
// whole project folder is gone.
func TestRestoreHintOfADeletedSessionWorks(t *testing.T) {
	cfg, a, b := twoCopies(t)
	orig, _ := os.ReadFile(a)
	for _, p := range []string{a, b} {
		_, errs, code := cliRun(t, "--config-dir", cfg, "strip-thinking", p)
		require.Equal(t, 0, code, errs)
	}
	require.NoError(t, os.RemoveAll(filepath.Dir(a)))
	require.NoError(t, os.Remove(b))
	_, errs, code := cliRun(t, "--config-dir", cfg, "restore", idOf(a))
	require.Equal(t, 2, code, errs)
	m := regexp.MustCompile(`'(ccsurgeon --config-dir \S+ restore [^']*)'`).FindStringSubmatch(hintOf(errs))
	require.NotNil(t, m, "no restore command (naming the config dir) in the hint: %s", errs)
	words := shellWords(t, m[1])
	out, errs, code := cliRun(t, words[1:]...)
	require.Equal(t, 0, code, "the hint %q: %s%s", m[1], out, errs)
	assert.NotContains(t, errs, "lstat")
	restored := words[len(words)-1]
	got, err := os.ReadFile(restored)
	require.NoError(t, err)
	assert.Equal(t, len(orig), len(got), "%s is back as it was before the change", restored)
}

// flagValue is a value each flag of the tree takes, for a run of the
// command with that flag alone.
func flagValue(t *testing.T, cfg, name string) []string {
	switch name {
	case "output", "o":
		return []string{filepath.Join(t.TempDir(), "out.jsonl")}
	case "project":
		return []string{"-work-p"}
	case "leaf":
		return []string{"aaaaaaaa-0000-4000-8000-000000000001"}
	case "larger-than", "max-result", "min-size":
		return []string{"1KB"}
	case "since":
		return []string{"1w"}
	case "sort":
		return []string{"size"}
	case "to":
		return []string{filepath.Join(t.TempDir(), "elsewhere")}
	case "rule":
		return []string{"x=zzzz[0-9]{40}"}
	case "allow":
		return []string{"nothing"}
	case "tool", "drop-tool-calls":
		return []string{"Bash"}
	case "turns":
		return []string{"1"}
	case "config-dir":
		return []string{cfg}
	case "target-tokens":
		return []string{"1000000"}
	case "compress-old-turns":
		return []string{"2"}
	}
	return []string{"1"}
}

// TestHelpListsOnlyAcceptedFlags (finding 13): every flag a command's
// --help lists is one it accepts: given alone (with the arguments the
// command needs), it is never refused as not being for this command.
// clone --help and fork --help listed --keep and --no-backup, which both
// refused ("--keep is for a change in place, not a new session").
func TestHelpListsOnlyAcceptedFlags(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	refusal := regexp.MustCompile(`is for a change in place|not accepted|cannot be used|takes no backup`)
	var walk func(prefix []string, cmds []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			walk(append(prefix, c.Name), c.Commands)
			if len(c.Commands) > 0 {
				continue
			}
			listed, _, code := cliRun(t, append(append([]string{}, prefix...), c.Name, "--help")...)
			require.Equal(t, 0, code)
			for _, f := range c.VisibleFlags() {
				name := f.Names()[0]
				if name == "help" || !strings.Contains(listed, "--"+name) {
					continue
				}
				args := append([]string{"--config-dir", cfg}, prefix...)
				args = append(args, c.Name)
				switch c.Name {
				case "ls", "completion", "bash", "zsh", "fish", "pwsh":
				case "fork-at-turn":
					args = append(args, path, "1")
				case "move":
					if name != "project" {
						args = append(args, path)
					}
					if name != "to" {
						args = append(args, "--to", filepath.Join(t.TempDir(), "new"))
					}
				default:
					if name != "all" && name != "project" && name != "pick" {
						args = append(args, path)
					}
				}
				args = append(args, "--"+name)
				if df, ok := f.(cli.DocGenerationFlag); ok && df.TakesValue() {
					args = append(args, flagValue(t, cfg, name)...)
				}
				if c.Name == "rewrite" && name != "compress-old-turns" && name != "target-tokens" {
					args = append(args, "--strip-thinking")
				}
				if hasFlag(c, "dry-run") && !slices.Contains([]string{"output", "new", "dry-run", "diff", "force", "keep", "no-backup"}, name) {
					args = append(args, "--dry-run") // a preview parses the same flags, and writes nothing (fast)
				}
				out, errs, _ := cliRunIn(t, strings.NewReader("1\n"), args...)
				assert.NotRegexp(t, refusal, errs, "%s --help lists --%s, which it refuses\n%s%s", c.FullName(), name, out, errs)
				assert.NotContains(t, errs, "unknown flag", "%s --%s", c.FullName(), name)
			}
		}
	}
	root := newCommand(&app.Env{})
	walk(nil, root.Commands)
}

// continuedWithRewind derives from a session the client made
// (multi-turn: three prompts) the two shapes 'turns --all' got wrong:
// the first entry a continued session carries over from the session
// before (its parentUuid names an entry of that file), a leaf of its own
// with no turn on it; and the last turn asked again with the same answer
// (as after a /rewind), a branch identical to the active one. It returns
// the path and the uuids of the carried-over entry and of the repeated
// prompt.
func continuedWithRewind(t *testing.T) (path, carried, again string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(mustRead(t, "testdata/sessions/2.1.328/multi-turn.jsonl")), "\n"), "\n")
	fresh := map[string]string{}
	for _, u := range []string{"973b5c60", "7f4902b8", "5cef7761"} {
		fresh[u] = fmt.Sprintf("%s-0000-4000-8000-00000000a%03d", u, len(fresh))
	}
	full := func(l string) map[string]string { // short uuid -> full, in line l
		m := map[string]string{}
		for _, u := range regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).FindAllString(l, -1) {
			m[u[:8]] = u
		}
		return m
	}
	var out []string
	carried = "cafecafe-0000-4000-8000-000000000001"
	for i, l := range lines {
		if i == 2 { // the carried-over entry: the answer the session before ended with
			c := strings.Replace(lines[36], full(lines[36])["5cef7761"], carried, 1)
			c = strings.Replace(c, full(lines[36])["7f4902b8"], "beefbeef-0000-4000-8000-000000000002", 1)
			out = append(out, c)
		}
		out = append(out, l)
		if i == 36 { // the last turn again, on a branch of its own
			for _, k := range []int{33, 35, 36} {
				c := lines[k]
				for short, u := range full(c) {
					if f, ok := fresh[short]; ok {
						c = strings.ReplaceAll(c, u, f)
					}
				}
				out = append(out, c)
			}
		}
	}
	path = filepath.Join(t.TempDir(), "continued.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o600))
	return path, carried, fresh["973b5c60"]
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// TestTurnsAllShowsRealBranches (finding 13): 'turns --all' lists only
// branches with turns, says which are identical to another (the same
// messages) and where each leaves the active branch: after which turn, at
// which entry. A branch with no turn (the carried-over first entry of a
// continued session) was listed as a branch of nothing, and two identical
// branches said nothing of it.
func TestTurnsAllShowsRealBranches(t *testing.T) {
	path, carried, again := continuedWithRewind(t)
	out, errs, code := cliRun(t, "turns", "--all", path)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, carried, "a branch with no turn is listed")
	assert.Regexp(t, `(?m)^branch 2 \(leaf 5cef7761-[0-9a-f-]+, active: the client resumes this one\)$`, out)
	assert.Regexp(t, `(?m)^branch 3 \(leaf 5cef7761-0000-4000-8000-00000000a002; identical to branch 2 \(the same messages\); leaves the active branch after turn 2, at entry `+again+`\)$`, out)
	assert.Regexp(t, `(?m)^not shown: branch 1, with no turn on it \(such as the entry a continued session carries over from the session before\)$`, out)

	// a branch that differs: rewind.jsonl, the client's own /rewind
	out, errs, code = cliRun(t, "turns", "--all", "testdata/sessions/2.1.328/rewind.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^branch 1 \(leaf 913d33d3-[0-9a-f-]+; leaves the active branch after turn 1, at entry [0-9a-f-]{36}\)$`, out)
	assert.NotContains(t, out, "identical")
	// an answer cut short: the branches part within turn 2
	out, errs, code = cliRun(t, "turns", "--all", "testdata/sessions/2.0.50/shapes/interrupted.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^branch 1 \(leaf [0-9a-f-]+; leaves the active branch in turn 2, at entry [0-9a-f-]{36}\)$`, out)

	// --json: the same, on every turn of the branch
	out, errs, code = cliRun(t, "--json", "turns", "--all", path)
	require.Equal(t, 0, code, errs)
	var turns []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &turns), out)
	var seen3 bool
	for _, tj := range turns {
		assert.NotEqual(t, float64(1), tj["branch"], "a branch with no turn in --json")
		if tj["branch"] == float64(3) {
			seen3 = true
			assert.Equal(t, float64(2), tj["identical_to"])
			assert.Equal(t, float64(2), tj["shared_turns"])
			assert.Equal(t, again, tj["diverges_at"])
		}
		if tj["active"] == true {
			assert.Nil(t, tj["shared_turns"])
			assert.Nil(t, tj["diverges_at"])
		}
	}
	assert.True(t, seen3, out)
}
