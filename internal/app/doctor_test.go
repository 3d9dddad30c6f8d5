package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// doctorDir is a config dir under a temp root whose sessions are copies of
// sessions the real client wrote (testdata), each given its own id and
// working directory.
type doctorDir struct {
	t         *testing.T
	root, cfg string
	n         int
}

func newDoctorDir(t *testing.T) *doctorDir {
	root := t.TempDir()
	d := &doctorDir{t: t, root: root, cfg: filepath.Join(root, "cfg")}
	require.NoError(t, os.MkdirAll(filepath.Join(d.cfg, "projects"), 0o700))
	return d
}

// add installs testdata session name as a session that ran in cwd, filed
// under folder (the slug of cwd when ""), modified age ago, each line
// passed through edit (may be nil); it returns the id and path.
func (d *doctorDir) add(name, cwd, folder string, age time.Duration, edit func(i int, line []byte) []byte) (string, string) {
	t := d.t
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "2.1.328", name+".jsonl"))
	require.NoError(t, err)
	oldID := gjson.GetBytes(b[bytes.Index(b, []byte(`{"parentUuid"`)):], "sessionId").Str
	d.n++
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", d.n, d.n)
	b = bytes.ReplaceAll(b, []byte(oldID), []byte(id))
	b = bytes.ReplaceAll(b, []byte("/tmp/ccsurgeon-gen/2.1.328/"+name+"/work/project"), []byte(cwd))
	if edit != nil {
		lines := bytes.Split(b, []byte("\n"))
		for i := range lines {
			if len(lines[i]) > 0 {
				lines[i] = edit(i, lines[i])
			}
		}
		b = bytes.Join(lines, []byte("\n"))
	}
	if folder == "" {
		folder = chain.ProjectSlug(cwd)
	}
	p := filepath.Join(d.cfg, "projects", folder, id+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(t, os.WriteFile(p, b, 0o600))
	m := time.Now().Add(-age)
	require.NoError(t, os.Chtimes(p, m, m))
	return id, p
}

// dir makes a project folder on disk (a working directory that exists).
func (d *doctorDir) dir(name string) string {
	p := filepath.Join(d.root, name)
	require.NoError(d.t, os.MkdirAll(p, 0o755))
	return p
}

func (d *doctorDir) run(args DoctorOptions) (DoctorResult, string, error) {
	var out, errb bytes.Buffer
	env := &Env{ConfigDir: d.cfg, Out: &out, Err: &errb, Quiet: true, JSON: true}
	err := env.RunDoctor(args)
	var r DoctorResult
	require.NoError(d.t, json.Unmarshal(out.Bytes(), &r), out.String())
	return r, errb.String(), err
}

func (d *doctorDir) text(args DoctorOptions) (string, error) {
	var out, errb bytes.Buffer
	env := &Env{ConfigDir: d.cfg, Out: &out, Err: &errb, Quiet: true}
	err := env.RunDoctor(args)
	return out.String(), err
}

// kinds maps each session id to the kinds found for it.
func kinds(r DoctorResult) map[string][]doctor.Kind {
	out := map[string][]doctor.Kind{}
	for _, f := range r.Findings {
		out[f.SessionID] = append(out[f.SessionID], f.Kind)
	}
	return out
}

// dangle points the parentUuid of the session's second user prompt at an
// entry that is not there: the broken link 2.0.50 resumes only below.
func dangle() func(int, []byte) []byte {
	users := 0
	return func(_ int, line []byte) []byte {
		if gjson.GetBytes(line, "type").Str == "user" && gjson.GetBytes(line, "message.content").Type == gjson.String {
			users++
			if users == 2 {
				out, _ := sjson.SetBytes(line, "parentUuid", "0badc0de-0000-4000-8000-000000000000")
				return out
			}
		}
		return line
	}
}

// huge makes the first prompt over a megabyte of text: past the window.
func huge() func(int, []byte) []byte {
	done := false
	return func(_ int, line []byte) []byte {
		if !done && gjson.GetBytes(line, "type").Str == "user" && gjson.GetBytes(line, "message.content").Type == gjson.String {
			done = true
			out, _ := sjson.SetBytes(line, "message.content", strings.Repeat("alpha beta gamma delta epsilon 12345 ", 40000))
			return out
		}
		return line
	}
}

// filesAndTimes is every file under root with its bytes and modification time.
func filesAndTimes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		require.NoError(t, err)
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = fmt.Sprintf("%s %s %x", st.ModTime().Format(time.RFC3339Nano), st.Mode(), b)
		return nil
	}))
	return out
}

// sickDir is the "done when" config dir: a stranded session, a
// broken link, one past the cleanup period, one over the window, one whose
// project is gone (with a guess where it went), one due soon, one sound,
// and an index out of step.
type sickDir struct {
	*doctorDir
	stranded, broken, past, soon, big, gone, sound string
	proj, moved                                    string
}

func newSickDir(t *testing.T) *sickDir {
	d := &sickDir{doctorDir: newDoctorDir(t)}
	d.proj = d.dir("work/my.app_v2")
	// an old naming rule: '.' and '_' kept (the client writes '-')
	d.stranded, _ = d.add("tools", d.proj, "-"+strings.ReplaceAll(strings.TrimPrefix(d.proj, "/"), "/", "-"), time.Hour, nil)
	d.broken, _ = d.add("multi-turn", d.proj, "", 2*time.Hour, dangle())
	d.past, _ = d.add("multi-turn", d.proj, "", 40*24*time.Hour, nil)
	d.soon, _ = d.add("multi-turn", d.proj, "", 25*24*time.Hour-time.Hour, nil)
	d.big, _ = d.add("multi-turn", d.proj, "", 3*time.Hour, huge())
	d.sound, _ = d.add("multi-turn", d.proj, "", 4*time.Hour, nil)
	// a project renamed: the sessions keep the old path, which is gone;
	// the client has run in the new place (its .claude.json says so)
	gonePath := filepath.Join(d.root, "work", "oldname")
	d.moved = d.dir("work/newname")
	d.gone, _ = d.add("multi-turn", gonePath, "", 5*time.Hour, nil)
	cfgJSON, _ := json.Marshal(map[string]any{"projects": map[string]any{d.moved: map[string]any{}, d.proj: map[string]any{}}})
	require.NoError(t, os.WriteFile(filepath.Join(d.cfg, ".claude.json"), cfgJSON, 0o600))
	// an index (2.1.12-2.1.29) that names a file that is gone and misses
	// the sound session
	idx, _ := json.Marshal(map[string]any{"version": 1, "entries": []map[string]any{
		{"sessionId": "99999999-0000-4000-8000-000000000000", "fullPath": filepath.Join(d.cfg, "projects", chain.ProjectSlug(d.proj), "99999999-0000-4000-8000-000000000000.jsonl")},
		{"sessionId": d.broken}, {"sessionId": d.past}, {"sessionId": d.soon}, {"sessionId": d.big},
	}})
	require.NoError(t, os.WriteFile(filepath.Join(d.cfg, "projects", chain.ProjectSlug(d.proj), "sessions-index.json"), idx, 0o600))
	return d
}

// TestDoctorNamesEveryFinding: each sick session is named with its kind
// and only that, the sound one not at all; the facts are in the JSON; exit
// 1; and doctor alone changes no byte and no modification time.
func TestDoctorNamesEveryFinding(t *testing.T) {
	d := newSickDir(t)
	before := filesAndTimes(t, d.root)
	r, _, err := d.run(DoctorOptions{})
	var ee *Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.Code)
	k := kinds(r)
	assert.Equal(t, []doctor.Kind{doctor.Stranded}, k[d.stranded], "stranded")
	assert.Equal(t, []doctor.Kind{doctor.Broken}, k[d.broken], "broken link")
	assert.Equal(t, []doctor.Kind{doctor.DueForDeletion}, k[d.past], "past the cleanup period")
	assert.Equal(t, []doctor.Kind{doctor.DueForDeletion}, k[d.soon], "due within 7 days")
	assert.Equal(t, []doctor.Kind{doctor.TooBig}, k[d.big], "over the window")
	assert.Equal(t, []doctor.Kind{doctor.ProjectGone}, k[d.gone], "project gone")
	assert.Equal(t, []doctor.Kind{doctor.IndexMissingSession}, k[d.sound], "the sound session: only the index misses it")
	assert.Equal(t, []doctor.Kind{doctor.IndexMissingFile}, k["99999999-0000-4000-8000-000000000000"])
	assert.Equal(t, 7, r.Sessions)
	assert.Equal(t, doctor.Cleanup{Days: 30, Refused: []string{}}, r.Cleanup)
	for _, f := range r.Findings {
		switch f.SessionID {
		case d.stranded:
			assert.Equal(t, chain.ProjectSlug(d.proj), f.ExpectedFolder)
			assert.Equal(t, d.proj, f.Project)
			assert.Equal(t, doctor.Fix{Kind: doctor.FixMove, Lossless: true, To: d.proj}, f.Fix)
		case d.broken:
			require.NotEmpty(t, f.Problems)
			assert.Equal(t, "dangling-parent", f.Problems[0].Code)
			assert.Equal(t, doctor.FixRepair, f.Fix.Kind)
			assert.Contains(t, f.Message, "2.0.50 resumes only what follows line")
		case d.past:
			assert.Less(t, *f.DaysLeft, 0)
			assert.Equal(t, 40, *f.AgeDays)
			assert.Contains(t, f.Message, "the next start of the client deletes it")
		case d.soon:
			assert.Equal(t, 5, *f.DaysLeft)
			assert.Contains(t, f.Message, "in 5 days")
		case d.big:
			assert.Greater(t, f.Tokens, f.ContextWindow)
			assert.Equal(t, 200_000, f.ContextWindow)
			assert.Equal(t, 150_000, f.Fix.TargetTokens)
			assert.False(t, f.Fix.Lossless)
			// the fit is written as a new session: the original stays as
			// it was, and the command does something when run as printed
			assert.True(t, strings.HasSuffix(f.Command, "compress "+d.big+" --target-tokens 150000 --new"), f.Command)
			assert.NotContains(t, f.Command, "--dry-run")
			assert.Contains(t, f.Message, "as a new session", "the line says what the command writes")
			assert.Contains(t, f.Message, "claude --resume", "the line says how the user goes on")
		case d.gone:
			// the folders the client ran in (.claude.json) in the same parent
			assert.Equal(t, []string{d.proj, d.moved}, f.Candidates)
			assert.Contains(t, f.Command, "move --project "+f.Project+" --to NEW-PATH", "two guesses: the user names the place")
		}
	}
	assert.Equal(t, 6, r.NeedsAttention, "the index findings cost nothing")
	assert.Equal(t, before, filesAndTimes(t, d.root), "doctor without --fix changed a file")

	txt, err := d.text(DoctorOptions{})
	require.Error(t, err)
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	assert.Len(t, lines, len(r.Findings), "one line per finding:\n%s", txt)
	for _, l := range lines {
		assert.Regexp(t, `^[0-9a-f-]{36}: [a-z ]+: `, l)
	}
	txt2, _ := d.text(DoctorOptions{})
	assert.Equal(t, txt, txt2, "deterministic")
}

// TestDoctorFixAppliesTheLosslessFixes: --fix moves the stranded session
// where the client looks and repairs the broken one, each with a backup,
// touches none of the others, and names what it leaves.
func TestDoctorFixAppliesTheLosslessFixes(t *testing.T) {
	d := newSickDir(t)
	before := filesAndTimes(t, d.root)
	r, _, err := d.run(DoctorOptions{Fix: true})
	var ee *Error
	require.ErrorAs(t, err, &ee, "left: due, too big, gone")
	require.Len(t, r.Fixed, 2, "%+v", r.Fixed)
	for _, x := range r.Fixed {
		assert.Empty(t, x.Error)
		assert.NotEmpty(t, x.Backup)
		assert.DirExists(t, x.Backup)
	}
	want := filepath.Join(d.cfg, "projects", chain.ProjectSlug(d.proj), d.stranded+".jsonl")
	assert.FileExists(t, want, "the stranded session is in the folder the client looks in")
	var left []doctor.Kind
	for _, f := range r.Left {
		left = append(left, f.Kind)
	}
	assert.ElementsMatch(t, []doctor.Kind{doctor.DueForDeletion, doctor.DueForDeletion, doctor.TooBig, doctor.ProjectGone}, left)

	after := filesAndTimes(t, d.root)
	changed := []string{}
	for k, v := range after {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	for _, c := range changed {
		ok := strings.Contains(c, d.stranded) || strings.Contains(c, d.broken) || strings.HasPrefix(c, filepath.Join("cfg", "ccsurgeon")) || strings.HasSuffix(c, "sessions-index.json")
		assert.True(t, ok, "--fix changed %s", c)
	}

	r2, _, err := d.run(DoctorOptions{})
	require.Error(t, err)
	for _, f := range r2.Findings {
		if f.SessionID == d.stranded || f.SessionID == d.broken {
			assert.False(t, f.NeedsAttention, "after --fix: %s", f.Message)
		}
	}
	s, err := chain.Load(filepath.Join(d.cfg, "projects", chain.ProjectSlug(d.proj), d.broken+".jsonl"))
	require.NoError(t, err)
	defer s.Close()
	assert.True(t, validate.Session(s).Valid())
}

// TestDoctorCleanupPeriodFromSettings: cleanupPeriodDays is read from the
// user's settings.json, the managed settings win over it, and every form
// of the value is taken as the clients take it (2.0.50's cli.js: a file
// whose value is not a whole number >= 0 is ignored whole, 0 makes its
// start-up delete every transcript, its cutoff being now; 2.1.332 wants
// a whole number >= 1 and skips its cleanup on another): the subtest
// names the form that was misread.
func TestDoctorCleanupPeriodFromSettings(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("p")
	id, _ := d.add("multi-turn", proj, "", 12*24*time.Hour, nil)
	managed := filepath.Join(d.root, "managed")
	require.NoError(t, os.MkdirAll(managed, 0o755))
	for _, c := range []struct {
		name, user, managed string
		days                int
		left                int // -100: not named
		invalid             bool
	}{
		{"default", "", "", 30, -100, false},
		{"user", `{"cleanupPeriodDays": 15}`, "", 15, 2, false},
		{"managed wins", `{"cleanupPeriodDays": 15}`, `{"cleanupPeriodDays": 10}`, 10, -3, false},
		{"zero: 2.0.50 deletes every session", `{"cleanupPeriodDays": 0}`, "", 0, -13, false},
		{"whole number written as a float", `{"cleanupPeriodDays": 15.0}`, "", 15, 2, false},
		{"large: the days overflow a duration", `{"cleanupPeriodDays": 106752}`, "", 106752, -100, false},
		{"larger than any date", `{"cleanupPeriodDays": 1e300}`, "", doctor.MaxCleanupDays, -100, false},
		{"negative", `{"cleanupPeriodDays": -4}`, "", 30, -100, true},
		{"not whole", `{"cleanupPeriodDays": 1.5}`, "", 30, -100, true},
		{"a string", `{"cleanupPeriodDays": "5"}`, "", 30, -100, true},
		{"null", `{"cleanupPeriodDays": null}`, "", 30, -100, true},
		{"managed refused, user's taken", `{"cleanupPeriodDays": 15}`, `{"cleanupPeriodDays": -1}`, 15, 2, true},
		{"not JSON", `{cleanupPeriodDays: 5`, "", 30, -100, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			write := func(p, s string) {
				if s == "" {
					_ = os.Remove(p)
					return
				}
				require.NoError(t, os.WriteFile(p, []byte(s), 0o600))
			}
			write(filepath.Join(d.cfg, "settings.json"), c.user)
			write(filepath.Join(managed, "managed-settings.json"), c.managed)
			r, _, _ := d.run(DoctorOptions{ManagedSettingsDir: managed})
			assert.Equal(t, c.days, r.Cleanup.Days)
			assert.Equal(t, c.invalid, len(r.Cleanup.Refused) > 0, "%+v", r.Cleanup)
			var f *DoctorFinding
			for i := range r.Findings {
				if r.Findings[i].SessionID == id && r.Findings[i].Kind == doctor.DueForDeletion {
					f = &r.Findings[i]
				}
			}
			if c.left == -100 {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Equal(t, c.left, *f.DaysLeft)
			if c.days == 0 {
				assert.Contains(t, f.Message, "2.0.50 deletes every session at its next start")
			}
		})
	}
}

// TestDoctorRecordedCwd: the client files a session that /cd moved under
// the folder of its last relocatedCwd: there it is at home, under the
// folder of its first cwd it is stranded (the client looks in the other).
// Where the OS folds case, a folder that differs from the slug by case
// is the same folder.
func TestDoctorRecordedCwd(t *testing.T) {
	d := newDoctorDir(t)
	a, b := d.dir("a"), d.dir("b")
	relocated := func(to string) func(int, []byte) []byte {
		return func(i int, line []byte) []byte {
			if i == 38 { // the last line
				return append(append(line, '\n'), []byte(fmt.Sprintf(`{"type":"relocated","sessionId":"x","relocatedCwd":%q}`, to))...)
			}
			return line
		}
	}
	home, _ := d.add("multi-turn", a, chain.ProjectSlug(b), time.Hour, relocated(b))
	away, _ := d.add("multi-turn", a, chain.ProjectSlug(a), time.Hour, relocated(b))
	r, _, _ := d.run(DoctorOptions{})
	k := kinds(r)
	assert.Empty(t, k[home], "moved by /cd, filed under the new folder")
	assert.Equal(t, []doctor.Kind{doctor.Stranded}, k[away])

	upper := d.dir("Case")
	id, p := d.add("multi-turn", upper, strings.ToLower(chain.ProjectSlug(upper)), time.Hour, nil)
	for _, goos := range []string{"linux", "darwin", "windows"} {
		fs := doctor.Check(doctor.Options{ConfigDir: d.cfg, Sessions: []string{p}, GOOS: goos})
		var got []doctor.Kind
		for _, f := range fs {
			if f.SessionID == id {
				got = append(got, f.Kind)
			}
		}
		if chain.FoldsCase(goos) {
			assert.Empty(t, got, goos)
		} else {
			assert.Equal(t, []doctor.Kind{doctor.Stranded}, got, goos)
		}
	}
}

// TestDoctorSaysWhatRepairCannotMend: a call answered by two results
// (repair keeps both: which one is right is not its to decide) is named
// with what repair leaves, and --fix leaves the session as it is.
func TestDoctorSaysWhatRepairCannotMend(t *testing.T) {
	for _, c := range []struct {
		name    string
		fixable bool // a broken link too, which repair mends
		after   int  // the call answered twice is in this turn
		extra   func(func(int, []byte) []byte) func(int, []byte) []byte
	}{
		{"only that", false, 1, func(f func(int, []byte) []byte) func(int, []byte) []byte { return f }},
		{"and a broken link above it", true, 3, func(f func(int, []byte) []byte) func(int, []byte) []byte {
			dg := dangle()
			return func(i int, line []byte) []byte { return f(i, dg(i, line)) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDoctorDir(t)
			proj := d.dir("p")
			orig, copyID := "", "c0ffee00-0000-4000-8000-000000000000"
			prompts := 0
			id, _ := d.add("tools", proj, "", time.Hour, c.extra(func(i int, line []byte) []byte {
				if gjson.GetBytes(line, "type").Str == "user" && gjson.GetBytes(line, "message.content").Type == gjson.String {
					prompts++
				}
				if orig == "" && prompts >= c.after && gjson.GetBytes(line, "type").Str == "user" && gjson.GetBytes(line, `message.content.#(type=="tool_result")`).Exists() {
					orig = gjson.GetBytes(line, "uuid").Str
					dup, _ := sjson.SetBytes(line, "uuid", copyID)
					dup, _ = sjson.SetBytes(dup, "parentUuid", orig)
					return append(append(line, '\n'), dup...)
				}
				if orig != "" && gjson.GetBytes(line, "parentUuid").Str == orig {
					out, _ := sjson.SetBytes(line, "parentUuid", copyID)
					return out
				}
				return line
			}))
			require.NotEmpty(t, orig)
			before := filesAndTimes(t, d.root)
			r, _, err := d.run(DoctorOptions{Fix: true})
			require.Error(t, err)
			require.Len(t, r.Findings, 1, "%+v", r.Findings)
			f := r.Findings[0]
			assert.Equal(t, doctor.Broken, f.Kind)
			require.NotEmpty(t, f.Unfixed, "%+v", f.Problems)
			assert.Contains(t, f.Message, "what repair cannot mend: line ")
			require.Len(t, r.Left, 1, "what repair cannot mend stays the user's")
			assert.Equal(t, id, r.Left[0].SessionID)
			if !c.fixable {
				assert.Equal(t, doctor.FixNone, f.Fix.Kind, "nothing repair can do")
				assert.Empty(t, f.Command)
				assert.Empty(t, r.Fixed)
				assert.Equal(t, before, filesAndTimes(t, d.root))
				return
			}
			assert.Equal(t, doctor.FixRepair, f.Fix.Kind, "repair mends the broken link")
			require.Len(t, r.Fixed, 1)
			assert.Empty(t, r.Fixed[0].Error)
			r2, _, _ := d.run(DoctorOptions{})
			require.Len(t, r2.Findings, 1)
			for _, p := range r2.Findings[0].Problems {
				assert.NotEqual(t, "dangling-parent", p.Code, "mended")
			}
		})
	}
}

// TestDoctorOnAFileOutsideTheConfigDir: a session named by a path outside
// <config-dir>/projects is checked for what it holds (broken, too big),
// never called stranded or due for the client's cleanup.
func TestDoctorOnAFileOutsideTheConfigDir(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("p")
	_, p := d.add("multi-turn", proj, "", 60*24*time.Hour, dangle())
	out := filepath.Join(d.root, "elsewhere", filepath.Base(p))
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
	require.NoError(t, os.Rename(p, out))
	r, _, err := d.run(DoctorOptions{Sessions: []string{out}})
	require.Error(t, err)
	var got []doctor.Kind
	for _, f := range r.Findings {
		got = append(got, f.Kind)
	}
	assert.Equal(t, []doctor.Kind{doctor.Broken}, got)
	assert.Contains(t, r.Findings[0].Command, " repair "+out, "found by its path")
	txt, _ := d.text(DoctorOptions{Sessions: []string{out}})
	assert.True(t, strings.HasPrefix(txt, out+": broken: "), txt)
	// --fix writes nothing outside the config dir: it is left to the user
	before := filesAndTimes(t, d.root)
	r, _, err = d.run(DoctorOptions{Sessions: []string{out}, Fix: true})
	require.Error(t, err)
	assert.Empty(t, r.Fixed)
	assert.Len(t, r.Left, 1)
	assert.Equal(t, before, filesAndTimes(t, d.root))
}

// TestDoctorStrandedByEveryNamingRule: a session filed under a folder an
// older rule or another build gave its project (kept '.', '_', spaces or
// non-ASCII letters; a long name not cut, as 2.0.x leaves it) is stranded,
// and the folder it should be in is the client's slug; --fix puts it there.
func TestDoctorStrandedByEveryNamingRule(t *testing.T) {
	keepAll := func(p string) string { return strings.ReplaceAll(p, "/", "-") }
	for _, c := range []struct{ name, base string }{
		{"dot and underscore", "my.app_v2"},
		{"space", "my app"},
		{"non-ASCII", "café"},
		{"long name uncut (2.0.x)", "LONG"}, // 210 characters, a letter at 200
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDoctorDir(t)
			base := c.base
			if base == "LONG" {
				base = strings.Repeat("a", 210-len(d.root)-1)
			}
			proj := d.dir(base)
			folder := keepAll(proj)
			if strings.HasPrefix(c.name, "long") {
				require.Greater(t, len(proj), 200, "a name the client cuts")
			}
			if len(proj) > 200 { // 2.0.x: every other character '-', never cut
				require.LessOrEqual(t, len(proj), 255, "a folder name the file system takes")
				folder = strings.Map(func(r rune) rune {
					if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
						return r
					}
					return '-'
				}, proj)
			}
			require.NotEqual(t, chain.ProjectSlug(proj), folder)
			if len(proj) > 200 {
				// '-' there would make it a name the client lists (below)
				require.NotEqual(t, byte('-'), folder[200])
			}
			id, _ := d.add("multi-turn", proj, folder, time.Hour, nil)
			r, _, err := d.run(DoctorOptions{})
			require.Error(t, err)
			require.Len(t, r.Findings, 1, "%+v", r.Findings)
			assert.Equal(t, doctor.Stranded, r.Findings[0].Kind)
			assert.Equal(t, chain.ProjectSlug(proj), r.Findings[0].ExpectedFolder)
			r, _, err = d.run(DoctorOptions{Fix: true})
			require.NoError(t, err, "%+v", r.Fixed)
			assert.FileExists(t, filepath.Join(d.cfg, "projects", chain.ProjectSlug(proj), id+".jsonl"))
		})
	}
}

// TestDoctorLongNameOfAnotherBuild: the client cuts a folder name over 200
// characters and adds a hash that differs between builds; it lists any
// folder with the same first 200 characters, '-' and another hash whose
// sessions record the project (2.1.332's code), so such a session is at
// home, not stranded.
func TestDoctorLongNameOfAnotherBuild(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir(strings.Repeat("long-project-name-", 9))
	require.Greater(t, len(proj), 200)
	folder := chain.ProjectSlug(proj)[:200] + "-otherhash"
	require.NotEqual(t, chain.ProjectSlug(proj), folder)
	d.add("multi-turn", proj, folder, time.Hour, nil)
	r, _, err := d.run(DoctorOptions{})
	require.NoError(t, err, "%+v", r.Findings)
}

// TestDoctorEmptyNewest: an empty <uuid>.jsonl is named only when it is
// the newest file of its project's folder (then 'claude --continue' takes
// it); older than the newest session it costs nothing. --fix leaves it.
func TestDoctorEmptyNewest(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("p")
	id, p := d.add("multi-turn", proj, "", time.Hour, nil)
	empty := filepath.Join(filepath.Dir(p), "0badc0de-0000-4000-8000-000000000000.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	r, _, err := d.run(DoctorOptions{Fix: true})
	require.Error(t, err)
	require.Len(t, r.Findings, 1, "%+v", r.Findings)
	f := r.Findings[0]
	assert.Equal(t, doctor.EmptyNewest, f.Kind)
	assert.Equal(t, empty, f.Path)
	assert.Equal(t, p, f.Shadows)
	assert.Equal(t, CdAnd(proj, "claude --resume "+id), f.Command)
	assert.Empty(t, r.Fixed)
	assert.FileExists(t, empty)
	txt, _ := d.text(DoctorOptions{})
	assert.Contains(t, txt, "0badc0de-0000-4000-8000-000000000000: empty newest: ")

	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(empty, old, old))
	r, _, err = d.run(DoctorOptions{})
	assert.NoError(t, err, "%+v", r.Findings)
}

// TestDoctorGroupsWhatOneCommandFixes: the sessions of one gone project
// share its fix (one move --project): the text says it once, naming every
// session, where it said the same command once per session; so do the
// sessions one index misses. --json keeps a finding per session.
func TestDoctorGroupsWhatOneCommandFixes(t *testing.T) {
	d := newDoctorDir(t)
	gone := filepath.Join(d.root, "gone")
	var ids []string
	for i := 0; i < 3; i++ {
		id, _ := d.add("multi-turn", gone, "", time.Duration(i+1)*time.Hour, nil)
		ids = append(ids, id)
	}
	idx, _ := json.Marshal(map[string]any{"version": 1, "entries": []map[string]any{}})
	require.NoError(t, os.WriteFile(filepath.Join(d.cfg, "projects", chain.ProjectSlug(gone), "sessions-index.json"), idx, 0o600))
	r, _, err := d.run(DoctorOptions{})
	require.Error(t, err)
	assert.Len(t, r.Findings, 6, "a finding per session and kind in --json")
	assert.Equal(t, 3, r.NeedsAttention)
	txt, err := d.text(DoctorOptions{})
	require.Error(t, err)
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	require.Len(t, lines, 2, "%s", txt)
	cmd := "ccsurgeon --config-dir " + d.cfg + " move --project " + gone + " --to NEW-PATH"
	assert.Equal(t, 1, strings.Count(txt, cmd), "%s", txt)
	for _, l := range lines {
		for _, id := range ids {
			assert.Contains(t, l, id)
		}
	}
	assert.True(t, strings.HasPrefix(lines[0], gone+": project gone: 3 sessions record it as their working directory, which no longer exists"), lines[0])
	assert.True(t, strings.HasSuffix(lines[0], "; fix: "+cmd), lines[0])
	assert.Contains(t, lines[1], ": index: misses 3 sessions of its folder", "what needs no attention comes last")
}

// TestDoctorNamesWhatIsNotAFile: an entry of a project folder named like
// a session that is not a regular file is listed by neither client
// (readdir + isFile in 2.0.50 and 2.1.332): a symlink to a session is a
// session the user put there and never sees (needs attention); a folder
// named like one costs nothing (named for information). Nothing is
// opened through the link, nothing changed, --fix leaves both.
func TestDoctorNamesWhatIsNotAFile(t *testing.T) {
	testlink.Need(t)
	d := newDoctorDir(t)
	proj := d.dir("p")
	_, p := d.add("multi-turn", proj, "", 2*time.Hour, nil)
	elsewhere := filepath.Join(d.root, "keep", "33333333-3333-4333-8333-333333333333.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(elsewhere), 0o755))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(elsewhere, b, 0o600))
	link := filepath.Join(filepath.Dir(p), filepath.Base(elsewhere))
	require.NoError(t, os.Symlink(elsewhere, link))
	dir := filepath.Join(filepath.Dir(p), "44444444-4444-4444-8444-444444444444.jsonl")
	require.NoError(t, os.Mkdir(dir, 0o700))
	before := filesAndTimes(t, d.root)
	r, _, err := d.run(DoctorOptions{Fix: true})
	require.Error(t, err)
	require.Len(t, r.Findings, 2, "%+v", r.Findings)
	byPath := map[string]DoctorFinding{}
	for _, f := range r.Findings {
		assert.Equal(t, doctor.NotAFile, f.Kind)
		byPath[f.Path] = f
	}
	assert.True(t, byPath[link].NeedsAttention)
	assert.Equal(t, elsewhere, byPath[link].Target)
	assert.Contains(t, byPath[link].Message, "a symlink to "+elsewhere)
	assert.False(t, byPath[dir].NeedsAttention)
	assert.Contains(t, byPath[dir].Message, "a folder")
	assert.Empty(t, r.Fixed)
	assert.Equal(t, before, filesAndTimes(t, d.root))
}

// TestDoctorGoneProjectFiledUnderAnExistingOne: a session whose working
// directory is gone but that is filed under the folder of a project the
// client knows and that exists (the project renamed and its folder under
// projects/ renamed by hand) is listed by the client there: doctor says
// so, not "no start of the client finds it", and the move it names goes
// to that project.
func TestDoctorGoneProjectFiledUnderAnExistingOne(t *testing.T) {
	d := newDoctorDir(t)
	now := d.dir("new")
	gone := filepath.Join(d.root, "old")
	d.add("tools", now, "", time.Hour, nil) // the client has run in new
	id, _ := d.add("multi-turn", gone, chain.ProjectSlug(now), 2*time.Hour, nil)
	r, _, err := d.run(DoctorOptions{})
	require.Error(t, err)
	require.Len(t, r.Findings, 1, "%+v", r.Findings)
	f := r.Findings[0]
	assert.Equal(t, doctor.ProjectGone, f.Kind)
	assert.Equal(t, id, f.SessionID)
	assert.Equal(t, now, f.ListedIn)
	assert.NotContains(t, f.Message, "no start of the client finds it")
	assert.Contains(t, f.Message, "the client lists it in "+now)
	assert.True(t, strings.HasSuffix(f.Command, " move --project "+gone+" --to "+now), f.Command)
}

// TestDoctorGroupsSessionsDueForDeletion: many sessions past the cleanup
// period (a config dir used for months) share one fix, raising
// cleanupPeriodDays: one line names the settings file and every session,
// where each printed the same advice; those only near it share another.
func TestDoctorGroupsSessionsDueForDeletion(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("p")
	var past []string
	for i := 0; i < 3; i++ {
		id, _ := d.add("multi-turn", proj, "", time.Duration(40+i)*24*time.Hour, nil)
		past = append(past, id)
	}
	soon1, _ := d.add("multi-turn", proj, "", 26*24*time.Hour, nil)
	soon2, _ := d.add("multi-turn", proj, "", 27*24*time.Hour, nil)
	r, _, _ := d.run(DoctorOptions{})
	assert.Len(t, r.Findings, 5, "a finding per session in --json")
	txt, err := d.text(DoctorOptions{})
	require.Error(t, err)
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	require.Len(t, lines, 2, "%s", txt)
	settings := filepath.Join(d.cfg, "settings.json")
	assert.True(t, strings.HasPrefix(lines[0], settings+": due for deletion: 3 sessions past the cleanup period"), lines[0])
	for _, id := range past {
		assert.Contains(t, lines[0], id)
	}
	assert.True(t, strings.HasPrefix(lines[1], settings+": due for deletion: 2 sessions reach the cleanup period within 3 days"), lines[1])
	assert.Contains(t, lines[1], soon1)
	assert.Contains(t, lines[1], soon2)
}

// TestDoctorUnclearRecordedCwd: a recorded working directory that is
// relative ("proj") or not in its clean form ("/x/a/../p") is no path the
// client writes (process.cwd() is absolute and clean): doctor does not
// resolve it from the directory it runs in, and never moves the session
// by it (a relative one moved the session into the project of the shell's
// directory; one with ".." was reported stranded, its move failing for
// ever): it is named, with no fix. The subtest names the form.
func TestDoctorUnclearRecordedCwd(t *testing.T) {
	for _, c := range []struct{ name, cwd string }{
		{"relative", "proj"},
		{"relative with a dot", "./proj"},
		{"with ..", "ROOT/a/../proj"},
		{"with .", "ROOT/./proj"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDoctorDir(t)
			d.dir("proj")
			d.dir("a")
			cwd := strings.Replace(c.cwd, "ROOT", d.root, 1)
			id, _ := d.add("multi-turn", cwd, "-somewhere", time.Hour, nil)
			t.Chdir(d.root) // where "proj" exists
			before := filesAndTimes(t, d.cfg)
			r, _, err := d.run(DoctorOptions{Fix: true})
			require.Error(t, err, "needs attention")
			assert.Equal(t, []doctor.Kind{doctor.UnclearCwd}, kinds(r)[id])
			assert.Empty(t, r.Fixed)
			assert.Equal(t, before, filesAndTimes(t, d.cfg), "--fix moved a session by a cwd that is no clean absolute path")
			for _, f := range r.Findings {
				assert.Empty(t, f.Command)
				assert.Equal(t, doctor.FixNone, f.Fix.Kind)
				assert.Contains(t, f.Message, cwd)
			}
		})
	}
}

// TestDoctorSummaryCountsWhatItSays: the stderr summary counts what it
// names: fixes that were made (not those tried), the fixes that failed
// (each "not fixed" line with the command that shows why), the findings
// and the sessions they are about, and the lines they take (grouped
// findings share one).
func TestDoctorSummaryCountsWhatItSays(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("my.app")
	// stranded, but where it belongs is a file, not a folder: the move fails
	id, _ := d.add("multi-turn", proj, "-elsewhere", time.Hour, nil)
	require.NoError(t, os.WriteFile(filepath.Join(d.cfg, "projects", chain.ProjectSlug(proj)), nil, 0o600))
	for i := 0; i < 3; i++ {
		d.add("multi-turn", d.dir("p"), "", time.Duration(40+i)*24*time.Hour, nil)
	}
	summary := func(o DoctorOptions) (string, string) {
		var out, errb bytes.Buffer
		env := &Env{ConfigDir: d.cfg, Out: &out, Err: &errb}
		require.Error(t, env.RunDoctor(o))
		return out.String(), errb.String()
	}
	out, errs := summary(DoctorOptions{})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Equal(t, "ccsurgeon: 4 sessions examined, 4 findings on 4 sessions need attention, in 2 lines\n", errs)

	out, errs = summary(DoctorOptions{Fix: true})
	assert.Equal(t, "ccsurgeon: 4 sessions examined, 0 fixed, 1 not fixed, 4 findings left for you to decide\n", errs)
	var notFixed string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "not fixed: ") {
			notFixed = l
		}
	}
	require.NotEmpty(t, notFixed, out)
	assert.Contains(t, notFixed, id)
	assert.Regexp(t, `; hint: to see why: ccsurgeon --config-dir \S+ move `+id+` --to \S+$`, notFixed)
}

// TestDoctorStrandedWithATwinWhereItBelongs: a stranded session whose id
// is already a file in the folder the client looks in (a copy made by
// hand) cannot be moved there (move refuses a file already in place): it
// is named with the twin, with no move offered and none tried by --fix.
func TestDoctorStrandedWithATwinWhereItBelongs(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("my.app")
	id, p := d.add("multi-turn", proj, "-elsewhere", time.Hour, nil)
	twin := filepath.Join(d.cfg, "projects", chain.ProjectSlug(proj), id+".jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(twin), 0o700))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(twin, b, 0o600))
	r, _, err := d.run(DoctorOptions{Fix: true})
	require.Error(t, err)
	assert.Empty(t, r.Fixed, "a move that cannot be made was tried")
	var f *DoctorFinding
	for i := range r.Findings {
		if r.Findings[i].Path == p {
			f = &r.Findings[i]
		}
	}
	require.NotNil(t, f, "%+v", r.Findings)
	assert.Equal(t, doctor.Stranded, f.Kind)
	assert.Equal(t, twin, f.Twin)
	assert.Equal(t, doctor.FixNone, f.Fix.Kind)
	assert.Empty(t, f.Command)
	assert.Contains(t, f.Message, twin)
}

// TestContinueFindsALongNameOfAnotherBuild: a project whose folder name
// is cut (over 200 characters) and hashed by another build is one
// 2.1.332 lists for the project (chain.FolderHoldsProject, which doctor
// follows): --continue takes its session, as the client would.
func TestContinueFindsALongNameOfAnotherBuild(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir(strings.Repeat("long-project-name-", 9))
	folder := chain.ProjectSlug(proj)[:200] + "-otherhash"
	_, p := d.add("multi-turn", proj, folder, time.Hour, nil)
	// a newer session of another project under such a folder is not its
	other := d.dir(strings.Repeat("long-project-name-", 9) + "x")
	d.add("multi-turn", other, folder, 0, nil)
	t.Chdir(proj)
	env := &Env{ConfigDir: d.cfg, Out: io.Discard, Err: io.Discard, Quiet: true}
	got, err := env.ContinueSession()
	require.NoError(t, err)
	assert.Equal(t, p, got, "the newest, but another project's")
}

// TestDoctorNamesWhatOldClientsMiss: sessions that 2.1.x resumes whole
// and Claude Code 2.0.x resumes short (2.1.328's parallel calls, whose
// results hang below their own calls: 2.0.50 drops all but one) are
// named for information (old_client), on one line with the one repair
// command; nothing needs attention (exit 0), --fix leaves them as they
// are, and once repaired they are named no more. A sound session is not
// named.
func TestDoctorNamesWhatOldClientsMiss(t *testing.T) {
	d := newDoctorDir(t)
	proj := d.dir("p")
	par, _ := d.add("parallel-tools", proj, "", time.Hour, nil)
	ooo, _ := d.add("parallel-out-of-order", proj, "", time.Hour, nil)
	sound, _ := d.add("multi-turn", proj, "", time.Hour, nil)
	r, _, err := d.run(DoctorOptions{})
	require.NoError(t, err, "nothing needs attention")
	k := kinds(r)
	assert.Equal(t, []doctor.Kind{doctor.OldClient}, k[par])
	assert.Equal(t, []doctor.Kind{doctor.OldClient}, k[ooo])
	assert.Empty(t, k[sound])
	assert.Zero(t, r.NeedsAttention)
	for _, f := range r.Findings {
		require.Len(t, f.Problems, 1)
		assert.Equal(t, validate.SideBranchCalls, f.Problems[0].Code)
		assert.Equal(t, validate.Warning, f.Problems[0].Severity)
		assert.Equal(t, doctor.Fix{Kind: doctor.FixRepair, Lossless: true}, f.Fix)
		assert.False(t, f.NeedsAttention)
		assert.True(t, strings.HasSuffix(f.Command, " repair "+f.SessionID), f.Command)
		assert.Contains(t, f.Message, fmt.Sprintf("(line %d)", f.Problems[0].Line))
	}
	txt, err := d.text(DoctorOptions{})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(txt), "\n")
	require.Len(t, lines, 1, txt)
	assert.True(t, strings.HasPrefix(lines[0], "old client: 2.0.50 resumes 2 sessions short that 2.1.x resumes whole"), lines[0])
	assert.True(t, strings.HasSuffix(lines[0], " repair "+par+" "+ooo), lines[0])

	before := filesAndTimes(t, d.root)
	r, _, err = d.run(DoctorOptions{Fix: true})
	require.NoError(t, err)
	assert.Empty(t, r.Fixed, "--fix applies what needs attention only")
	assert.Equal(t, before, filesAndTimes(t, d.root))

	var out, errb bytes.Buffer
	env := &Env{ConfigDir: d.cfg, Out: &out, Err: &errb, Quiet: true, Command: "repair"}
	require.NoError(t, env.RunRepair(par, Dest{}), errb.String())
	r, _, err = d.run(DoctorOptions{})
	require.NoError(t, err)
	k = kinds(r)
	assert.Empty(t, k[par], "repaired: 2.0.x misses nothing")
	assert.Equal(t, []doctor.Kind{doctor.OldClient}, k[ooo])
}

// TestDoctorAdviceForAGoneProject: a session too big to resume, of a
// project whose folder is gone, was told to resume its fitted copy "in
// /old/path", a folder that no longer exists. Each finding of a session of
// a gone project (too_big, empty_newest, broken, due_for_deletion) that
// sends the user to the project's folder says to move the project first
// (its project_gone finding's command), and no command cds into it.
func TestDoctorAdviceForAGoneProject(t *testing.T) {
	d := newDoctorDir(t)
	gone := filepath.Join(d.root, "work", "oldname")
	d.add("multi-turn", gone, "", 3*time.Hour, huge())
	d.add("multi-turn", gone, "", 2*time.Hour, dangle())
	d.add("multi-turn", gone, "", 40*24*time.Hour, nil)
	_, p := d.add("multi-turn", gone, "", time.Hour, nil)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(p), "0badc0de-0000-4000-8000-000000000000.jsonl"), nil, 0o600))
	r, _, err := d.run(DoctorOptions{})
	require.Error(t, err)
	kinds := map[doctor.Kind]bool{}
	for _, f := range r.Findings {
		kinds[f.Kind] = true
		assert.NotContains(t, f.Command, "cd "+gone, "%s: a command that cds into the gone folder", f.Kind)
		if f.Kind == doctor.ProjectGone {
			continue
		}
		for _, w := range []string{"in " + gone + ")", "in " + gone + " ", "in " + gone + ";", "in " + gone + ":"} {
			if strings.Contains(f.Message, w) {
				assert.Contains(t, f.Message, "move --project", "%s: sends the user into the gone folder without the move: %s", f.Kind, f.Message)
			}
		}
	}
	for _, k := range []doctor.Kind{doctor.ProjectGone, doctor.TooBig, doctor.EmptyNewest, doctor.Broken, doctor.DueForDeletion} {
		assert.True(t, kinds[k], "no %s finding: %+v", k, r.Findings)
	}
}
