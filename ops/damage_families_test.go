package ops

import (
	"bytes"
	"sort"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/tidwall/gjson"
)

// moreDamage are damage families the repair mutations do not cover, met
// in transcripts people edit or publish, for the gate test
// (TestNoOperationEndsInABugOnDamage): validate may or may not see them
// (code is "" where the client resumes the file as it is), and no
// operation may end in "a bug in ccsurgeon" on them.
var moreDamage = map[string]mutation{
	// the same tool_use entry twice (a copy with its own uuid, beside the
	// first): one call id in two messages
	"use-twice": {"", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return len(e.ToolUseIDs()) > 0 })
		if len(p) == 0 {
			return nil
		}
		return insertAfter(lines, p[0], setLine(lines[p[0]], "uuid", harness.NowhereUUID))
	}},
	// a tool_result's line moved to the end of the file: the graph is the
	// same, the file's order is not
	"result-line-last": {"", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.IsToolResult() })
		if len(p) == 0 || p[0] == len(lines)-1 {
			return nil
		}
		l := lines[p[0]]
		if !bytes.HasSuffix(l, []byte("\n")) {
			return nil
		}
		out := append(append([][]byte(nil), lines[:p[0]]...), lines[p[0]+1:]...)
		if last := out[len(out)-1]; !bytes.HasSuffix(last, []byte("\n")) {
			out[len(out)-1] = append(append([]byte(nil), last...), '\n')
		}
		return append(out, l)
	}},
	// a tool_result written before its call: the result's line comes
	// first in the file and hangs off the call's parent; the call hangs off
	// the result
	"result-before-call": {"", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.IsToolResult() })
		if len(p) == 0 {
			return nil
		}
		r := p[0]
		use := -1
		for _, i := range activeWith(f, func(e *chain.Entry) bool { return e.UUID() == f.Entries[r].ParentUUID() }) {
			use = i
		}
		if use < 0 || len(f.Entries[use].ToolUseIDs()) == 0 {
			return nil
		}
		var out [][]byte
		for k, l := range lines {
			switch {
			case k == use:
				res := setLine(lines[r], "parentUuid", f.Entries[use].ParentUUID())
				if !f.Entries[use].HasParent() {
					res = setLine(lines[r], "parentUuid", nil)
				}
				out = append(out, res, setLine(l, "parentUuid", f.Entries[r].UUID()))
			case k == r:
			case f.Entries[k].IsChain() && f.Entries[k].ParentUUID() == f.Entries[r].UUID():
				out = append(out, setLine(l, "parentUuid", f.Entries[use].UUID()))
			default:
				out = append(out, l)
			}
		}
		return out
	}},
	// a tool_result after a compaction whose call is before it (the
	// summary replaced the call): a copy of a result from before the
	// boundary, inserted after the compact summary
	"orphan-result-after-compaction": {"", func(f *chain.File, lines [][]byte) [][]byte {
		b := -1
		for i := range f.Entries {
			if f.Entries[i].Subtype() == "compact_boundary" {
				b = i
				break
			}
		}
		if b < 0 {
			return nil
		}
		r := -1
		for i := 0; i < b; i++ {
			if f.Entries[i].IsToolResult() {
				r = i
			}
		}
		sum := -1
		for i := b + 1; i < len(f.Entries); i++ {
			if f.Entries[i].IsChain() && f.Entries[i].ParentUUID() == f.Entries[b].UUID() {
				sum = i
				break
			}
		}
		if r < 0 || sum < 0 {
			return nil
		}
		orphan := setLine(setLine(lines[r], "uuid", harness.NowhereUUID), "parentUuid", f.Entries[sum].UUID())
		var out [][]byte
		for k, l := range lines {
			if f.Entries[k].IsChain() && f.Entries[k].ParentUUID() == f.Entries[sum].UUID() {
				l = setLine(l, "parentUuid", harness.NowhereUUID)
			}
			out = append(out, l)
			if k == sum {
				out = append(out, orphan)
			}
		}
		return out
	}},
	// the final answer of the last turn holds only thinking: its text
	// entries are gone (a write cut short after the thinking)
	"thinking-only-answer": {"", func(f *chain.File, lines [][]byte) [][]byte {
		p := activeWith(f, func(e *chain.Entry) bool { return e.Type() == "assistant" })
		if len(p) < 2 {
			return nil
		}
		last := p[len(p)-1]
		prev := p[len(p)-2]
		if !f.Entries[prev].HasBlock(chain.BlockThinking) || len(f.Entries[prev].Blocks()) != 1 || f.Entries[last].HasBlock(chain.BlockThinking) ||
			gjson.GetBytes(lines[last], "message.id").Str != gjson.GetBytes(lines[prev], "message.id").Str {
			return nil
		}
		return relinkDrop(f, lines, last)
	}},
}

// DamageNames are every damage family the gate test applies: the repair
// mutations and moreDamage, sorted.
func DamageNames() []string {
	out := MutationNames()
	for name := range moreDamage {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
