//go:build unix

package backup

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeSessionEntry(t *testing.T, configDir string, pid int, sessionID string) {
	t.Helper()
	dir := filepath.Join(configDir, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	data, err := json.Marshal(map[string]any{"pid": pid, "sessionId": sessionID, "cwd": "/home/u/proj", "status": "busy", "kind": "interactive"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), data, 0o600))
}

func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

func TestCheckLive(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name    string
		setup   func(t *testing.T, e testEnv)
		path    func(e testEnv) string
		wantErr bool
	}{
		{name: "no sessions dir", setup: func(*testing.T, testEnv) {}},
		{name: "alive pid names session", wantErr: true,
			setup: func(t *testing.T, e testEnv) { writeSessionEntry(t, e.configDir, os.Getpid(), testSession) }},
		{name: "alive pid, other session",
			setup: func(t *testing.T, e testEnv) { writeSessionEntry(t, e.configDir, os.Getpid(), "other-session") }},
		{name: "dead pid names session",
			setup: func(t *testing.T, e testEnv) { writeSessionEntry(t, e.configDir, deadPID(t), testSession) }},
		{name: "malformed entry ignored",
			setup: func(t *testing.T, e testEnv) {
				require.NoError(t, os.MkdirAll(filepath.Join(e.configDir, "sessions"), 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(e.configDir, "sessions", "1.json"), []byte("{nope"), 0o600))
			}},
		{name: "file modified just now", wantErr: true,
			setup: func(t *testing.T, e testEnv) { require.NoError(t, os.Chtimes(e.main, now, now)) },
			path:  func(e testEnv) string { return e.main }},
		{name: "file modified a minute ago", setup: func(*testing.T, testEnv) {},
			path: func(e testEnv) string { return e.main }},
		{name: "missing file ignored", setup: func(*testing.T, testEnv) {},
			path: func(e testEnv) string { return e.main + ".missing" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.setup(t, e)
			path := ""
			if tc.path != nil {
				path = tc.path(e)
			}
			err := CheckLive(e.configDir, testSession, path, now)
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrLive)
			// the facts the command layer words (TestCLI holds the hints)
			var le *LiveError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, testSession, le.SessionID)
			if tc.path != nil { // written just now: Claude Code may be done with it
				assert.Zero(t, le.PID)
				assert.Equal(t, path, le.Path)
				assert.Less(t, le.Age, RecentWriteWindow)
				assert.Contains(t, le.Error(), "was modified")
			} else {
				assert.Equal(t, os.Getpid(), le.PID)
				assert.Contains(t, le.Error(), fmt.Sprintf("is open in Claude Code (pid %d", os.Getpid()))
			}
		})
	}
}

func TestApplyLiveGuard(t *testing.T) {
	e := newEnv(t)
	writeSessionEntry(t, e.configDir, os.Getpid(), testSession)
	plan := Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit",
		Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("new\n")}}}
	_, err := Apply(plan)
	require.ErrorIs(t, err, ErrLive)
	assert.Equal(t, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", readString(t, e.main))
	assert.NoDirExists(t, filepath.Join(e.configDir, "ccsurgeon", "backups", testSession), "no backup when refused")

	plan.Force = true
	_, err = Apply(plan)
	require.NoError(t, err)
	assert.Equal(t, "new\n", readString(t, e.main))
}

// TestApplyBackupRestoreUndo edits the main file, removes one sidecar and
// creates another, then restores (back to the original) and restores the
// restore's own backup (back to the edited state), byte for byte.
func TestApplyBackupRestoreUndo(t *testing.T) {
	e := newEnv(t)
	newSidecar := filepath.Join(e.projectDir, testSession, "subagents", "agent-new.jsonl")
	original := snapshotTree(t, e.configDir)
	t0 := time.Date(2026, 11, 21, 23, 45, 1, 123_000_000, time.UTC)

	res, err := Apply(Plan{
		ConfigDir: e.configDir, SessionID: testSession, Op: "strip thinking!",
		Now: func() time.Time { return t0 }, Force: true, // fake clock: skip the mtime guard
		Files: []FileWrite{
			{Path: e.main, Snapshot: snap(t, e.main), Render: str("{\"n\":1}\n{\"n\":3}\n")},
			{Path: e.sidecar, Snapshot: snap(t, e.sidecar), Remove: true},
			{Path: newSidecar, Render: str("{\"agent\":2}\n")},
		},
	})
	require.NoError(t, err)
	wantDir := filepath.Join(e.configDir, "ccsurgeon", "backups", testSession, "20261121T234501.123Z-strip-thinking")
	assert.Equal(t, wantDir, res.BackupDir)
	assert.Equal(t, []string{e.main, newSidecar}, res.Written)
	assert.Equal(t, []string{e.sidecar}, res.Removed)
	requireNoTemps(t, e.configDir)

	// Backup layout, modes and manifest.
	assert.Equal(t, readString(t, filepath.Join(wantDir, testSession+".jsonl")), original["projects/-home-u-proj/"+testSession+".jsonl"])
	assert.FileExists(t, filepath.Join(wantDir, testSession, "subagents", "agent-a1.jsonl"))
	for _, p := range []string{testSession + ".jsonl", testSession + "/subagents/agent-a1.jsonl", "manifest.json"} {
		assert.Equal(t, os.FileMode(0o600), perm(t, filepath.Join(wantDir, p)), p)
	}
	for _, p := range []string{wantDir, filepath.Dir(wantDir), filepath.Join(wantDir, testSession, "subagents")} {
		assert.Equal(t, os.FileMode(0o700), perm(t, p), p)
	}
	assert.Equal(t, os.FileMode(0o600), perm(t, newSidecar))
	list, err := List(e.configDir, testSession)
	require.NoError(t, err)
	require.Len(t, list, 1)
	b := list[0]
	assert.Equal(t, "strip-thinking", b.Op)
	assert.True(t, b.Time.Equal(t0))
	assert.Equal(t, e.projectDir, b.ProjectDir)
	require.Len(t, b.Files, 2)
	assert.Equal(t, testSession+".jsonl", b.Files[0].Rel)
	assert.Equal(t, e.main, b.Files[0].Path)
	assert.EqualValues(t, 24, b.Files[0].Size)
	assert.Equal(t, xxh128Hex(t, filepath.Join(wantDir, testSession+".jsonl")), b.Files[0].XXH128)
	assert.Empty(t, b.Files[0].SHA256, "version 2 records one checksum")
	assert.EqualValues(t, 24+12, b.Size())
	require.Len(t, b.Created, 1)
	assert.Equal(t, testSession+"/subagents/agent-new.jsonl", b.Created[0].Rel)

	edited := snapshotTree(t, e.configDir)
	assert.NotEqual(t, original, edited)

	// Restore the newest backup (the edit's) → original state.
	backdate(t, e.main, newSidecar)
	res2, _, err := Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir})
	require.NoError(t, err)
	assert.Equal(t, original, snapshotTree(t, e.configDir))
	assert.NotEmpty(t, res2.BackupDir)
	requireNoTemps(t, e.configDir)

	list, err = List(e.configDir, testSession)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "restore", list[0].Op, "newest first")

	// Undo the restore → edited state again.
	backdate(t, e.main, e.sidecar)
	_, _, err = Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir, Which: filepath.Base(res2.BackupDir)})
	require.NoError(t, err)
	assert.Equal(t, edited, snapshotTree(t, e.configDir))

	// And back to the original via a prefix of the first backup's name.
	backdate(t, e.main, newSidecar)
	_, _, err = Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir, Which: "20261121T234501"})
	require.NoError(t, err)
	assert.Equal(t, original, snapshotTree(t, e.configDir))
}

func backdate(t *testing.T, paths ...string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for _, p := range paths {
		require.NoError(t, os.Chtimes(p, old, old))
	}
}

func TestRestoreRefusesDamagedBackup(t *testing.T) {
	e := newEnv(t)
	res, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit",
		Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("new\n")}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(res.BackupDir, testSession+".jsonl"), []byte("corrupt"), 0o600))
	_, _, err = Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir, Force: true})
	require.ErrorContains(t, err, "damaged")
	assert.Equal(t, "new\n", readString(t, e.main))
}

func TestApplyAbortsWhenSessionChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, e testEnv)
		early  bool // change before Apply starts instead of just before rename
	}{
		{name: "append before rename", change: func(t *testing.T, e testEnv) { appendLine(t, e.main) }},
		{name: "sidecar append before rename", change: func(t *testing.T, e testEnv) { appendLine(t, e.sidecar) }},
		{name: "touch before rename", change: func(t *testing.T, e testEnv) { backdate(t, e.main) }},
		{name: "append before apply", early: true, change: func(t *testing.T, e testEnv) { appendLine(t, e.main) }},
		{name: "new file appeared", change: func(t *testing.T, e testEnv) {
			writeOld(t, filepath.Join(e.projectDir, testSession, "subagents", "agent-new.jsonl"), "theirs\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			plan := Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit", Force: true, Files: []FileWrite{
				{Path: e.main, Snapshot: snap(t, e.main), Render: str("main edited\n")},
				{Path: e.sidecar, Snapshot: snap(t, e.sidecar), Render: str("sidecar edited\n")},
				{Path: filepath.Join(e.projectDir, testSession, "subagents", "agent-new.jsonl"), Render: str("new\n")},
			}}
			if tc.early {
				tc.change(t, e)
			} else {
				setHook(t, func(step string) {
					if step == "after-fsync" {
						tc.change(t, e)
					}
				})
			}
			before := snapshotTree(t, e.configDir)
			_, err := Apply(plan)
			require.ErrorIs(t, err, ErrChanged)
			var be *Error
			require.ErrorAs(t, err, &be)
			assert.True(t, strings.HasPrefix(be.Msg, "session changed while ccsurgeon was working"), be.Msg)
			assert.Contains(t, be.Hint, "retry")
			if tc.early {
				assert.Equal(t, before, snapshotTree(t, e.configDir))
			}
			assert.Equal(t, "{\"agent\":1}\n", readString(t, e.sidecar)[:12])
			assert.True(t, strings.HasPrefix(readString(t, e.main), "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n"))
			requireNoTemps(t, e.configDir)
			list, err := List(e.configDir, testSession)
			require.NoError(t, err)
			assert.Empty(t, list, "aborted edit leaves no backup")
		})
	}
}

func appendLine(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"appended\":true}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func TestApplyRenderFailureLeavesOriginal(t *testing.T) {
	for _, cause := range []error{syscall.ENOSPC, fmt.Errorf("parse error")} {
		t.Run(cause.Error(), func(t *testing.T) {
			e := newEnv(t)
			before := snapshotTree(t, e.configDir)
			_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit", Files: []FileWrite{
				{Path: e.main, Snapshot: snap(t, e.main), Render: str("fine\n")},
				{Path: e.sidecar, Snapshot: snap(t, e.sidecar), Render: failAfter(2<<20, cause)},
			}})
			require.ErrorIs(t, err, cause)
			if cause == syscall.ENOSPC {
				require.ErrorIs(t, err, ErrNoSpace)
			}
			assert.Equal(t, before, snapshotTree(t, e.configDir))
			requireNoTemps(t, e.configDir)
			list, _ := List(e.configDir, testSession)
			assert.Empty(t, list)
		})
	}
}

func TestApplyPrune(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// An interrupted backup (no manifest) is ignored by List and pruned
	// once stale.
	stale := filepath.Join(e.configDir, "ccsurgeon", "backups", testSession, "20250101T000000.000Z-edit")
	require.NoError(t, os.MkdirAll(stale, 0o700))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	for i := range 5 {
		_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: fmt.Sprintf("op%d", i), Keep: 3,
			Now:   func() time.Time { return t0.Add(time.Duration(i) * time.Hour) },
			Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str(fmt.Sprintf("v%d\n", i))}},
			Force: true,
		})
		require.NoError(t, err)
	}
	list, err := List(e.configDir, testSession)
	require.NoError(t, err)
	var ops []string
	for _, b := range list {
		ops = append(ops, b.Op)
	}
	// the 3 last made, and the original: the session before the first op
	assert.Equal(t, []string{"op4", "op3", "op2", "op0"}, ops)
	assert.NoDirExists(t, stale)
	// The newest backup holds the state before the last op.
	assert.Equal(t, "v3\n", readString(t, filepath.Join(list[0].Dir, testSession+".jsonl")))
}

func TestApplySameMillisecond(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2 {
		_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "x", Force: true,
			Now:   func() time.Time { return t0 },
			Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str(fmt.Sprint(i))}}})
		require.NoError(t, err)
	}
	list, err := List(e.configDir, testSession)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "20260101T000000.001Z-x", list[0].Name)
}

func TestFind(t *testing.T) {
	e := newEnv(t)
	_, err := Find(e.configDir, testSession, "")
	require.ErrorIs(t, err, ErrNoBackup)
	for i, ts := range []string{"2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "2026-01-02T10:00:00Z"} {
		tm, _ := time.Parse(time.RFC3339, ts)
		_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "op", Force: true,
			Now:   func() time.Time { return tm },
			Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str(fmt.Sprint(i))}}})
		require.NoError(t, err)
	}
	tests := []struct{ which, want, errSub string }{
		{which: "", want: "20260102T100000.000Z-op"},
		{which: "20260101T11", want: "20260101T110000.000Z-op"},
		{which: "20260101T100000.000Z-op", want: "20260101T100000.000Z-op"},
		{which: "20260101", errSub: "matches 2 backups"},
		{which: "1999", errSub: "no backup"},
	}
	for _, tc := range tests {
		b, err := Find(e.configDir, testSession, tc.which)
		if tc.errSub != "" {
			require.ErrorIs(t, err, ErrNoBackup, tc.which)
			assert.ErrorContains(t, err, tc.errSub)
			continue
		}
		require.NoError(t, err, tc.which)
		assert.Equal(t, tc.want, b.Name)
	}
}

func TestApplyValidation(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	tests := []struct {
		name string
		plan Plan
	}{
		{"bad session id", Plan{ConfigDir: e.configDir, SessionID: "../x", Files: []FileWrite{{Path: e.main}}}},
		{"file outside project", Plan{ConfigDir: e.configDir, SessionID: testSession,
			Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("")}, {Path: outside, Render: str("")}}}},
		{"duplicate file", Plan{ConfigDir: e.configDir, SessionID: testSession,
			Files: []FileWrite{{Path: e.main, Render: str("")}, {Path: e.main, Render: str("")}}}},
		{"no project dir", Plan{ConfigDir: e.configDir, SessionID: testSession, Files: []FileWrite{{Path: outside}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(tc.plan)
			require.Error(t, err)
		})
	}
	assert.Equal(t, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", readString(t, e.main))
}

func TestSanitizeOp(t *testing.T) {
	for in, want := range map[string]string{"strip-thinking": "strip-thinking", "a b/c": "a-b-c", "": "edit", "..": "edit", "x.y_z": "x.y_z"} {
		assert.Equal(t, want, sanitizeOp(in), in)
	}
}

// TestApplyCarriesOverLinesAppendedAtTheLastMoment: a writer that opens
// the file by name just before the rename appends to the old inode; the
// bytes are carried over to the new file.
func TestApplyCarriesOverLinesAppendedAtTheLastMoment(t *testing.T) {
	e := newEnv(t)
	TestHook = func(step string) {
		if step == "before-rename" {
			f, err := os.OpenFile(e.main, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.WriteString("{\"n\":4}\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
	}
	defer func() { TestHook = nil }()
	res, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit", Force: true,
		Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("{\"n\":1}\n")}}})
	require.NoError(t, err)
	assert.Equal(t, "{\"n\":1}\n{\"n\":4}\n", readString(t, e.main))
	require.Len(t, res.Notes, 1)
	assert.Contains(t, res.Notes[0], "carried over")
}

// TestApplyPruneBudget: beyond the byte budget the oldest backups go, but
// never the last made nor the original; what went is reported.
func TestApplyPruneBudget(t *testing.T) {
	e := newEnv(t)
	big := strings.Repeat("x", 1000) + "\n"
	var pruned []string
	for i := range 5 {
		res, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: fmt.Sprintf("op%d", i), Budget: 2500, Force: true,
			Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str(fmt.Sprintf("%d%s", i, big))}}})
		require.NoError(t, err)
		pruned = append(pruned, res.Pruned...)
	}
	list, err := List(e.configDir, testSession)
	require.NoError(t, err)
	var ops []string
	for _, b := range list {
		ops = append(ops, b.Op)
	}
	// op0's backup (the original, 24 bytes) and the two last made fit in 2500 bytes
	assert.Equal(t, []string{"op4", "op3", "op0"}, ops)
	assert.Len(t, pruned, 2)
}

// TestKeyForConfigDirThroughASymlink: a session named through a config dir
// that is a symlink has the same backups as named through its real path;
// a loose file's key holds its full path.
func TestKeyForConfigDirThroughASymlink(t *testing.T) {
	real := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(real, "projects", "-p"), 0o700))
	link := filepath.Join(t.TempDir(), "cfg")
	require.NoError(t, os.Symlink(real, link))
	assert.Equal(t, "s1", KeyFor(link, "s1", filepath.Join(real, "projects", "-p")))
	assert.Equal(t, "s1", KeyFor(real, "s1", filepath.Join(link, "projects", "-p")))
	a, b := KeyFor(real, "export", "/tmp/a"), KeyFor(real, "export", "/tmp/b")
	assert.NotEqual(t, a, b)
	assert.True(t, strings.HasPrefix(a, "export-"))
}

// Review finding: <config-dir>/ccsurgeon (or its backups/, or a session's
// folder in it) that is a symlink was written and purged through, and the
// unlock's "remove the folders if empty" unlinked a symlinked ccsurgeon/
// whatever it held: the backups were left where it pointed, out of reach
// of restore. Every write, restore and purge takes the lock first: the
// lock refuses such a link, and nothing is written, removed or unlinked.
func TestLockRefusesSymlinkedBackupFolders(t *testing.T) {
	for _, link := range []string{"ccsurgeon", filepath.Join("ccsurgeon", "backups"), filepath.Join("ccsurgeon", "backups", testSession)} {
		t.Run(link, func(t *testing.T) {
			e := newEnv(t)
			elsewhere := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "theirs"), []byte("x"), 0o600))
			p := filepath.Join(e.configDir, link)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			require.NoError(t, os.Symlink(elsewhere, p))
			_, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit",
				Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("new\n")}}})
			require.ErrorIs(t, err, ErrSymlink)
			_, err = Purge(e.configDir, testSession)
			if err == nil {
				_, err = PurgeOf(e.configDir, testSession, testSession, e.projectDir)
			}
			require.Equal(t, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", readString(t, e.main), "nothing written")
			fi, lerr := os.Lstat(p)
			require.NoError(t, lerr, "the link is still there")
			assert.NotZero(t, fi.Mode()&os.ModeSymlink)
			entries, _ := os.ReadDir(elsewhere)
			assert.Len(t, entries, 1, "nothing written or removed where it points")
		})
	}
}
