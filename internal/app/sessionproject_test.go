package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cdSession adds a session that ran in a, then moved to b with /cd (the
// client appends a "relocated" entry naming b), filed under folder; it
// returns the id and path.
func (d *doctorDir) cdSession(a, b, folder string, age time.Duration) (string, string) {
	id, p := d.add("multi-turn", a, folder, age, nil)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(d.t, err)
	_, err = fmt.Fprintf(f, `{"type":"relocated","sessionId":%q,"relocatedCwd":%q}`+"\n", id, b)
	require.NoError(d.t, err)
	require.NoError(d.t, f.Close())
	m := time.Now().Add(-age)
	require.NoError(d.t, os.Chtimes(p, m, m))
	return id, p
}

func (d *doctorDir) env(out, errb io.Writer) *Env {
	return &Env{ConfigDir: d.cfg, Out: out, Err: errb, Quiet: true}
}

// lsRows is `ls --json` (with --project when project is not "").
func (d *doctorDir) lsRows(project string) ([]SessionSummary, error) {
	var out bytes.Buffer
	e := d.env(&out, io.Discard)
	e.JSON = true
	if err := e.RunLs(LsOptions{Project: project}); err != nil {
		return nil, err
	}
	var rows []SessionSummary
	require.NoError(d.t, json.Unmarshal(out.Bytes(), &rows))
	return rows, nil
}

func ids(rows []SessionSummary) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// TestOneProjectRulePerSession: which project a session belongs to has one
// rule, the client's (chain.RecordedCwd: the last relocatedCwd of the
// tail after /cd, else the first cwd of the head), and every place that
// asks follows it; each subtest is one member of that family.
func TestOneProjectRulePerSession(t *testing.T) {
	t.Run("move keeps the cwd recorded before /cd", func(t *testing.T) {
		// a /cd session still filed in its old folder: doctor says move it
		// to the folder of its relocatedCwd; the move changes its folder,
		// not a byte of it (the cwd of its first turns was a)
		d := newDoctorDir(t)
		a, b := d.dir("a"), d.dir("b")
		id, p := d.cdSession(a, b, "", time.Hour)
		before, err := os.ReadFile(p)
		require.NoError(t, err)
		r, _, _ := d.run(DoctorOptions{})
		require.Len(t, r.Findings, 1)
		require.Equal(t, doctor.Stranded, r.Findings[0].Kind)
		require.Equal(t, b, r.Findings[0].Fix.To)
		var out bytes.Buffer
		require.NoError(t, d.env(&out, io.Discard).RunMove(MoveOptions{Session: id, To: b}))
		after, err := os.ReadFile(filepath.Join(d.cfg, "projects", chain.ProjectSlug(b), id+".jsonl"))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(before, after), "the move rewrote the session:\n%s", out.String())
		assert.True(t, bytes.Contains(after, []byte(`"cwd":"`+a+`"`)), "the cwd of the turns before /cd is gone")
		assert.NoFileExists(t, p)
		r, _, err = d.run(DoctorOptions{})
		assert.NoError(t, err, "%+v", r.Findings)
	})
	t.Run("move --project takes the sessions that record the project", func(t *testing.T) {
		// a's folder holds a session of a and a /cd session now b's:
		// moving project a to c takes a's only, and leaves b's its bytes
		d := newDoctorDir(t)
		a, b, c := d.dir("a"), d.dir("b"), filepath.Join(d.root, "c")
		own, _ := d.add("multi-turn", a, "", time.Hour, nil)
		cd, p := d.cdSession(a, b, "", time.Hour)
		before, err := os.ReadFile(p)
		require.NoError(t, err)
		var out bytes.Buffer
		e := d.env(&out, io.Discard)
		e.JSON = true
		require.NoError(t, e.RunMove(MoveOptions{Project: a, To: c}))
		var res MoveResult
		require.NoError(t, json.Unmarshal(out.Bytes(), &res))
		var moved []string
		for _, s := range res.Sessions {
			moved = append(moved, s.SessionID)
		}
		assert.Equal(t, []string{own}, moved, "the /cd session is b's")
		after, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(before, after), "%s changed", cd)
	})
	t.Run("ls shows the project the client takes it for", func(t *testing.T) {
		d := newDoctorDir(t)
		a, b := d.dir("a"), d.dir("b")
		id, _ := d.cdSession(a, b, chain.ProjectSlug(b), time.Hour)
		rows, err := d.lsRows("")
		require.NoError(t, err)
		require.Len(t, rows, 1)
		assert.Equal(t, b, rows[0].Project, "ls' PROJECT of %s", id)
		fs := doctor.Check(doctor.Options{ConfigDir: d.cfg, Sessions: []string{rows[0].Path}})
		assert.Empty(t, fs, "doctor agrees: at home in b's folder")
	})
	t.Run("ls --project PATH selects by that project", func(t *testing.T) {
		d := newDoctorDir(t)
		a, b := d.dir("a"), d.dir("b")
		id, _ := d.cdSession(a, b, chain.ProjectSlug(b), time.Hour)
		rows, err := d.lsRows(b)
		require.NoError(t, err)
		assert.Equal(t, []string{id}, ids(rows))
		rows, err = d.lsRows(a)
		assert.Error(t, err, "a has no session: the /cd session is b's, got %v", ids(rows))
	})
	t.Run("a clone of a session named by its path goes to its project's folder", func(t *testing.T) {
		// outside the config dir, the new session is filed under the folder
		// the client looks in for the project: after /cd, b's
		d := newDoctorDir(t)
		a, b := d.dir("a"), d.dir("b")
		_, p := d.cdSession(a, b, "", time.Hour)
		out := filepath.Join(d.root, "elsewhere", filepath.Base(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
		require.NoError(t, os.Rename(p, out))
		require.NoError(t, d.env(io.Discard, io.Discard).RunClone(out, BranchOptions{}, Dest{}))
		got, _ := filepath.Glob(filepath.Join(d.cfg, "projects", "*", "*.jsonl"))
		require.Len(t, got, 1)
		assert.Equal(t, chain.ProjectSlug(b), filepath.Base(filepath.Dir(got[0])))
	})
	// two folders whose paths differ only where the slug writes '-'
	// ("my.app" and "my-app") share a project folder; the client lists a
	// session there only in the folder its recorded cwd names, when both
	// exist (2.1.332: "filtered from /resume: recorded cwd is a different
	// directory with the same project slug")
	sameSlug := func(t *testing.T) (d *doctorDir, p, q, ofP, ofQ string) {
		d = newDoctorDir(t)
		p, q = d.dir("my.app"), d.dir("my-app")
		require.Equal(t, chain.ProjectSlug(p), chain.ProjectSlug(q))
		ofP, _ = d.add("multi-turn", p, "", 2*time.Hour, nil)
		ofQ, _ = d.add("tools", q, "", time.Hour, nil) // the newest
		return
	}
	t.Run("--continue default skips a same-slug other folder's session", func(t *testing.T) {
		d, p, q, ofP, ofQ := sameSlug(t)
		for _, c := range []struct{ wd, want string }{{p, ofP}, {q, ofQ}} {
			t.Chdir(c.wd)
			got, err := d.env(io.Discard, io.Discard).ContinueSession()
			require.NoError(t, err)
			assert.Equal(t, c.want, strings.TrimSuffix(filepath.Base(got), ".jsonl"), "in %s", c.wd)
		}
	})
	t.Run("pick lists only the folder's own sessions", func(t *testing.T) {
		d, p, _, ofP, _ := sameSlug(t)
		t.Chdir(p)
		var errb bytes.Buffer
		e := d.env(io.Discard, &errb)
		e.In = strings.NewReader("1\n")
		got, err := e.PickSession()
		require.NoError(t, err)
		assert.Equal(t, ofP, strings.TrimSuffix(filepath.Base(got), ".jsonl"))
		assert.Equal(t, 1, strings.Count(errb.String(), "\n  1  "), "one session listed:\n%s", errb.String())
		assert.NotContains(t, errb.String(), "  2  ", "one session listed:\n%s", errb.String())
	})
	t.Run("ls --project PATH of a same-slug folder", func(t *testing.T) {
		d, p, q, ofP, ofQ := sameSlug(t)
		rows, err := d.lsRows(p)
		require.NoError(t, err)
		assert.Equal(t, []string{ofP}, ids(rows))
		rows, err = d.lsRows(q)
		require.NoError(t, err)
		assert.Equal(t, []string{ofQ}, ids(rows))
	})
}
