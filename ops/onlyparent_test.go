package ops

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestAnIndexOnlyCheckSeesTheBytesWritten: a check of a result (IndexOf)
// takes a relinked line's entry from the input's with the new parent when
// no other edit changed the line (Edit.OnlyParent), without parsing its
// bytes. The index must be the loader's of the bytes written, whatever
// came before or after the relink on the same line: a relink alone, two
// relinks, a relink then new bytes, new bytes then a relink, a relink then
// another change made late, a relink and a block removed, a relink to
// null. Each member names itself when it fails.
func TestAnIndexOnlyCheckSeesTheBytesWritten(t *testing.T) {
	path := filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl")
	// a step reports whether it changed the line's content (a relink
	// does not)
	type step func(tx *Txn, f *chain.File, i int) (bool, error)
	relinkTo := func(k int) step {
		return func(tx *Txn, f *chain.File, i int) (bool, error) {
			return false, tx.SetParent(f, i, f.Entries[k].UUID())
		}
	}
	toNull := func(tx *Txn, f *chain.File, i int) (bool, error) { return false, tx.SetParent(f, i, "") }
	setBytes := func(tx *Txn, f *chain.File, i int) (bool, error) {
		raw, err := tx.Raw(f, i)
		if err != nil {
			return false, err
		}
		tx.Set(f, i, bytes.Replace(bytes.Clone(raw), []byte(`"type":"`), []byte(`"extra":1,"type":"`), 1))
		return true, nil
	}
	lateChange := func(tx *Txn, f *chain.File, i int) (bool, error) {
		return true, tx.SetLate(f, i, func(_ int, raw []byte) ([]byte, error) {
			return bytes.Replace(raw, []byte(`"type":"`), []byte(`"extra":2,"type":"`), 1), nil
		})
	}
	dropBlocks := func(tx *Txn, f *chain.File, i int) (bool, error) {
		n, err := tx.RemoveBlocks(f, i, func(b gjson.Result) bool { return b.Get("type").Str == "text" })
		return n > 0, err
	}
	members := []struct {
		name  string
		steps []step
	}{
		{"a relink alone", []step{relinkTo(0)}},
		{"two relinks", []step{relinkTo(0), relinkTo(1)}},
		{"a relink to null", []step{toNull}},
		{"a relink then new bytes", []step{relinkTo(0), setBytes}},
		{"new bytes then a relink", []step{setBytes, relinkTo(0)}},
		{"a relink then a change made late", []step{relinkTo(0), lateChange}},
		{"a change made late then a relink", []step{lateChange, relinkTo(0)}},
		{"a relink and a block removed", []step{relinkTo(0), dropBlocks}},
		{"a block removed and a relink", []step{dropBlocks, relinkTo(0)}},
	}
	for _, m := range members {
		s, err := chain.Load(path)
		require.NoError(t, err)
		f := s.Main
		tx := NewTxn(s)
		n, only := 0, 0
		for i := 2; i < len(f.Entries); i += 2 {
			if !f.Entries[i].IsChain() {
				continue
			}
			changed := false
			for _, st := range m.steps {
				c, err := st(tx, f, i)
				require.NoError(t, err, "%s, line %d", m.name, i+1)
				changed = changed || c
			}
			ed := tx.Edits(f).At(i)
			if ed != nil && ed.Late && ed.Raw == nil && !ed.Drop { // (a line left out is not written)
				assert.Equal(t, !changed, ed.OnlyParent, "%s, line %d: taken as a change of the parent only", m.name, i+1)
				if ed.OnlyParent {
					only++
				}
			}
			n++
		}
		require.Positive(t, n)
		if m.name == "a relink alone" {
			require.Positive(t, only, "no line was taken as a change of its parent only")
		}
		var buf bytes.Buffer
		require.NoError(t, tx.Render(f)(&buf))
		want, err := chain.LoadBytes(f.Path, buf.Bytes())
		require.NoError(t, err)
		got, err := chain.IndexOf(f.Path, 0, tx.Render(f))
		require.NoError(t, err)
		require.Equal(t, len(want.Entries), len(got.Entries), m.name)
		assert.Equal(t, want.Size, got.Size, m.name)
		for i := range want.Entries {
			if !assert.Equal(t, want.Entries[i], got.Entries[i], "%s: line %d", m.name, i+1) {
				break
			}
		}
		s.Close()
	}
}

// TestARelinkedAnswerStillCallsItsTool: an answer that calls a tool keeps
// calling it when only its parent changed (a relink: keptToolUse takes
// the line's content from the index, unread): an answer whose prompt is
// removed after it is not made part of it (the API wants the tool's
// result there, not another answer).
func TestARelinkedAnswerStillCallsItsTool(t *testing.T) {
	id := func(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	sid := "5e551011-aaaa-bbbb-cccc-000000000001"
	entry := func(typ string, n, parent int, content, msgID string) string {
		p := "null"
		if parent > 0 {
			p = `"` + id(parent) + `"`
		}
		mid := ""
		if msgID != "" {
			mid = `"id":"` + msgID + `",`
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":%q,"message":{%s"role":%q,"content":%s},"uuid":%q,"timestamp":"2026-11-21T10:00:%02d.000Z","sessionId":%q}`,
			p, typ, mid, typ, content, id(n), n, sid)
	}
	lines := []string{
		entry("user", 1, 0, `"go"`, ""),
		entry("assistant", 2, 1, `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]`, "msg_1"),
		entry("user", 3, 2, `"next"`, ""), // removed: the answer after it comes right after the call
		entry("assistant", 4, 3, `[{"type":"text","text":"done"}]`, "msg_2"),
	}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	s, err := chain.Load(path)
	require.NoError(t, err)
	defer s.Close()
	f := s.Main
	tx := NewTxn(s)
	require.NoError(t, tx.SetParent(f, 1, id(1))) // the call's line relinked (to the parent it had)
	require.True(t, tx.Edits(f).At(1).OnlyParent)
	tx.Drop(f, 2)
	require.NoError(t, tx.Finish())
	var buf bytes.Buffer
	require.NoError(t, tx.Render(f)(&buf))
	assert.Contains(t, buf.String(), `"id":"msg_2"`, "the answer after the call keeps its own message.id")
	assert.NotContains(t, buf.String(), `"id":"msg_1","role":"assistant","content":[{"type":"text"`)
}
