package ops

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/sjson"
)

// TestForkCountsWhatFollowsTheForkPoint: on every real session and every
// turn, "entries after the fork point" counts no more than the lines that
// follow the last message the fork keeps (records of other branches
// written before it are counted as such), and the counts add up to what
// the fork removes.
func TestForkCountsWhatFollowsTheForkPoint(t *testing.T) {
	cases := 0
	for _, src := range realSessions(t) {
		s, err := chain.Load(src)
		require.NoError(t, err)
		leaf := s.Main.Graph().ActiveLeaf()
		for _, tn := range s.Main.ActiveTurns().List {
			tx := NewTxn(s)
			require.NoError(t, (ForkAtTurn{N: tn.Index, Leaf: leaf}).Apply(tx), "%s turn %d: no fork is refused for a turn's state", src, tn.Index)
			lastKept := 0
			for i := range s.Main.Entries {
				if e := &s.Main.Entries[i]; !tx.Dropped(s.Main, i) && e.IsMessage() {
					lastKept = i
				}
			}
			follow := len(s.Main.Entries) - 1 - lastKept
			c := tx.Report.Counts
			assert.LessOrEqual(t, c[CountAfterFork], follow, "%s turn %d: %d lines follow the fork point", src, tn.Index, follow)
			assert.Equal(t, tx.Stats().Removed, c[CountAfterFork]+c[CountOtherBranches], "%s turn %d", src, tn.Index)
			cases++
		}
		s.Close()
	}
	t.Logf("%d forks checked", cases)
}

// TestForkAtInterruptedTurnSaysSo: a turn the person interrupted before
// any answer came is forked without its prompt, and the note says why.
func TestForkAtInterruptedTurnSaysSo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl"))
	require.NoError(t, err)
	f, err := chain.LoadBytes("x.jsonl", data)
	require.NoError(t, err)
	third := f.ActiveTurns().List[2].Entry
	// the answer to the third prompt never came: the person interrupted it
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out []byte
	for k, l := range lines[:third+1] {
		if k < third && f.Entries[k].Type() == "last-prompt" {
			continue
		}
		out = append(out, l...)
	}
	stop, err := sjson.SetBytes(bytes.TrimSuffix(lines[third], []byte("\n")), "message.content", []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}})
	require.NoError(t, err)
	stop, _ = sjson.SetBytes(stop, "parentUuid", f.Entries[third].UUID())
	stop, _ = sjson.SetBytes(stop, "uuid", "1de00000-0000-4000-8000-000000000003")
	out = append(append(out, stop...), '\n')

	dir := t.TempDir()
	p := filepath.Join(dir, f.Entries[third].SessionID()+".jsonl")
	require.NoError(t, os.WriteFile(p, out, 0o644))
	s, err := chain.Load(p)
	require.NoError(t, err)
	defer s.Close()
	ts := s.Main.ActiveTurns().List
	require.Len(t, ts, 3)
	require.True(t, ts[2].Interrupted)
	tx := NewTxn(s)
	require.NoError(t, (ForkAtTurn{N: 3, Leaf: s.Main.Graph().ActiveLeaf()}).Apply(tx))
	require.NotEmpty(t, tx.Report.Notes)
	assert.True(t, strings.Contains(tx.Report.Notes[0], "turn 3 was interrupted"), tx.Report.Notes[0])
}

// TestForkKeepsTheSubagentRunsOfKeptTurns: a 1.0.x session holds its
// subagents' transcripts inline (isSidechain entries of the main file);
// forking dropped every one of them (a trial: 405 of 438 entries of a
// corpus session "of other branches"), where a 2.1.x fork keeps the
// subagent files of the calls it keeps. On every real session with inline
// sidechains and every turn, the sidechain entries written before the
// last message the fork keeps stay.
func TestForkKeepsTheSubagentRunsOfKeptTurns(t *testing.T) {
	testcorpus.Require(t) // the sessions with inline sidechains are the corpus's (1.0.x)
	cases, kept := 0, 0
	for _, src := range realSessions(t) {
		s, err := chain.Load(src)
		require.NoError(t, err)
		f := s.Main
		side := 0
		for i := range f.Entries {
			if f.Entries[i].IsSidechain() {
				side++
			}
		}
		if side == 0 {
			s.Close()
			continue
		}
		leaf := f.Graph().ActiveLeaf()
		for _, tn := range f.ActiveTurns().List {
			tx := NewTxn(s)
			if err := (ForkAtTurn{N: tn.Index, Leaf: leaf}).Apply(tx); err != nil {
				continue
			}
			lastKept := -1
			for i := range f.Entries {
				if e := &f.Entries[i]; !tx.Dropped(f, i) && e.IsMessage() && !e.IsSidechain() {
					lastKept = i
				}
			}
			for i := 0; i < lastKept; i++ {
				if e := &f.Entries[i]; e.IsSidechain() && e.Kind == chain.KindEntry {
					assert.False(t, tx.Dropped(f, i), "%s turn %d: sidechain line %d dropped", src, tn.Index, e.Line)
					kept++
				}
			}
			cases++
		}
		s.Close()
	}
	require.Positive(t, cases, "no real session has inline sidechains")
	t.Logf("%d forks of sessions with inline sidechains, %d sidechain entries kept", cases, kept)
}
