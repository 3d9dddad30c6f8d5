package ops_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// movedProject is a project that ran in OLD (sessions with subagents and
// tool-results, a sessions-index.json, history.jsonl prompts, memory/),
// to be moved to the env's cwd.
type movedProject struct {
	env      *harness.Env
	old, new string
	ids      []string // oldest first
}

// newMovedProject installs the generated sessions names as if they had run
// in OLD: each file's recorded cwd becomes OLD, and the files go to the
// project folder of OLD. The later a session in names, the newer its file.
func newMovedProject(t *testing.T, c harness.Client, names ...string) *movedProject {
	t.Helper()
	env := harness.NewEnv(t)
	mp := &movedProject{env: env, new: env.Cwd, old: filepath.Join(filepath.Dir(env.Cwd), "old name")}
	require.NoError(t, os.MkdirAll(mp.old, 0o755))
	oldDir := filepath.Join(env.ConfigDir, "projects", chain.ProjectSlug(mp.old))
	var hist, index bytes.Buffer
	index.WriteString(`{"version":1,"entries":[`)
	for n, name := range names {
		src := filepath.Join("..", "testdata", "sessions", c.Sessions, name+".jsonl")
		id, err := harness.SessionIDOf(src)
		require.NoError(t, err)
		gen := "/tmp/ccsurgeon-gen/" + c.Sessions + "/" + name + "/work/project"
		main := filepath.Join(oldDir, id+".jsonl")
		copyRelocated(t, src, main, gen, mp.old)
		side := strings.TrimSuffix(src, ".jsonl")
		_ = filepath.Walk(side, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(side, p)
			dst := filepath.Join(oldDir, id, rel)
			if !strings.Contains(rel, "/") && strings.HasPrefix(rel, "agent-") {
				dst = filepath.Join(oldDir, rel) // 2.0.x: beside the transcript
			}
			copyRelocated(t, p, dst, gen, mp.old)
			return nil
		})
		// older first: the last one is the newest session
		when := time.Now().Add(time.Duration(n-len(names)-1) * time.Hour)
		require.NoError(t, os.Chtimes(main, when, when))
		mp.ids = append(mp.ids, id)
		hist.WriteString(`{"display":"prompt of ` + name + `","pastedContents":{},"timestamp":1,"project":"` + mp.old + `","sessionId":"` + id + `"}` + "\n")
		if n > 0 {
			index.WriteString(",")
		}
		index.WriteString(`{"sessionId":"` + id + `","fullPath":"` + main + `","fileMtime":1,"firstPrompt":"x","messageCount":2,"projectPath":"` + mp.old + `","isSidechain":false}`)
	}
	index.WriteString(`],"originalPath":"` + mp.old + `"}`)
	hist.WriteString(`{"display":"another project","pastedContents":{},"timestamp":2,"project":"/somewhere/else"}` + "\n")
	require.NoError(t, os.WriteFile(filepath.Join(oldDir, "sessions-index.json"), index.Bytes(), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(env.ConfigDir, "history.jsonl"), hist.Bytes(), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(oldDir, "memory"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(oldDir, "memory", "MEMORY.md"), []byte("notes\n"), 0o600))
	return mp
}

func copyRelocated(t *testing.T, src, dst, from, to string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, bytes.ReplaceAll(b, []byte(from), []byte(to)), 0o600))
	old := time.Now().Add(-2 * time.Hour) // past the live guard's window
	require.NoError(t, os.Chtimes(dst, old, old))
}

// resumeFrom resumes id with the client run in dir.
func (mp *movedProject) resumeFrom(t *testing.T, c harness.Client, dir, id string) harness.ResumeResult {
	t.Helper()
	cwd := mp.env.Cwd
	mp.env.Cwd = dir
	defer func() { mp.env.Cwd = cwd }()
	path := filepath.Join(mp.env.ConfigDir, "projects", chain.ProjectSlug(dir), id+".jsonl")
	orig, err := os.ReadFile(path)
	require.NoError(t, err, "the session is in the project folder of %s", dir)
	st, _ := os.Stat(path)
	r := mp.env.ResumeErr(c, id)
	t.Logf("--resume in %s: %v", dir, r.Run.Duration)
	require.NoError(t, os.WriteFile(path, orig, 0o600)) // the probe turn goes
	require.NoError(t, os.Chtimes(path, st.ModTime(), st.ModTime()))
	require.True(t, r.OK(), "resume %s from %s: %s", id, dir, r)
	return r
}

func (mp *movedProject) move(t *testing.T, o app.MoveOptions) app.MoveResult {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app.Env{ConfigDir: mp.env.ConfigDir, JSON: true, Out: &out, Err: &errb}
	require.NoError(t, a.RunMove(o), "stderr: %s", errb.String())
	var r app.MoveResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &r), out.String())
	return r
}

// continueFrom runs `claude --continue` in dir and returns the messages it
// sent (without the probe).
func (mp *movedProject) continueFrom(t *testing.T, c harness.Client, dir string) []json.RawMessage {
	t.Helper()
	cwd := mp.env.Cwd
	mp.env.Cwd = dir
	defer func() { mp.env.Cwd = cwd }()
	// the client appends the probe to the session it continues, and
	// 2.0.50 starts files of its own: put the folder back as it was
	folder := filepath.Join(mp.env.ConfigDir, "projects", chain.ProjectSlug(dir))
	type saved struct {
		data []byte
		mod  time.Time
	}
	files := map[string]saved{}
	_ = filepath.Walk(folder, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = saved{b, fi.ModTime()}
		}
		return nil
	})
	defer func() {
		_ = filepath.Walk(folder, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				if f, ok := files[p]; !ok {
					require.NoError(t, os.Remove(p))
				} else {
					require.NoError(t, os.WriteFile(p, f.data, 0o600))
					require.NoError(t, os.Chtimes(p, f.mod, f.mod))
				}
			}
			return nil
		})
	}()
	n := len(mp.env.Mock.Requests())
	run, err := mp.env.Exec(c, harness.ResumePrompt, "--continue")
	t.Logf("--continue in %s: %v", dir, run.Duration)
	require.NoError(t, err)
	require.Equal(t, 0, run.ExitCode, run.Stderr)
	for _, rq := range mp.env.Mock.Requests()[n:] {
		if rq.Kind == harness.KindMain && strings.HasPrefix(rq.Path, "/v1/messages") {
			return harness.StripPrompt(rq.Messages(), harness.ResumePrompt)
		}
	}
	t.Fatalf("--continue from %s sent no request", dir)
	return nil
}

// twinNormalizer maps the paths of two environments holding the same
// project to the same placeholders.
func twinNormalizer(a, b *movedProject) *harness.Normalizer {
	n := harness.NewNormalizer(a.env, a.ids...)
	for _, mp := range []*movedProject{a, b} {
		for _, p := range []string{mp.old, mp.new} {
			n.Replace[p] = "<CWD>"
			n.Replace[chain.ProjectSlug(p)] = "<SLUG>"
		}
		n.Replace[mp.env.Home] = "<HOME>"
	}
	return n
}

// TestMoveProjectResumesFromTheNewFolder: a project renamed on disk, its
// sessions moved with `move --project OLD --to NEW`. Two copies of the same
// project: one left in OLD (the client run there is the reference), one
// moved. From NEW, `--continue` resumes the session it resumed from OLD
// (2.1.328: the newest file; 2.0.50: the newest entry), every session
// resumes with the messages it sent from OLD, and the subagent
// transcripts, tool-results, index entries, history prompts and memory
// went along.
func TestMoveProjectResumesFromTheNewFolder(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			names := []string{"subagent", "tools"}
			if c.IsOld() {
				names = []string{"subagent", "multi-turn"} // 2.0.50 resumes tools.jsonl slowly
			}
			ref, mp := newMovedProject(t, c, names...), newMovedProject(t, c, names...)
			norm := twinNormalizer(ref, mp)
			contBefore := ref.continueFrom(t, c, ref.old)
			before := map[string]harness.ResumeResult{}
			for _, id := range ref.ids {
				before[id] = ref.resumeFrom(t, c, ref.old, id)
			}
			if !c.IsOld() {
				assert.Empty(t, norm.DiffMessages(before[ref.ids[len(ref.ids)-1]].Messages, contBefore), "2.1.328 continues the newest file")
			}

			oldDir := filepath.Join(mp.env.ConfigDir, "projects", chain.ProjectSlug(mp.old))
			var sidecars []string
			_ = filepath.Walk(oldDir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					rel, _ := filepath.Rel(oldDir, p)
					sidecars = append(sidecars, rel)
				}
				return nil
			})
			r := mp.move(t, app.MoveOptions{Project: mp.old, To: mp.new})
			require.Len(t, r.Sessions, len(names))
			assert.Equal(t, len(names), r.HistoryPrompts)
			assert.Equal(t, len(names), r.IndexEntries)
			_, err := os.Stat(oldDir)
			assert.True(t, os.IsNotExist(err), "nothing left in the old folder")
			newDir := mp.env.ProjectDir()
			for _, rel := range sidecars {
				if rel != "sessions-index.json" {
					assert.FileExists(t, filepath.Join(newDir, rel))
				}
			}

			// --continue from the new folder picks what it picked from the old one
			assert.Empty(t, norm.DiffMessages(contBefore, mp.continueFrom(t, c, mp.new)), "--continue after the move")
			for _, id := range mp.ids {
				after := mp.resumeFrom(t, c, mp.new, id)
				harness.AssertSameConversation(t, norm, before[id], after)
				b, err := os.ReadFile(filepath.Join(newDir, id+".jsonl"))
				require.NoError(t, err)
				assert.NotContains(t, string(b), `"cwd":"`+mp.old, "every cwd is rewritten")
			}
			// subagents and tool-results went along
			sub, _ := filepath.Glob(filepath.Join(newDir, "*", "subagents", "agent-*.jsonl"))
			legacy, _ := filepath.Glob(filepath.Join(newDir, "agent-*.jsonl"))
			assert.NotEmpty(t, append(sub, legacy...), "subagent transcripts")
			if !c.IsOld() {
				tr, _ := filepath.Glob(filepath.Join(newDir, "*", "tool-results", "*"))
				assert.NotEmpty(t, tr, "tool-results")
			}
			// sessions-index.json entries and history.jsonl prompts
			idx, err := os.ReadFile(filepath.Join(newDir, "sessions-index.json"))
			require.NoError(t, err)
			for _, id := range mp.ids {
				e := gjson.GetBytes(idx, `entries.#(sessionId=="`+id+`")`)
				assert.Equal(t, filepath.Join(newDir, id+".jsonl"), e.Get("fullPath").Str)
				assert.Equal(t, mp.new, e.Get("projectPath").Str)
			}
			hist, err := os.ReadFile(filepath.Join(mp.env.ConfigDir, "history.jsonl"))
			require.NoError(t, err)
			assert.Equal(t, len(names), strings.Count(string(hist), `"project":"`+mp.new+`"`))
			assert.Contains(t, string(hist), `"project":"/somewhere/else"`, "other projects' prompts stay")
			assert.FileExists(t, filepath.Join(newDir, "memory", "MEMORY.md"))
		})
	}
}

// TestMoveSessionAndRestore moves one session with --rewrite-paths, then
// `restore` puts every file back in its old folder byte for byte.
func TestMoveSessionAndRestore(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	mp := newMovedProject(t, c, "tools")
	id := mp.ids[0]
	oldDir := filepath.Join(mp.env.ConfigDir, "projects", chain.ProjectSlug(mp.old))
	snapshot := func(dir string) map[string]string {
		out := map[string]string{}
		_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[rel] = string(b)
			}
			return nil
		})
		return out
	}
	orig := snapshot(oldDir)
	hist, _ := os.ReadFile(filepath.Join(mp.env.ConfigDir, "history.jsonl"))

	r := mp.move(t, app.MoveOptions{Session: id, To: mp.new, RewritePaths: true})
	require.NotEmpty(t, r.PathRewrites, "the Write/Read/Edit calls name files under the old path")
	for _, ch := range r.PathRewrites {
		assert.NotContains(t, ch.Where, "thinking")
	}
	b, err := os.ReadFile(mp.env.SessionPath(id))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		for _, k := range []string{"message.content.#(type==\"tool_use\").input", "toolUseResult"} {
			assert.NotContains(t, gjson.Get(line, k).Raw, mp.old+"/", "old path left in %s", k)
		}
	}
	assert.FileExists(t, filepath.Join(oldDir, "memory", "MEMORY.md"), "a session move leaves the project's files")
	mp.resumeFrom(t, c, mp.new, id)

	var out, errb bytes.Buffer
	a := &app.Env{ConfigDir: mp.env.ConfigDir, Out: &out, Err: &errb}
	require.NoError(t, a.RunRestore(id, "", false), errb.String())
	assert.Equal(t, orig, snapshot(oldDir), "every file back in the old folder, byte for byte")
	hist2, _ := os.ReadFile(filepath.Join(mp.env.ConfigDir, "history.jsonl"))
	assert.Equal(t, string(hist), string(hist2))
	_, err = os.Stat(mp.env.SessionPath(id))
	assert.True(t, os.IsNotExist(err), "nothing left in the new folder")
}

// TestMovedSessionInPicker: the interactive picker (`claude --resume` with
// no id) lists a moved session from the new folder. 2.1.328 lists only
// interactive sessions (the TUI-made rewind.jsonl); 2.0.50 lists print-mode
// ones too. Before the move 2.1.328 shows none: the session is elsewhere.
func TestMovedSessionInPicker(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			name, title := "rewind", "Take the other road"
			if c.IsOld() {
				name, title = "multi-turn", "What is a JSONL file?"
			}
			mp := newMovedProject(t, c, name)
			screens := filepath.Join(t.TempDir(), "screens")
			if !c.IsOld() {
				_, _, err := mp.env.Picker(c, screens, 90*time.Second, harness.PickerEmpty)
				require.NoError(t, err)
			}
			mp.move(t, app.MoveOptions{Project: mp.old, To: mp.new})
			rows, _, err := mp.env.Picker(c, screens, 90*time.Second, title)
			require.NoError(t, err)
			require.Len(t, rows, 1, "the picker lists the moved session alone: %v", rows)
		})
	}
}
