package ops

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestForkSaysItsLastPrompt: 2.1.x's picker shows a session as the
// lastPrompt of its file's last last-prompt entry, and resumes the branch
// that entry's leafUuid names. On every session of testdata/sessions that
// holds last-prompt entries (those of 2.1.x), fork-at-turn N at every turn
// ends with a last-prompt entry that says turn N's prompt as the client
// writes it (normalizeLastPrompt) and names an entry the fork keeps: the
// fork's last one used to be whatever the client wrote before the fork
// point (turn 1's prompt, say), or none.
func TestForkSaysItsLastPrompt(t *testing.T) {
	forks := 0
	for _, src := range lastPromptSessions(t) {
		s, err := chain.Load(src)
		require.NoError(t, err)
		leaf := s.Main.Graph().ActiveLeaf()
		turns := s.Main.ActiveTurns().List
		for _, tn := range turns {
			prompt, err := s.Main.PromptText(tn.Entry)
			require.NoError(t, err)
			tx := NewTxn(s)
			require.NoError(t, (ForkAtTurn{N: tn.Index, Leaf: leaf}).Apply(tx))
			var buf bytes.Buffer
			require.NoError(t, tx.Render(s.Main)(&buf))
			var last []byte
			uuids := map[string]bool{}
			for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
				if gjson.GetBytes(l, "type").Str == "last-prompt" {
					last = l
				}
				if u := gjson.GetBytes(l, "uuid").Str; u != "" {
					uuids[u] = true
				}
			}
			require.NotNil(t, last, "%s: the fork at %d of %d keeps no last-prompt entry", src, tn.Index, len(turns))
			if tn.Index < len(turns) {
				require.Equal(t, normalizeLastPrompt(prompt), gjson.GetBytes(last, "lastPrompt").Str,
					"%s: the fork at %d of %d: its last last-prompt entry", src, tn.Index, len(turns))
			}
			require.True(t, uuids[gjson.GetBytes(last, "leafUuid").Str] || gjson.GetBytes(last, "leafUuid").Str == nilUUID,
				"%s: the fork at %d: its last last-prompt entry names no entry it keeps: %s", src, tn.Index, last)
			forks++
		}
		s.Close()
	}
	require.Positive(t, forks)
	t.Logf("%d forks checked", forks)
}

// TestCloneBranchSaysItsLastPrompt: the other operation that changes which
// conversation a file holds, clone --branch/--leaf (SelectBranch), on
// every branch of every testdata session with two or more branches and
// last-prompt entries: its last last-prompt entry names the branch's leaf
// and says the branch's last prompt (it said the last prompt of the
// branch the client had resumed).
func TestCloneBranchSaysItsLastPrompt(t *testing.T) {
	clones := 0
	for _, src := range lastPromptSessions(t) {
		s, err := chain.Load(src)
		require.NoError(t, err)
		branches := s.Main.Graph().Branches()
		if len(branches) < 2 {
			s.Close()
			continue
		}
		for k, leaf := range branches {
			turns := s.Main.TurnsOf(leaf).List
			if len(turns) == 0 {
				continue
			}
			prompt, err := s.Main.PromptText(turns[len(turns)-1].Entry)
			require.NoError(t, err)
			tx := NewTxn(s)
			require.NoError(t, (SelectBranch{Leaf: leaf}).Apply(tx))
			var buf bytes.Buffer
			require.NoError(t, tx.Render(s.Main)(&buf))
			var last []byte
			for _, l := range bytes.Split(buf.Bytes(), []byte("\n")) {
				if gjson.GetBytes(l, "type").Str == "last-prompt" && gjson.GetBytes(l, "leafUuid").Str != nilUUID {
					last = l
				}
			}
			require.NotNil(t, last, "%s: clone --branch %d keeps no last-prompt entry", src, k+1)
			require.Equal(t, s.Main.Entries[leaf].UUID(), gjson.GetBytes(last, "leafUuid").Str, "%s: clone --branch %d", src, k+1)
			require.Equal(t, normalizeLastPrompt(prompt), gjson.GetBytes(last, "lastPrompt").Str, "%s: clone --branch %d: its last last-prompt entry", src, k+1)
			clones++
		}
		s.Close()
	}
	require.Positive(t, clones)
	t.Logf("%d clones checked", clones)
}

// lastPromptSessions are the sessions of testdata/sessions that hold
// last-prompt entries (those of 2.1.x).
func lastPromptSessions(t *testing.T) []string {
	var files []string
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "testdata", "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || filepath.Base(filepath.Dir(p)) == "subagents" {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.Contains(data, []byte(`"type":"last-prompt"`)) {
			files = append(files, p)
		}
		return err
	}))
	return files
}
