package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a new user met in the first hour with the three most-asked tasks
// (where did my session go, my session no longer fits, share it without
// my keys), each pinned from the command line.

// TestTokenCountInScientificNotation: "--target-tokens 1.5e5" (a whole
// number written as a spreadsheet or a script prints it) was refused with
// "want a whole number, 1 or more", which it is; and a number written in
// a form the flag does not read ("150 000", "150000.0") got only "see
// --help" as its hint, while the forms it reads are three words.
func TestTokenCountInScientificNotation(t *testing.T) {
	for typed, full := range map[string]int{"1.5e5": 150000, "1.5E5": 150000, "2e5": 200000, "1e6": 1000000, "1.25e+5": 125000} {
		out, errs, code := cliRun(t, "--json", "compress", example, "--target-tokens", typed, "--dry-run")
		require.Equal(t, 0, code, "%s: %s", typed, errs)
		var r app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		assert.Equal(t, full, r.ResumeTokens.Target, typed)
	}
	// what is no whole number stays refused, and the hint says how to write one
	for _, typed := range []string{"1.5e-1", "1.23456e2", "150 000", "150000.0", "150.000", "1,50,000", "1.5k5"} {
		out, errs, code := cliRun(t, "compress", example, "--target-tokens", typed, "--dry-run")
		assert.Equal(t, 2, code, "%s: %s", typed, errs)
		assert.Empty(t, out, typed)
		assert.Equal(t, "ccsurgeon: --target-tokens \""+typed+"\": want a whole number, 1 or more\n"+
			"ccsurgeon: hint: write it as 150000, 150k, 1.5M, 150,000 or 1.5e5\n", errs, typed)
	}
	// what is no number at all keeps the pointer to --help
	_, errs, _ := cliRun(t, "compress", example, "--target-tokens", "lots", "--dry-run")
	assert.Contains(t, errs, "ccsurgeon: hint: see 'ccsurgeon compress-old-turns --help'\n")
}

// TestRedactToFileListsWhatItDidNotWrite: "redact S -o share.jsonl" on a
// session whose subagent transcript and tool-results file hold secrets
// said "secrets redacted: 2" and then "secrets: 4" over a list that gave
// each of the four a placeholder, and --json listed four redactions with
// nothing to tell the two FILE holds from the two still in the session's
// files: a report that claims redactions -o did not write. The total says
// how many FILE holds and how many it does not, and in --json each secret
// of a file -o did not write is marked not_written.
func TestRedactToFileListsWhatItDidNotWrite(t *testing.T) {
	t.Parallel()
	e := newShareEnv(t, true, true, true)
	out := filepath.Join(t.TempDir(), "share.jsonl")
	r := e.cli(t, "redact-secrets", e.id, "-o", out)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "secrets redacted: 2 (github-pat 2)\n")
	assert.Contains(t, r.stdout, "\nsecrets: 4 found: 2 in "+out+", redacted; 2 in files -o does not write, left as they are\n")
	assert.NotContains(t, r.stdout, "\nsecrets: 4\n")

	r = e.cli(t, "--json", "redact-secrets", e.id, "-o", out, "--force")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var res struct {
		Redactions []struct {
			File       string `json:"file"`
			NotWritten bool   `json:"not_written"`
		} `json:"redactions"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.Len(t, res.Redactions, 4)
	for _, rd := range res.Redactions {
		assert.Equal(t, rd.File != e.main, rd.NotWritten, "%s", rd.File)
	}

	// in place, and to a share folder, every file is written: none is marked
	dir := filepath.Join(t.TempDir(), "share") + "/"
	r = e.cli(t, "--json", "redact-secrets", e.id, "-o", dir)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NotContains(t, r.stdout, "not_written")
	r = e.cli(t, "redact-secrets", e.id, "--dry-run")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "\nsecrets: 4\n")
}

// TestSessionFolderHintNamesItsSession: after "redact S -o share/", the
// check a user runs next, "redact share/ --check", was refused with "give
// a session id or the path of a .jsonl file", while the folder holds one
// session: the hint is the same command line with that session's path
// in it, and it runs as printed.
func TestSessionFolderHintNamesItsSession(t *testing.T) {
	t.Parallel()
	e := newShareEnv(t, true, true, false)
	dir := filepath.Join(t.TempDir(), "share")
	r := e.cli(t, "redact-secrets", e.id, "-o", dir+"/")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	file := filepath.Join(dir, e.id+".jsonl")
	for _, arg := range []string{dir + "/", dir} {
		for _, c := range []struct {
			args []string
			code int
		}{
			{[]string{"redact", arg, "--check"}, 0},
			{[]string{"info", arg}, 0},
			{[]string{"validate", arg}, 0},
			{[]string{"fork", arg, "1", "-o", filepath.Join(t.TempDir(), "f.jsonl")}, 0},
		} {
			r := e.cli(t, c.args...)
			assert.NotEqual(t, 0, r.code, "%v", c.args)
			assert.Empty(t, r.stdout, "%v", c.args)
			want := append([]string{"ccsurgeon", "--config-dir", e.cfg}, c.args...)
			for i, a := range want {
				if a == arg {
					want[i] = file
				}
			}
			assert.Equal(t, "ccsurgeon: "+arg+" is a directory, not a session file\n"+
				"ccsurgeon: hint: the session in it: '"+strings.Join(want, " ")+"'\n", r.stderr, "%v", c.args)
			// as printed
			r = e.cli(t, want[3:]...)
			assert.Equal(t, c.code, r.code, "%v: %s", want, r.stderr)
		}
	}
	// a folder of several sessions names them; one of none keeps the general hint
	other := installSession(t, e.cfg, "-tmp-other", filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	b, err := os.ReadFile(other)
	require.NoError(t, err)
	second := filepath.Join(dir, filepath.Base(other))
	require.NoError(t, os.WriteFile(second, b, 0o600))
	r = e.cli(t, "info", dir)
	assert.Equal(t, 1, r.code)
	first, last := file, second
	if last < first {
		first, last = last, first
	}
	assert.Equal(t, "ccsurgeon: "+dir+" is a directory, not a session file\n"+
		"ccsurgeon: hint: it holds 2 sessions, "+filepath.Base(first)+" and "+filepath.Base(last)+": name one, such as 'ccsurgeon --config-dir "+e.cfg+" info "+first+"'\n", r.stderr)
	r = e.cli(t, "info", t.TempDir())
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "ccsurgeon: hint: give a session id or the path of a .jsonl file\n")
}

// TestNoSessionHintWithConfigDirEquals: with the config dir given as
// "--config-dir=DIR" (one word, as completion and scripts write it), the
// hint of a change that names no SESSION was "ccsurgeon --config-dir DIR
// --config-dir=DIR compress ID": run as printed, it was refused as
// "--config-dir given twice". Each form gives the hint once.
func TestNoSessionHintWithConfigDirEquals(t *testing.T) {
	cfg, _, newest := thisProject(t)
	for _, first := range [][]string{{"--config-dir=" + cfg}, {"--config-dir", cfg}} {
		args := append(append([]string{}, first...), "strip-thinking")
		_, errs, code := cliRunIn(t, strings.NewReader(""), args...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
		assert.Equal(t, "ccsurgeon --config-dir "+cfg+" strip-thinking "+idOf(newest), hintOf(errs), "%v", args)
		words := shellWords(t, hintOf(errs))
		out, errs, code := cliRun(t, append(words[1:], "--dry-run")...)
		assert.Equal(t, 0, code, "%v: %s%s", words, out, errs)
	}
}

// TestProjectByItsFolderPath: "--project" took the project's path or its
// folder's name under projects/, but not that folder's path, which is
// what a user copies from 'ls ~/.claude/projects' or from a session's
// path: "ls --project ~/.claude/projects/-work-p" said "no sessions of
// project". The folder's path is its name.
func TestProjectByItsFolderPath(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	a := installSession(t, cfg, "-work-p", example)
	installSession(t, cfg, "-work-q", "testdata/sessions/2.1.328/multi-turn.jsonl")
	byName, errs, code := cliRun(t, "--config-dir", cfg, "--json", "ls", "--project", "-work-p")
	require.Equal(t, 0, code, errs)
	require.Contains(t, byName, idOf(a))
	folder := filepath.Join(cfg, "projects", "-work-p")
	for _, p := range []string{folder, folder + "/"} {
		out, errs, code := cliRun(t, "--config-dir", cfg, "--json", "ls", "--project", p)
		assert.Equal(t, 0, code, "%s: %s", p, errs)
		assert.Equal(t, byName, out, p)
		out, errs, code = cliRun(t, "--config-dir", cfg, "validate", "--project", p)
		assert.Equal(t, 0, code, "%s: %s", p, errs)
		assert.Contains(t, out+errs, idOf(a), p)
	}
	// a folder of another config dir is no project of this one
	_, errs, code = cliRun(t, "--config-dir", cfg, "ls", "--project", filepath.Join(t.TempDir(), "projects", "-work-p"))
	assert.Equal(t, 1, code, errs)
}

// TestDoctorKeepsACopyUnderItsOwnID: for a session the client's cleanup
// is about to delete, doctor's fix "keep a copy outside the config dir"
// was 'clone ID -o ~/ID.jsonl': a clone, with a new session id and new
// uuids, in a file named after the old id (put back, a file whose name
// and entries name two sessions), and run a second time it was refused
// as "another Claude Code session's transcript". The copy is the
// session's own bytes, under its own id.
func TestDoctorKeepsACopyUnderItsOwnID(t *testing.T) {
	cfg, proj, put := projectSession(t)
	p := put(chain.ProjectSlug(proj))
	old := time.Now().Add(-40 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	fs := doctorJSON(t, cfg)
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, "due_for_deletion", fs[0]["kind"])
	cmd := fs[0]["command"].(string)
	args := shellWords(t, cmd)
	_, errs, code := cliRun(t, args[1:]...)
	require.Equal(t, 0, code, "%s: %s", cmd, errs)
	o := args[len(args)-1]
	t.Cleanup(func() { os.Remove(o) })
	want, err := os.ReadFile(p)
	require.NoError(t, err)
	got, err := os.ReadFile(o)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "%s: the copy is not the session's bytes", cmd)
	assert.Equal(t, filepath.Base(p), filepath.Base(o))
	// a second run says the copy is there, and --force, as its hint says, replaces it
	_, errs, code = cliRun(t, args[1:]...)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "ccsurgeon: hint: pass --force to replace it")
	_, errs, code = cliRun(t, append(args[1:], "--force")...)
	assert.Equal(t, 0, code, errs)
}

// TestInfoSaysWhyRecordedUsageIsNotUsed: info printed "recorded 649
// tokens at the last response" and, a few lines below, "system prompt
// and tools (typical; the session records no usage to measure it)": two
// lines of one output that disagree. A session whose recorded usage is
// too small to be an API's count (a proxy's, a mock's, zeros) says so;
// one that records none says that.
func TestInfoSaysWhyRecordedUsageIsNotUsed(t *testing.T) {
	t.Parallel()
	out, errs, code := cliRun(t, "info", example)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "\nrecorded ")
	assert.NotContains(t, out, "records no usage")
	assert.Contains(t, out, "system prompt and tools (typical; the usage the session records is too small to be an API's count)")

	b, err := os.ReadFile(example)
	require.NoError(t, err)
	none := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(none, regexp.MustCompile(`"usage":\{[^{}]*(\{[^{}]*\}[^{}]*)*\}`).ReplaceAll(b, []byte(`"x":0`)), 0o600))
	out, errs, code = cliRun(t, "info", none)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "\nrecorded ")
	assert.Contains(t, out, "system prompt and tools (typical; the session records no usage to measure it)")
}

// TestRedactCheckHintSharesTheWholeSession: with a secret only in a
// subagent transcript, the hint of a failed --check was "write a
// redacted copy with 'ccsurgeon redact ID -o redacted.jsonl'", which
// writes the main transcript only and leaves that secret where it is,
// unshared (and with secrets in tool-results files it named those only,
// and --new, not a share). When a file beside the main transcript holds
// a secret, the hint is the share folder, which holds every file
// redacted, and redacting in place; run as printed, the share checks
// clean.
func TestRedactCheckHintSharesTheWholeSession(t *testing.T) {
	for _, c := range []struct {
		name                    string
		inMain, inAgent, inTool bool
	}{
		{"in the subagent transcript", false, true, false},
		{"in a tool-results file", false, false, true},
		{"in every file", true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newShareEnv(t, c.inMain, c.inAgent, c.inTool)
			t.Chdir(t.TempDir())
			r := e.cli(t, "redact", e.id, "--check")
			require.Equal(t, 1, r.code, r.stderr)
			self := "ccsurgeon --config-dir " + e.cfg
			share := e.id[:8] + "-share/"
			assert.Equal(t, "copy it redacted with its subagent and tool-results files with '"+self+" redact "+e.id+" -o "+share+"', or redact it in place with '"+self+" redact "+e.id+"'",
				hintOf(r.stderr))
			words := shellWords(t, strings.Split(hintOf(r.stderr), "'")[1])
			r = runCLI(t, words[1:]...)
			require.Equal(t, 0, r.code, r.stderr)
			r = runCLI(t, "redact", filepath.Join(share, e.id+".jsonl"), "--check")
			assert.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Empty(t, filesHolding(t, share, shareSecretMain, shareSecretAgent, shareSecretTool))
		})
	}
}

// TestFlagWithoutValueAsTyped: "compress S -o" (the path forgotten) said
// "--o needs PATH": a flag the user did not type. The flag is named as
// typed, one dash or two.
func TestFlagWithoutValueAsTyped(t *testing.T) {
	t.Parallel()
	for typed, name := range map[string]string{"-o": "-o", "--output": "--output", "--target-tokens": "--target-tokens", "-keep-turns": "-keep-turns"} {
		_, errs, code := cliRun(t, "compress", example, typed)
		assert.Equal(t, 2, code, errs)
		assert.Regexp(t, `^ccsurgeon: `+regexp.QuoteMeta(name)+` needs `, errs, typed)
	}
}

// TestUnknownFlagPartOfOne: "--tokens 150k" got "see --help" as its hint
// where one flag of the command holds that word: --target-tokens.
func TestUnknownFlagPartOfOne(t *testing.T) {
	t.Parallel()
	_, errs, code := cliRun(t, "compress", example, "--tokens", "150k", "--dry-run")
	assert.Equal(t, 2, code, errs)
	assert.Equal(t, "ccsurgeon: unknown flag --tokens\nccsurgeon: hint: did you mean --target-tokens?\n", errs)
}

// TestRedactCheckSaysWhatItFound: a clean "redact share.jsonl --check"
// printed "dry run: redact-secrets on share.jsonl: nothing to change;
// nothing was written", a preview's words for a scan whose answer is
// that no secret was found; and one that found secrets started "dry
// run:" too. The check says it is one, and what it found.
func TestRedactCheckSaysWhatItFound(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(example)
	require.NoError(t, err)
	out, errs, code := cliRun(t, "redact", abs, "--check")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "redact-secrets --check: no secrets found in "+abs+"; nothing was written\n", out)

	secrets, err := filepath.Abs("testdata/sessions/2.1.328/secrets.jsonl")
	require.NoError(t, err)
	out, errs, code = cliRun(t, "redact", secrets, "--check")
	require.Equal(t, 1, code, errs)
	assert.True(t, strings.HasPrefix(out, "redact-secrets --check on "+secrets+": nothing was written\n"), out)
	assert.NotContains(t, out, "dry run")
	// a preview is still one
	out, errs, code = cliRun(t, "redact", secrets, "--dry-run")
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "dry run: redact-secrets on "), out)
}

// TestPickByNumberRefusalHasAHint: "echo 9 | ccsurgeon info --pick" with
// two sessions listed said "no session picked: want a number from 1 to
// 2, got "9"" and nothing more: an error without a hint.
func TestPickByNumberRefusalHasAHint(t *testing.T) {
	cfg, _, _ := thisProject(t)
	for _, in := range []string{"9\n", "\n", "abc\n", ""} {
		_, errs, code := cliRunIn(t, strings.NewReader(in), "--config-dir", cfg, "info", "--pick")
		assert.Equal(t, 2, code, "%q: %s", in, errs)
		assert.Regexp(t, `ccsurgeon: no session picked: want a number from 1 to 2, got "[^"]*"\nccsurgeon: hint: answer with the number of a session of the list, or name the session by its ID instead of --pick\n$`, errs, "%q", in)
	}
}

// TestMoveWithoutSessionHasAHint: "move --to DIR" with no SESSION (move
// takes none by default) said "move needs a SESSION (an id, an id prefix
// or a .jsonl path)" and nothing more; two sessions got no hint either.
func TestMoveWithoutSessionHasAHint(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	dir := t.TempDir()
	_, errs, code := cliRun(t, "--config-dir", cfg, "move", "--to", dir)
	assert.Equal(t, 2, code, errs)
	assert.Equal(t, "ccsurgeon: move needs a SESSION (an id, an id prefix or a .jsonl path)\n"+
		"ccsurgeon: hint: name the session to move ('ccsurgeon --config-dir "+cfg+" ls' lists them), or move every session of a project with --project OLD\n", errs)
	_, errs, code = cliRun(t, "--config-dir", cfg, "move", idOf(p), idOf(p), "--to", dir)
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "ccsurgeon: hint: move one session at a time, or every session of a project with --project OLD\n")
}

// TestMoveToThePlaceholderIsRefused: ls ends with "ccsurgeon move
// --project OLD --to NEW-PATH" for a project whose folder is gone, and
// doctor prints the same when it has no guess; pasted as printed, it
// moved every session of OLD into the project "./NEW-PATH" of the
// current folder, one no client runs in. The placeholder is refused,
// nothing moved, and the hint is the current folder (often the project's
// new place, where a user who renamed it runs ccsurgeon).
func TestMoveToThePlaceholderIsRefused(t *testing.T) {
	cfg := t.TempDir()
	p := installSession(t, cfg, "-work-p", example)
	backdate(t, cfg)
	before, err := os.ReadFile(p)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	wd, err := os.Getwd()
	require.NoError(t, err)
	for _, args := range [][]string{
		{"move", "--project", "/tmp/ccsurgeon-gen/2.1.328/tools/work/project", "--to", "NEW-PATH"},
		{"move", "--project", "/tmp/ccsurgeon-gen/2.1.328/tools/work/project", "--to", "NEW-PATH", "--dry-run"},
		{"move", idOf(p), "--to", "NEW-PATH"},
	} {
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
		assert.Empty(t, out)
		assert.Equal(t, "ccsurgeon: --to NEW-PATH is the placeholder 'ccsurgeon ls' and doctor print: give the folder the project is in now\n"+
			"ccsurgeon: hint: such as this one: --to "+wd+"\n", errs, "%v", args)
	}
	now, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, before, now)
	assert.NoDirExists(t, filepath.Join(cfg, "projects", chain.ProjectSlug(filepath.Join(wd, "NEW-PATH"))))
}

// TestTokenCountEchoedAsTyped (issue 30): a count is echoed as the user
// wrote it where it is refused ("--target-tokens 0e5" was echoed as "0",
// the number the parser was handed), and in the one token format where a
// summary or a refusal names it ("target 150k", "cannot fit 15,000
// tokens", whichever way 150000 or 15000 was written).
func TestTokenCountEchoedAsTyped(t *testing.T) {
	for _, typed := range []string{"0e5", "0,000", "0k", "0.0M", "0"} {
		for _, args := range [][]string{{"--target-tokens", typed}, {"--target-tokens=" + typed}} {
			out, errs, code := cliRun(t, append([]string{"compress", example, "--dry-run"}, args...)...)
			assert.Equal(t, 2, code, "%v: %s", args, errs)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errs, "ccsurgeon: --target-tokens \""+typed+"\": want a whole number, 1 or more\n"), "%v: %s", args, errs)
		}
	}
	for _, typed := range []string{"150000", "150k", "150,000", "1.5e5", "0.15M"} {
		out, errs, code := cliRun(t, "compress", example, "--target-tokens", typed, "--dry-run")
		require.Equal(t, 0, code, "%s: %s", typed, errs)
		assert.Contains(t, out, "; target 150k\n", typed)
	}
	for _, typed := range []string{"15000", "15k", "15,000", "1.5e4"} {
		_, errs, code := cliRun(t, "compress", example, "--target-tokens", typed, "--dry-run")
		require.Equal(t, 1, code, "%s: %s", typed, errs)
		assert.True(t, strings.HasPrefix(errs, "ccsurgeon: cannot fit 15,000 tokens: after every cut the estimate is "), "%s: %s", typed, errs)
		assert.Regexp(t, `give a --target-tokens of at least [0-9]+: 'ccsurgeon compress \S+ --target-tokens [0-9]+ --dry-run' shows what that cuts\n$`, errs, "the hint's number is whole: run as printed")
	}
}

// TestInfoOfACopyNamesItsSession (issue 30): `info orig.jsonl`, a copy
// under a name that is no session id, named the file ("session orig") as
// the session; the session is the id its entries record, the one
// `claude --resume` takes (the path line names the file).
func TestInfoOfACopyNamesItsSession(t *testing.T) {
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	id := sessionID(t, b)
	copyPath := filepath.Join(t.TempDir(), "orig.jsonl")
	require.NoError(t, os.WriteFile(copyPath, b, 0o600))
	out, errs, code := cliRun(t, "info", copyPath)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "session      "+id+"\npath         "+copyPath+"\n")
	out, errs, code = cliRun(t, "--json", "info", copyPath)
	require.Equal(t, 0, code, errs)
	var r struct {
		SessionID string `json:"session_id"`
		Path      string `json:"path"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, id, r.SessionID)
	assert.Equal(t, copyPath, r.Path)
	// a transcript named by its id is that id, whatever its entries say
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", example)
	out, _, _ = cliRun(t, "--json", "info", path)
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, idOf(path), r.SessionID)
}

// TestEveryCommandNamesACopysSession: the class of
// TestInfoOfACopyNamesItsSession. A writing command run on a copy named
// otherwise (orig.jsonl) printed the file's name as "session_id" (info
// printed the recorded id): a script that resumes what --json names ran
// `claude --resume orig`. Every command's --json names the session the
// same way info does: in a dry run, in a nothing-to-change report, with
// -o, and repair's. And -o out.jsonl run again with --force, out.jsonl
// being the same session's copy, was refused as "another Claude Code
// session's transcript" (the copy's entries were compared with the name
// "orig"): each -o below after the first replaces the last one's copy.
func TestEveryCommandNamesACopysSession(t *testing.T) {
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	id := sessionID(t, b)
	dir := t.TempDir()
	copyPath := filepath.Join(dir, "orig.jsonl")
	require.NoError(t, os.WriteFile(copyPath, b, 0o600))
	out := filepath.Join(dir, "out.jsonl")
	for _, args := range [][]string{
		{"info", copyPath},
		{"strip-thinking", copyPath, "--dry-run"},
		{"compress-old-turns", copyPath, "--dry-run"},
		{"compress-old-turns", copyPath, "-o", out, "--force"},
		{"drop-tool-calls", copyPath, "--tool", "NoSuchTool", "--dry-run"},
		{"drop-tool-calls", copyPath, "--tool", "NoSuchTool", "-o", out, "--force"},
		{"redact-secrets", copyPath, "--dry-run"},
		{"redact-secrets", copyPath, "--check"},
		{"rewrite", copyPath, "--strip-thinking", "--dry-run"},
		{"repair", copyPath, "--dry-run"},
		{"repair", copyPath, "-o", out, "--force"},
	} {
		name := strings.Join(args[:1], " ")
		stdout, errs, _ := cliRun(t, append([]string{"--json"}, args...)...)
		var r struct {
			SessionID *string `json:"session_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &r), "%s: %s %s", args, stdout, errs)
		require.NotNil(t, r.SessionID, "%s: no session_id in %s", name, stdout)
		assert.Equal(t, id, *r.SessionID, "%v names the copy's file, not its session", args)
	}
}

// TestACopyNamedOtherwiseWritesToEveryDestination: a copy named otherwise
// (orig.jsonl, its entries recording another session id) is written by
// every kind of destination -o names, as a session named by its id is:
// a new file, an existing one with --force, a new share folder, an
// existing empty one; a share folder holds it under its session id (the
// README's DIR/<id>.jsonl, the file the printed 'claude --resume <id>'
// opens), not under the copy's name. The member that broke is named.
func TestACopyNamedOtherwiseWritesToEveryDestination(t *testing.T) {
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		dest  func(dir string) string // the -o value, made ready in dir
		force bool
	}{
		{"a new file", func(dir string) string { return filepath.Join(dir, "out.jsonl") }, false},
		{"an existing file with --force", func(dir string) string {
			p := filepath.Join(dir, "out.jsonl")
			require.NoError(t, os.WriteFile(p, nil, 0o600))
			return p
		}, true},
		{"a new share folder", func(dir string) string { return filepath.Join(dir, "share") + string(filepath.Separator) }, false},
		{"an existing empty share folder", func(dir string) string {
			p := filepath.Join(dir, "share")
			require.NoError(t, os.Mkdir(p, 0o700))
			return p + string(filepath.Separator)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyPath := filepath.Join(dir, "orig.jsonl")
			require.NoError(t, os.WriteFile(copyPath, b, 0o600))
			args := []string{"strip-thinking", copyPath, "-o", c.dest(dir)}
			if c.force {
				args = append(args, "--force")
			}
			_, errs, code := cliRun(t, args...)
			require.Equal(t, 0, code, "%s: %v refused: %s", c.name, args, errs)
			if dest := args[3]; strings.HasSuffix(dest, string(filepath.Separator)) {
				// a share folder holds the session under its id, the file
				// 'claude --resume <id>' (which the note prints) opens
				assert.FileExists(t, filepath.Join(dest, sessionID(t, b)+".jsonl"), "%s: the share does not hold the session under its id", c.name)
				assert.NoFileExists(t, filepath.Join(dest, "orig.jsonl"), "%s: the share holds the copy's name", c.name)
			}
		})
	}
}
