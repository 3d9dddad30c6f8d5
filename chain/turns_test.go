package chain

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestTurnsGolden: turns finds exactly the human prompts, in order, across
// compactions and branches, for sessions of several client versions.
func TestTurnsGolden(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
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
		{filepath.Join(corpus, "claudeless/v2.1.29/compact-command/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl"), [][]turn{{{"what is 2 + 2?", true}, {"and 3 + 3?", true}}}},
		{filepath.Join(corpus, "claudeless/v2.1.29/clear-command/5bd47723-950c-4c20-917e-77acb15dc4ea.jsonl"), [][]turn{{{"what is 2 + 2?", false}, {"and 3 + 3?", false}}}},
		{filepath.Join(corpus, "ccviewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"), [][]turn{{{"/orchestrator create TODO app by Next.js", false}, {"Thanks! Please update CLAUDE.md for current changes", false}}}},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f, err := LoadFile(tc.file)
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
