package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sandbox is a config dir holding one generated session, its mtime an
// hour back so that the live-session guard lets in-place writes through.
type sandbox struct {
	env  *Env
	out  *bytes.Buffer
	errb *bytes.Buffer
	id   string
	path string
	dir  string
}

func newSandbox(t *testing.T, name string) *sandbox {
	t.Helper()
	cfg := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "sessions", "2.1.328", name)
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	f, err := chain.LoadBytes(src, b)
	require.NoError(t, err)
	id := ""
	for _, e := range f.Entries {
		if e.SessionID() != "" {
			id = e.SessionID()
			break
		}
	}
	dir := filepath.Join(cfg, "projects", "-work-project")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, id+".jsonl")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	sb := &sandbox{out: &bytes.Buffer{}, errb: &bytes.Buffer{}, id: id, path: path, dir: dir}
	sb.env = &Env{ConfigDir: cfg, JSON: true, Out: sb.out, Err: sb.errb}
	return sb
}

func (sb *sandbox) result(t *testing.T) WriteResult {
	t.Helper()
	var r WriteResult
	require.NoError(t, json.Unmarshal(sb.out.Bytes(), &r), "output: %s", sb.out.String())
	sb.out.Reset()
	return r
}

// snapshot hashes every file under the config dir.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = string(b)
		return err
	}))
	return m
}

var strip = OpSpec{StripThinking: true}

func TestDestinations(t *testing.T) {
	t.Run("in place with a backup", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		orig, _ := os.ReadFile(sb.path)
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{}))
		r := sb.result(t)
		require.NotNil(t, r.Backup)
		assert.Equal(t, sb.path, r.Path)
		assert.Less(t, r.BytesAfter, r.BytesBefore)
		now, _ := os.ReadFile(sb.path)
		assert.NotEqual(t, orig, now)
		backed, err := os.ReadFile(filepath.Join(*r.Backup, sb.id+".jsonl"))
		require.NoError(t, err)
		assert.Equal(t, orig, backed, "the backup holds the original")
		st, err := os.Stat(filepath.Join(*r.Backup, sb.id+".jsonl"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	})
	t.Run("--new leaves the original", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		before := snapshot(t, sb.env.ConfigDir)
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{New: true}))
		r := sb.result(t)
		assert.Nil(t, r.Backup)
		assert.NotEqual(t, sb.id, r.SessionID)
		assert.Equal(t, filepath.Join(sb.dir, r.SessionID+".jsonl"), r.Path)
		after := snapshot(t, sb.env.ConfigDir)
		for p, c := range before {
			assert.Equal(t, c, after[p], "%s changed", p)
		}
		st, err := os.Stat(r.Path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		assert.Equal(t, "claude --resume "+r.SessionID, r.ResumeCommand)
	})
	t.Run("-o PATH touches nothing else", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		before := snapshot(t, sb.env.ConfigDir)
		out := filepath.Join(t.TempDir(), "out.jsonl")
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{Output: out}))
		r := sb.result(t)
		assert.Equal(t, out, r.Path)
		assert.Equal(t, before, snapshot(t, sb.env.ConfigDir))
		st, err := os.Stat(out)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		assert.Equal(t, r.BytesAfter, st.Size())
	})
	t.Run("-o - writes to stdout", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		sb.env.JSON = false
		require.NoError(t, sb.env.RunOps(sb.id, OpSpec{}, Dest{Output: "-"}))
		orig, _ := os.ReadFile(sb.path)
		assert.Equal(t, orig, sb.out.Bytes(), "no operation: byte-identical")
	})
	t.Run("--dry-run changes nothing and reports", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		before := snapshot(t, sb.env.ConfigDir)
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{DryRun: true}))
		r := sb.result(t)
		assert.True(t, r.DryRun)
		assert.Equal(t, 3, r.Removed, "three thinking entries")
		assert.Less(t, r.BytesAfter, r.BytesBefore)
		assert.Equal(t, before, snapshot(t, sb.env.ConfigDir))
	})
	t.Run("--dry-run --diff prints a unified diff", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		sb.env.JSON = false
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{DryRun: true, Diff: true}))
		s := sb.out.String()
		assert.Contains(t, s, "--- "+sb.path)
		assert.Contains(t, s, "@@ -")
		assert.Regexp(t, `(?m)^-\{"parentUuid"`, s)
		assert.Regexp(t, `(?m)^\+.*"isSidechain"`, s)
		assert.Contains(t, s, "nothing was written")
	})
}

// brokenOp removes a tool_result entry alone: it introduces an error that
// the gate must stop.
type brokenOp struct{}

func (brokenOp) Name() string { return "broken" }
func (brokenOp) Apply(t *ops.Txn) error {
	f := t.S.Main
	for i := range f.Entries {
		if f.Entries[i].IsToolResult() {
			t.Drop(f, i)
			return nil
		}
	}
	return fmt.Errorf("no tool result")
}

func TestGateRefusesIntroducedErrors(t *testing.T) {
	sb := newSandbox(t, "tools.jsonl")
	before := snapshot(t, sb.env.ConfigDir)
	for _, d := range []Dest{{}, {New: true}, {Output: filepath.Join(t.TempDir(), "x.jsonl")}} {
		err := sb.env.runWrite(sb.id, d, func(*chain.Session) (ops.Pipeline, error) { return ops.Pipeline{brokenOp{}}, nil })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "would introduce")
		assert.Contains(t, sb.errb.String(), sb.path+" (after broken):") // the problems are printed
		assert.Contains(t, sb.errb.String(), "has no tool_result")
		assert.Equal(t, before, snapshot(t, sb.env.ConfigDir), "nothing written")
		if d.Output != "" {
			assert.NoFileExists(t, d.Output)
		}
	}
}

func TestPreexistingProblemsDoNotBlock(t *testing.T) {
	sb := newSandbox(t, "multi-turn.jsonl")
	// append a torn line: an error already in the input
	fh, err := os.OpenFile(sb.path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(`{"type":"user","uuid":"torn`)
	require.NoError(t, err)
	fh.Close()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(sb.path, old, old))
	require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{}))
	r := sb.result(t)
	assert.Equal(t, 1, r.Preexisting)
	b, _ := os.ReadFile(sb.path)
	assert.True(t, strings.HasSuffix(string(b), `{"type":"user","uuid":"torn`), "the torn line is kept verbatim")
}

func TestBackupRestoreUndo(t *testing.T) {
	sb := newSandbox(t, "multi-turn.jsonl")
	orig, _ := os.ReadFile(sb.path)
	require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{}))
	sb.result(t)
	stripped, _ := os.ReadFile(sb.path)
	require.NotEqual(t, orig, stripped)

	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(sb.path, old, old))
	require.NoError(t, sb.env.RunRestore(sb.id, "", false))
	sb.out.Reset()
	now, _ := os.ReadFile(sb.path)
	assert.Equal(t, orig, now, "restore brings the original back")

	// the restore took a backup of the stripped state: undo it
	require.NoError(t, os.Chtimes(sb.path, old, old))
	require.NoError(t, sb.env.RunRestore(sb.id, "", false))
	sb.out.Reset()
	now, _ = os.ReadFile(sb.path)
	assert.Equal(t, stripped, now, "restoring the restore's backup undoes it")

	require.NoError(t, sb.env.RunBackups(sb.id, false))
	var list []BackupJSON
	require.NoError(t, json.Unmarshal(sb.out.Bytes(), &list))
	require.Len(t, list, 3)
	assert.Equal(t, "restore", list[0].Operation)
	assert.Equal(t, "strip-thinking", list[2].Operation)
}

func TestLiveSessionGuard(t *testing.T) {
	t.Run("a running client names the session", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		reg := filepath.Join(sb.env.ConfigDir, "sessions")
		require.NoError(t, os.MkdirAll(reg, 0o700))
		entry := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/work/project","status":"idle","kind":"interactive"}`, os.Getpid(), sb.id)
		require.NoError(t, os.WriteFile(filepath.Join(reg, fmt.Sprintf("%d.json", os.Getpid())), []byte(entry), 0o600))
		before := snapshot(t, sb.dir)
		err := sb.env.RunOps(sb.id, strip, Dest{})
		require.Error(t, err)
		// the fact the command layer words ("close Claude Code or pass
		// --force": internal/cli's tests hold the words)
		var le *backup.LiveError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, os.Getpid(), le.PID)
		assert.Equal(t, "/work/project", le.Cwd)
		assert.Equal(t, before, snapshot(t, sb.dir))
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{Force: true}))
	})
	t.Run("a file modified seconds ago", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		now := time.Now()
		require.NoError(t, os.Chtimes(sb.path, now, now))
		err := sb.env.RunOps(sb.id, strip, Dest{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "modified")
	})
	t.Run("other destinations are not guarded", func(t *testing.T) {
		sb := newSandbox(t, "multi-turn.jsonl")
		now := time.Now()
		require.NoError(t, os.Chtimes(sb.path, now, now))
		require.NoError(t, sb.env.RunOps(sb.id, strip, Dest{New: true}))
	})
}

func TestDiffIgnoreUUIDsOfAClone(t *testing.T) {
	sb := newSandbox(t, "tools.jsonl")
	require.NoError(t, sb.env.RunClone(sb.id, BranchOptions{}, Dest{}))
	r := sb.result(t)
	err := sb.env.RunDiff(DiffOptions{A: sb.id, B: r.SessionID, IgnoreUUIDs: true})
	assert.NoError(t, err, "a clone diffs empty against its original when UUIDs are ignored: %s", sb.out.String())
	sb.out.Reset()
	err = sb.env.RunDiff(DiffOptions{A: sb.id, B: r.SessionID})
	var ec interface{ ExitCode() int }
	require.ErrorAs(t, err, &ec)
	assert.Equal(t, 1, ec.ExitCode())
}

func TestCloneEntersSessionsIndex(t *testing.T) {
	sb := newSandbox(t, "multi-turn.jsonl")
	idx := filepath.Join(sb.dir, "sessions-index.json")
	require.NoError(t, os.WriteFile(idx, []byte(`{"version":1,"entries":[{"sessionId":"`+sb.id+`","fullPath":"`+sb.path+`","messageCount":7,"firstPrompt":"What is a JSONL file?"}],"originalPath":"/work/project"}`), 0o600))
	require.NoError(t, sb.env.RunClone(sb.id, BranchOptions{}, Dest{}))
	r := sb.result(t)
	b, err := os.ReadFile(idx)
	require.NoError(t, err)
	var doc struct {
		Entries []map[string]any `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Entries, 2)
	assert.Equal(t, r.SessionID, doc.Entries[1]["sessionId"])
	assert.Equal(t, r.Path, doc.Entries[1]["fullPath"])
	assert.Equal(t, "What is a JSONL file?", doc.Entries[1]["firstPrompt"])
	assert.EqualValues(t, 7, doc.Entries[1]["messageCount"])
}

// TestCloneNewWritesManySubagents clones a session with 21 subagent
// transcripts (the real one and 20 copies under other agent ids), which
// writeNew writes a few at a time: every one must arrive, remapped and
// valid, with its meta.json (run it with -race too).
func TestCloneNewWritesManySubagents(t *testing.T) {
	sb := newSandbox(t, "subagent.jsonl")
	src := filepath.Join("..", "..", "testdata", "sessions", "2.1.328", "subagent", "subagents")
	dstDir := filepath.Join(sb.dir, sb.id, "subagents")
	require.NoError(t, os.MkdirAll(dstDir, 0o700))
	tr, err := os.ReadFile(filepath.Join(src, "agent-a1eb358aa10f9c9a1.jsonl"))
	require.NoError(t, err)
	meta, err := os.ReadFile(filepath.Join(src, "agent-a1eb358aa10f9c9a1.meta.json"))
	require.NoError(t, err)
	names := []string{"a1eb358aa10f9c9a1"}
	for i := 0; i < 20; i++ {
		names = append(names, fmt.Sprintf("a1eb358aa10f9c9%02d", i))
	}
	for _, n := range names {
		b := bytes.ReplaceAll(tr, []byte("a1eb358aa10f9c9a1"), []byte(n))
		require.NoError(t, os.WriteFile(filepath.Join(dstDir, "agent-"+n+".jsonl"), b, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dstDir, "agent-"+n+".meta.json"), meta, 0o600))
	}
	require.NoError(t, sb.env.RunClone(sb.id, BranchOptions{}, Dest{}))
	r := sb.result(t)
	newDir := filepath.Join(sb.dir, r.SessionID, "subagents")
	for _, n := range names {
		p := filepath.Join(newDir, "agent-"+n+".jsonl")
		b, err := os.ReadFile(p)
		require.NoError(t, err, "subagent %s", n)
		assert.Equal(t, len(tr), len(b), "ids keep their length")
		f, err := chain.LoadBytes(p, b)
		require.NoError(t, err)
		ids := 0
		for _, e := range f.Entries {
			if e.UUID() != "" {
				ids++
				assert.False(t, bytes.Contains(tr, []byte(e.UUID())), "%s: uuid %s is not fresh", n, e.UUID())
			}
		}
		assert.Positive(t, ids)
		_, err = os.Stat(filepath.Join(newDir, "agent-"+n+".meta.json"))
		assert.NoError(t, err)
	}
	s, err := chain.Load(r.Path)
	require.NoError(t, err)
	defer s.Close()
	assert.Len(t, s.Subagents, len(names))
}

// TestResumeCommandRunsWhereTheClientLooks (trial finding, 2026-11-28): a
// new session's resume command runs in the working directory the session
// records (the client looks for a session in the folder of the directory
// it runs in), as move's does, and says when that directory is not on
// this machine; a session in a folder that is not its directory's keeps
// the bare command. A member per case.
func TestResumeCommandRunsWhereTheClientLooks(t *testing.T) {
	here := t.TempDir()
	gone := filepath.Join(here, "gone")
	for _, c := range []struct {
		name, cwd, folder string
		cd, note          bool
	}{
		{"in its directory's folder", here, chain.ProjectSlug(here), true, false},
		{"its directory not on this machine", gone, chain.ProjectSlug(gone), true, true},
		{"in another folder", here, "-elsewhere", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			const id = "0b7e5c1a-1111-4222-8333-944455556660"
			p := filepath.Join(t.TempDir(), "projects", c.folder, id+".jsonl")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			line := `{"type":"user","cwd":` + strconv.Quote(c.cwd) + `,"sessionId":"` + id + `","uuid":"0b7e5c1a-1111-4222-8333-944455556661","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n"
			require.NoError(t, os.WriteFile(p, []byte(line), 0o600))
			cmd, notes := resumeCommand(p, id, nil)
			if c.cd {
				assert.Equal(t, CdAnd(c.cwd, "claude --resume "+id), cmd)
			} else {
				assert.Equal(t, "claude --resume "+id, cmd)
			}
			assert.Equal(t, c.note, len(notes) == 1, "notes: %q", notes)
		})
	}
}
