package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestTurnsGolden: turns finds exactly the human prompts, in order, across
// compactions and branches, for sessions of several client versions.
func TestTurnsGolden(t *testing.T) {
	const corpus = "corpus:" // a file of the corpus (testcorpus): skipped without it
	type turn struct {
		prompt    string
		compacted bool
	}
	for _, tc := range []struct {
		file     string
		branches [][]turn // every branch, in the order of Branches(); the last is active here
	}{
		{"../testdata/sessions/2.1.328/multi-turn.jsonl", [][]turn{{{"What is a JSONL file?", false}, {"Why do session logs use it?", false}, {"Give one drawback.", false}}}},
		{"../testdata/sessions/2.0.50/multi-turn.jsonl", [][]turn{{{"What is a JSONL file?", false}, {"Why do session logs use it?", false}, {"Give one drawback.", false}}}},
		{"../testdata/sessions/2.1.328/compact.jsonl", [][]turn{{{"Remember the number 42.", true}, {"Run a command.", true}, {"What number did I say?", false}}}},
		{"../testdata/sessions/2.0.50/compact.jsonl", [][]turn{{{"Remember the number 42.", true}, {"Run a command.", true}, {"What number did I say?", false}}}},
		{"../testdata/sessions/2.1.328/tools.jsonl", [][]turn{{{"Run some shell commands.", false}, {"Create notes.txt, read it back and fix the typo.", false}, {"Print a long listing.", false}}}},
		{"../testdata/sessions/2.1.328/parallel-tools.jsonl", [][]turn{{{"Check three things at once.", false}}}},
		{"../testdata/sessions/2.1.328/rewind.jsonl", [][]turn{
			{{"Create notes.txt", false}, {"Append a line to notes.txt", false}, {"Say something", false}},
			{{"Create notes.txt", false}, {"Take the other road", false}},
		}},
		{corpus + "claudeless/v2.1.29/compact-command/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl", [][]turn{{{"what is 2 + 2?", true}, {"and 3 + 3?", true}}}},
		{corpus + "claudeless/v2.1.29/clear-command/5bd47723-950c-4c20-917e-77acb15dc4ea.jsonl", [][]turn{{{"what is 2 + 2?", false}, {"and 3 + 3?", false}}}},
		{corpus + "ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", [][]turn{{{"/orchestrator create TODO app by Next.js", false}, {"Thanks! Please update CLAUDE.md for current changes", false}}}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f, err := LoadFile(corpusFile(t, tc.file))
			require.NoError(t, err)
			defer f.Close()
			br := f.Graph().Branches()
			require.Len(t, br, len(tc.branches))
			assert.Equal(t, br[len(br)-1], f.Graph().ActiveLeaf())
			for k, leaf := range br {
				var got []turn
				for _, tn := range f.TurnsOf(leaf).List {
					p, err := f.PromptText(tn.Entry)
					require.NoError(t, err)
					got = append(got, turn{p, tn.Compacted})
				}
				assert.Equal(t, tc.branches[k], got, "branch %d", k+1)
			}
		})
	}
}

func TestStrValueMatchesGjson(t *testing.T) {
	for _, raw := range []string{`""`, `"plain"`, `"a\nb\tc\"d\\e\/f"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00 smile"`, `"\ud83d alone"`, `"x\u0000y"`, `"tail\\"`} {
		assert.Equal(t, gjson.Parse(raw).Str, StrValue(raw), raw)
	}
}

// corpusFile is the path of a table's file: "corpus:REL" is REL in the
// corpus (the test is skipped without it), anything else a path as is.
func corpusFile(t *testing.T, file string) string {
	t.Helper()
	if rel, ok := strings.CutPrefix(file, "corpus:"); ok {
		return testcorpus.Path(t, filepath.FromSlash(rel))
	}
	return file
}

type promptTurn struct {
	prompt    string
	compacted bool
}

func activePrompts(t *testing.T, f *File) []promptTurn {
	t.Helper()
	var got []promptTurn
	for _, tn := range f.ActiveTurns().List {
		p, err := f.PromptText(tn.Entry)
		require.NoError(t, err)
		got = append(got, promptTurn{p, tn.Compacted})
	}
	return got
}

// TestTurnsAcrossUnlinkedCompaction: a compact_boundary whose
// logicalParentUuid names no entry (2.1.39) still has the turns before it
// in the file: they keep their numbers and are marked compacted, and the
// history before it is no branch of its own.
func TestTurnsAcrossUnlinkedCompaction(t *testing.T) {
	const corpus = "corpus:claudeless/v2.1.29/compact-command/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl"
	for _, tc := range []struct {
		file string
		want []promptTurn
	}{
		{"../testdata/sessions/2.1.328/compact.jsonl", []promptTurn{{"Remember the number 42.", true}, {"Run a command.", true}, {"What number did I say?", false}}},
		{"../testdata/sessions/2.0.50/compact.jsonl", []promptTurn{{"Remember the number 42.", true}, {"Run a command.", true}, {"What number did I say?", false}}},
		{corpus, []promptTurn{{"what is 2 + 2?", true}, {"and 3 + 3?", true}}},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.file))+"/"+filepath.Base(tc.file), func(t *testing.T) {
			data, err := os.ReadFile(corpusFile(t, tc.file))
			require.NoError(t, err)
			unlinked := harness.UnlinkCompactions(data)
			require.NotEqual(t, data, unlinked)
			f, err := LoadBytes(tc.file, unlinked)
			require.NoError(t, err)
			assert.Equal(t, tc.want, activePrompts(t, f))
			assert.Len(t, f.Graph().Branches(), 1, "the history before the compaction is not a branch")
		})
	}
}

// TestTurnsWithCompactionAgent: the 2.1.39 shape, an unlinked compaction
// with the compaction agent's transcript beside it: the agent's prompts
// are not turns of the session.
func TestTurnsWithCompactionAgent(t *testing.T) {
	data, err := os.ReadFile("../testdata/sessions/2.1.328/compact.jsonl")
	require.NoError(t, err)
	name, agent, ok := harness.CompactionAgent(data)
	require.True(t, ok)
	dir := t.TempDir()
	main := harness.UnlinkCompactions(data)
	id := "c0mpac7e-0000-4000-8000-000000000039"
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), main, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, id, "subagents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, id, "subagents", name), agent, 0o644))
	s, err := Load(filepath.Join(dir, id+".jsonl"))
	require.NoError(t, err)
	defer s.Close()
	require.Len(t, s.Subagents, 1)
	assert.Equal(t, []promptTurn{{"Remember the number 42.", true}, {"Run a command.", true}, {"What number did I say?", false}}, activePrompts(t, s.Main))
}

// userLine returns a user entry of the session with the given content,
// uuid and parent.
func userLine(t *testing.T, like []byte, uuid, parent string, content any) []byte {
	t.Helper()
	l, err := sjson.SetBytes([]byte(`{}`), "parentUuid", parent)
	require.NoError(t, err)
	for k, v := range map[string]any{"isSidechain": false, "type": "user", "uuid": uuid, "message": map[string]any{"role": "user", "content": content},
		"sessionId": gjson.GetBytes(like, "sessionId").Str, "timestamp": gjson.GetBytes(like, "timestamp").Str} {
		l, err = sjson.SetBytes(l, k, v)
		require.NoError(t, err)
	}
	return append(l, '\n')
}

// TestTurnsIDEContextAndInterruptions: an <ide_opened_file> entry of its
// own is merged by the client into the prompt after it, and "[Request
// interrupted by user]" is no prompt a person typed: neither is a turn;
// the interrupted turn says so. An IDE block in the prompt's own entry
// leaves it a turn.
func TestTurnsIDEContextAndInterruptions(t *testing.T) {
	for _, v := range []string{"2.1.328", "2.0.50"} {
		t.Run(v, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/sessions/" + v + "/multi-turn.jsonl")
			require.NoError(t, err)
			f, err := LoadBytes("x.jsonl", data)
			require.NoError(t, err)
			ts := f.ActiveTurns()
			require.Len(t, ts.List, 3)
			lines := bytes.SplitAfter(data, []byte("\n"))
			second, third := ts.List[1].Entry, ts.List[2].Entry
			leaf := f.Entries[ts.History[len(ts.History)-1]].UUID()
			const ide, interrupt = "1de00000-0000-4000-8000-000000000001", "1de00000-0000-4000-8000-000000000002"
			ideText := "<ide_opened_file>The user opened the file /w/notes.txt in the IDE. This may or may not be related to the current task.</ide_opened_file>"
			var out []byte
			for k, l := range lines {
				switch k {
				case second: // an IDE entry of its own before the prompt
					out = append(out, userLine(t, l, ide, f.Entries[second].ParentUUID(), []any{map[string]any{"type": "text", "text": ideText}})...)
					l, err = sjson.SetBytes(l, "parentUuid", ide)
					require.NoError(t, err)
				case third: // the IDE context in the prompt's own entry
					l, err = sjson.SetBytes(l, "message.content", []any{map[string]any{"type": "text", "text": ideText}, map[string]any{"type": "text", "text": "Give one drawback."}})
					require.NoError(t, err)
				}
				out = append(out, l...)
			}
			out = append(out, userLine(t, lines[third], interrupt, leaf, []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}})...)
			f, err = LoadBytes("x.jsonl", out)
			require.NoError(t, err)
			got := f.ActiveTurns().List
			require.Len(t, got, 3)
			for k, want := range []string{"Why do session logs use it?", "Give one drawback."} {
				p, err := f.PromptText(got[k+1].Entry)
				require.NoError(t, err)
				assert.Contains(t, p, want)
			}
			assert.Equal(t, []bool{false, false, true}, []bool{got[0].Interrupted, got[1].Interrupted, got[2].Interrupted})
		})
	}
}
