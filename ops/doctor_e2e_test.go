package ops_test

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
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/cli"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorFindsAndFixes is issue 32's "done when", with sessions the real
// clients make at test time in a project "my.app_v2": a session filed under
// the folder an old naming rule gave ('.' and '_' kept), a session with a
// parent link broken mid-session, one past the cleanup period and one over
// the context window. doctor names each (exit 1) and changes nothing;
// after --fix, 'claude --continue' in the project resumes the stranded
// session (2.1.332 and 2.0.50), and 2.0.50 resumes the broken one whole.
func TestDoctorFindsAndFixes(t *testing.T) {
	t.Parallel()
	latest, old := harness.Latest(t), harness.Old(t)
	env := harness.NewEnv(t)
	proj := filepath.Join(filepath.Dir(env.Cwd), "my.app_v2")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	env.Cwd = proj
	at := func(id string, ago time.Duration) {
		m := time.Now().Add(-ago)
		require.NoError(t, os.Chtimes(env.SessionPath(id), m, m))
	}

	// broken: made by 2.0.50, which is the client that loses its history
	broken := env.Turn(t, old, "", "First question.", harness.Text("First answer."))
	env.Turn(t, old, broken, "Second question.", harness.Text("Second answer."))
	orig := env.Resume(t, old, broken)
	require.True(t, orig.OK(), "%s", orig)
	breakFile(t, "dangling-parent", env.SessionPath(broken))
	// past the cleanup period (30 days by default)
	past := env.Turn(t, latest, "", "An old question.", harness.Text("An old answer."))
	// over the window: an answer of a megabyte and more
	big := env.Turn(t, latest, "", "Paste the build log.", harness.Text(strings.Repeat("build step 0123456789 compiled with warnings\n", 30000)))
	// stranded: the newest session, in the folder an old rule named; made
	// by 2.0.50, as 2.1.332's --continue passes over print-mode sessions
	// of its own (entrypoint sdk-cli)
	stranded := env.Turn(t, old, "", "Where is the stranded session?", harness.Text("Here, once it is moved."))
	// the ages, once no client is to start before doctor runs (a start
	// deletes what is past the period); the stranded session the newest
	at(broken, 4*time.Hour)
	at(big, 3*time.Hour)
	at(stranded, 2*time.Hour)
	at(past, 40*24*time.Hour)
	// 2.0.50's -p --resume leaves an empty <id>.jsonl at each run
	// (FINDINGS.md), newer than any session: 2.1.332's --continue would
	// take it, and find nothing to continue
	empties, _ := filepath.Glob(filepath.Join(env.ProjectDir(), "*.jsonl"))
	for _, p := range empties {
		if st, err := os.Stat(p); err == nil && st.Size() == 0 {
			require.NoError(t, os.Remove(p))
		}
	}
	oldRule := strings.ReplaceAll(proj, string(filepath.Separator), "-")
	require.NotEqual(t, chain.ProjectSlug(proj), oldRule)
	oldDir := filepath.Join(env.ConfigDir, "projects", oldRule)
	require.NoError(t, os.MkdirAll(oldDir, 0o700))
	require.NoError(t, os.Rename(env.SessionPath(stranded), filepath.Join(oldDir, stranded+".jsonl")))
	if _, err := os.Stat(filepath.Join(env.ProjectDir(), stranded)); err == nil {
		require.NoError(t, os.Rename(filepath.Join(env.ProjectDir(), stranded), filepath.Join(oldDir, stranded)))
	}

	// the picker's index out of step: it names a session whose file is
	// gone and none of the folder's sessions (2.1.12-2.1.29 wrote it; the
	// pinned clients do not read it, which the --continue below shows)
	const gone = "0dead000-0000-4000-8000-000000000000"
	indexPath := filepath.Join(env.ProjectDir(), "sessions-index.json")
	index := `{"version":1,"entries":[{"sessionId":"` + gone + `","fullPath":"` + filepath.Join(env.ProjectDir(), gone+".jsonl") +
		`","fileMtime":1,"firstPrompt":"a session since deleted","messageCount":2,"created":"2026-01-01T00:00:00.000Z","modified":"2026-01-01T00:00:00.000Z","projectPath":"` + proj + `","isSidechain":false}],"originalPath":"` + proj + `"}`
	require.NoError(t, os.WriteFile(indexPath, []byte(index), 0o600))

	run := func(fix bool) (app.DoctorResult, error) {
		var out, errb bytes.Buffer
		a := &app.Env{ConfigDir: env.ConfigDir, JSON: true, Quiet: true, Out: &out, Err: &errb}
		err := a.RunDoctor(app.DoctorOptions{Fix: fix})
		var r app.DoctorResult
		require.NoError(t, json.Unmarshal(out.Bytes(), &r), "%s\n%s", out.String(), errb.String())
		return r, err
	}
	found := func(r app.DoctorResult) map[string][]doctor.Kind {
		m := map[string][]doctor.Kind{}
		for _, f := range r.Findings {
			if f.NeedsAttention {
				m[f.SessionID] = append(m[f.SessionID], f.Kind)
			}
		}
		return m
	}
	before := configFiles(t, env.ConfigDir)
	r, err := run(false)
	var ee *app.Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.Code)
	k := found(r)
	assert.Equal(t, []doctor.Kind{doctor.Stranded}, k[stranded], "stranded")
	assert.Equal(t, []doctor.Kind{doctor.Broken}, k[broken], "broken link")
	assert.Equal(t, []doctor.Kind{doctor.DueForDeletion}, k[past], "past the cleanup period")
	assert.Equal(t, []doctor.Kind{doctor.TooBig}, k[big], "over the window")
	assert.Len(t, k, 4, "nothing else needs attention: %v", k)
	info := map[string]doctor.Kind{}
	for _, f := range r.Findings {
		if f.Kind == doctor.IndexMissingFile || f.Kind == doctor.IndexMissingSession {
			assert.False(t, f.NeedsAttention, "the index is for information: %+v", f)
			info[f.SessionID] = f.Kind
		}
	}
	assert.Equal(t, doctor.IndexMissingFile, info[gone], "the index names a file that is gone: %v", info)
	for _, id := range []string{broken, big, past} {
		assert.Equal(t, doctor.IndexMissingSession, info[id], "the index misses %s: %v", id, info)
	}
	assert.Equal(t, before, configFiles(t, env.ConfigDir), "doctor alone changed the config dir")

	r, err = run(true)
	require.ErrorAs(t, err, &ee, "past and big are left to the user")
	require.Len(t, r.Fixed, 2, "%+v", r.Fixed)
	for _, x := range r.Fixed {
		assert.Empty(t, x.Error, "%+v", x)
		assert.NotEmpty(t, x.Backup)
	}
	left := map[string]doctor.Kind{}
	for _, f := range r.Left {
		left[f.SessionID] = f.Kind
	}
	assert.Equal(t, map[string]doctor.Kind{past: doctor.DueForDeletion, big: doctor.TooBig}, left)

	// 'claude --continue' in the project resumes the stranded session
	mp := &movedProject{env: env}
	for _, c := range []harness.Client{latest, old} {
		sent := mp.continueFrom(t, c, proj)
		all := ""
		for _, m := range sent {
			all += string(m)
		}
		assert.Contains(t, all, "Where is the stranded session?", "%s --continue in the project", c.Version)
	}
	// the index, left as it was by --fix, misled neither client: the
	// stranded session it does not name was the one they continued
	idx, err := os.ReadFile(indexPath)
	require.NoError(t, err)
	assert.Equal(t, index, string(idx), "--fix leaves the index alone")
	assert.NoFileExists(t, env.SessionPath(past), "the clients' start-up cleanup deletes what doctor said was past the period")
	// 2.0.50 resumes the repaired session whole (after --continue: the
	// resume leaves the file newest)
	got := env.Resume(t, old, broken)
	harness.AssertSameConversation(t, harness.NewNormalizer(env), orig, got)
}

// configFiles is every file of the config dir's projects/ with its bytes
// and modification time.
func configFiles(t *testing.T, cfg string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(filepath.Join(cfg, "projects"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = fi.ModTime().String() + " " + string(b)
		return err
	}))
	return out
}

// TestDoctorProjectGone: a project folder renamed after a session ran in it
// (made by 2.1.332 at test time), and the client since started in the new
// name: doctor says the session's project is gone and names the new place
// from the client's own records, and the move it prints, given the new
// place, puts the session where the client started there looks.
func TestDoctorProjectGone(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	env := harness.NewEnv(t)
	oldPath := filepath.Join(filepath.Dir(env.Cwd), "oldname")
	newPath := filepath.Join(filepath.Dir(env.Cwd), "newname")
	require.NoError(t, os.MkdirAll(oldPath, 0o755))
	env.Cwd = oldPath
	id := env.Turn(t, c, "", "A question in the old place.", harness.Text("An answer."))
	hourAgo := time.Now().Add(-time.Hour) // not being written: the move's guard lets it be
	require.NoError(t, os.Chtimes(env.SessionPath(id), hourAgo, hourAgo))
	require.NoError(t, os.Rename(oldPath, newPath))
	env.Cwd = newPath
	env.Turn(t, c, "", "A question in the new place.", harness.Text("Another answer."))

	var out, errb bytes.Buffer
	a := &app.Env{ConfigDir: env.ConfigDir, JSON: true, Quiet: true, Out: &out, Err: &errb}
	require.Error(t, a.RunDoctor(app.DoctorOptions{}))
	var r app.DoctorResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &r), out.String())
	var gone *app.DoctorFinding
	for i := range r.Findings {
		if r.Findings[i].SessionID == id && r.Findings[i].NeedsAttention {
			require.Nil(t, gone, "one finding: %+v", r.Findings)
			gone = &r.Findings[i]
		}
	}
	require.NotNil(t, gone, "%+v", r.Findings)
	assert.Equal(t, doctor.ProjectGone, gone.Kind)
	assert.Equal(t, oldPath, gone.Project)
	// the place the client has run in since, from its own records; the
	// harness's first working directory, a sibling the client ran in, is
	// a guess too: the command leaves the choice to the user
	assert.Equal(t, []string{newPath, filepath.Join(filepath.Dir(newPath), "project")}, gone.Candidates)
	assert.False(t, gone.Fix.Lossless, "only the user knows: not applied")
	assert.True(t, strings.HasSuffix(gone.Command, " move --project "+oldPath+" --to NEW-PATH"), gone.Command)
	assert.Contains(t, gone.Message, newPath)

	a.JSON = false
	require.NoError(t, a.RunMove(app.MoveOptions{Project: oldPath, To: newPath}), errb.String())
	assert.FileExists(t, filepath.Join(env.ProjectDir(), id+".jsonl"), "in the folder the client looks in from the new place")
	out.Reset()
	a.JSON = true
	require.NoError(t, a.RunDoctor(app.DoctorOptions{}), out.String())
}

// TestDoctorTooBigResumesAfterItsCommand: issue 32's "too big to resume",
// with the mock refusing, as the API does, a request over the window doctor
// assumes (counted by the estimator's rules, as info counts). A ~1M-token
// session of the entries the real client wrote: (a) the newest client's
// resume fails with "Prompt is too long", (b) doctor names it too_big
// (exit 1) with a command, (c) that command runs as printed and writes the
// fitted session as a new one, the original left as it was, and says how
// to resume it, (d) the client resumes the new session under the limit,
// and (e) doctor does not name the new one (the original, as it was, it
// still names).
func TestDoctorTooBigResumesAfterItsCommand(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	fx := installAgentic(t, c, agenticOpts{Prompts: 5, Exchanges: 100, ResultBytes: 5500, Seed: 21})
	cfg := fx.env.ConfigDir
	// the entries record the working directory of the client run that
	// wrote the templates: made in this project, they record its own
	// (else doctor rightly names the session stranded as well)
	path := fx.env.SessionPath(fx.id)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	from := chain.RecordedCwdOf(path)
	require.NotEmpty(t, from)
	require.NotEqual(t, fx.env.Cwd, from)
	qf, _ := json.Marshal(from)
	qt, _ := json.Marshal(fx.env.Cwd)
	require.NoError(t, os.WriteFile(path, bytes.ReplaceAll(b, qf, qt), 0o600))
	doctorRun := func() (app.DoctorResult, int) {
		out, errs, code := ccsurgeonCLI(t, "ccsurgeon", "--config-dir", cfg, "--json", "doctor")
		var r app.DoctorResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), "%s\n%s", out, errs)
		return r, code
	}

	// (b) doctor names it, with the window it assumes and a command
	r, code := doctorRun()
	assert.Equal(t, 1, code, "doctor exits 1 when a session needs attention")
	var big *app.DoctorFinding
	for i, f := range r.Findings {
		if f.NeedsAttention {
			require.Nil(t, big, "one finding needs attention: %+v", r.Findings)
			big = &r.Findings[i]
		}
	}
	require.NotNil(t, big, "%+v", r.Findings)
	require.Equal(t, doctor.TooBig, big.Kind)
	require.Equal(t, fx.id, big.SessionID)
	require.Greater(t, big.Tokens, big.ContextWindow)
	require.NotEmpty(t, big.Command)
	t.Logf("doctor: ~%d tokens, window %d: %s", big.Tokens, big.ContextWindow, big.Command)

	// the API's limit at that window, counted as info counts a resume
	fx.env.Mock.SetContextLimit(big.ContextWindow, func(rec *harness.RecordedRequest) int {
		return sentTokens(rec.Messages()) + chain.DefaultOverhead
	})

	// (a) what the user sees today
	orig := fx.env.Resume(t, c, fx.id)
	require.NotNil(t, orig.Request, "the client sent its request: %s", orig)
	assert.Equal(t, 400, orig.Request.Status, "the mock refused the request over the window")
	assert.False(t, orig.OK(), "%s", orig)
	assert.Contains(t, orig.Run.Result+orig.Run.Stderr, "Prompt is too long", "%s", orig)
	assert.True(t, orig.Run.IsError && orig.Run.ExitCode != 0, "%s", orig)
	// 2.1.332 summarizes the oldest part in pieces under the window the
	// error names and sends the rest again, twice, before it gives up
	for _, rq := range orig.Requests {
		if strings.HasPrefix(rq.Path, "/v1/messages") && !strings.Contains(rq.Path, "count_tokens") {
			t.Logf("resume: %s %d: %d messages, %d tokens", rq.Kind, rq.Status, len(rq.Messages()), sentTokens(rq.Messages())+chain.DefaultOverhead)
		}
	}
	t.Logf("resume: exit %d, is_error %v, result %q", orig.Run.ExitCode, orig.Run.IsError, orig.Run.Result)

	// the user runs doctor's command later: the file's time is not the
	// harness's restoring it (a write this recent is refused as the
	// client's, with a hint to wait)
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(path, old, old))

	// (c) the command as printed: the fitted session written as a new
	// one, the original left as it was, and the words say how to resume
	args := plainFields(t, big.Command)
	require.Equal(t, "ccsurgeon", args[0], big.Command)
	require.NotContains(t, args, "--dry-run", "the printed command does something: %s", big.Command)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	out, errs, code := ccsurgeonCLI(t, args...)
	require.Equal(t, 0, code, "%s: %s", big.Command, errs)
	t.Logf("%s:\n%s", big.Command, out)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the original is as it was")
	m := regexp.MustCompile(`(?m)^resume it with: (?:cd (\S+) && )?claude --resume (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "the command says how to resume what it wrote: %s", out)
	newID := m[2]
	if m[1] != "" { // run where the client looks for it: the session's directory
		assert.Equal(t, chain.RecordedCwdOf(path), m[1], "the resume command's directory")
	}
	require.NotEqual(t, fx.id, newID)
	assert.Contains(t, big.Message, "claude --resume", "the finding says the user resumes the new session")
	nb, err := os.ReadFile(filepath.Join(filepath.Dir(path), newID+".jsonl"))
	require.NoError(t, err, "the new session is beside the original, where 'claude --resume' in its project finds it")
	require.NotEmpty(t, nb)

	// (d) the client resumes the new session, under the limit
	got := fx.env.Resume(t, c, newID)
	require.True(t, got.OK(), "%s", got)
	sent := sentTokens(got.Request.Messages()) + chain.DefaultOverhead
	t.Logf("the client sent %d tokens by the estimator's rules, window %d", sent, big.ContextWindow)
	assert.LessOrEqual(t, sent, big.ContextWindow)

	// (e) doctor does not name the new session too big; the original,
	// left as it was, still is
	r, _ = doctorRun()
	var still []string
	for _, f := range r.Findings {
		if f.Kind == doctor.TooBig {
			still = append(still, f.SessionID)
		}
	}
	assert.Equal(t, []string{fx.id}, still)
}

// ccsurgeonCLI runs a ccsurgeon command line (args[0] the program) in
// process, as main does.
func ccsurgeonCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// plainFields splits a command line as a shell does, for a line that
// holds no quoting, expansion or operator (the test fails otherwise): its
// words are then the shell's.
func plainFields(t *testing.T, line string) []string {
	t.Helper()
	require.False(t, strings.ContainsAny(line, "'\"\\$`*?[;&|<>(){}~#\n"), "the command needs a shell's parsing: %q", line)
	return strings.Fields(line)
}
