package ops_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// shapeOf is what the real-client tests of the operations resume a
// generated session for: its entry kinds (type:subtype, content block
// types, isMeta, a compact summary, a sidechain entry, a sidecar folder),
// the tools it calls, its turns (each the entries from a typed prompt to
// the next, as role and block types, the tool names left out), and how
// many entries have more than one child (branch points).
type sessionShape struct {
	kinds, tools, turns map[string]bool
	branchPoints        int
}

func shapeOf(t *testing.T, path string) sessionShape {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sh := sessionShape{kinds: map[string]bool{}, tools: map[string]bool{}, turns: map[string]bool{}}
	if fi, err := os.Stat(strings.TrimSuffix(path, ".jsonl")); err == nil && fi.IsDir() {
		sh.kinds["sidecar"] = true
	}
	children := map[string]int{}
	var turn []string
	endTurn := func() {
		if len(turn) > 0 {
			sh.turns[strings.Join(turn, " ")] = true
		}
		turn = nil
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		j := gjson.ParseBytes(line)
		typ := j.Get("type").Str
		sh.kinds[typ+":"+j.Get("subtype").Str] = true
		if j.Get("isMeta").Bool() {
			sh.kinds["meta"] = true
		}
		if j.Get("isCompactSummary").Bool() {
			sh.kinds["compact-summary"] = true
		}
		if j.Get("isSidechain").Bool() {
			sh.kinds["sidechain"] = true
		}
		if p := j.Get("parentUuid").Str; p != "" {
			if children[p]++; children[p] == 2 {
				sh.branchPoints++
			}
		}
		if typ != "user" && typ != "assistant" {
			continue
		}
		content := j.Get("message.content")
		if content.Type == gjson.String {
			if typ == "user" {
				endTurn() // a typed prompt starts a turn
			}
			turn = append(turn, typ+":string")
			continue
		}
		var blocks []string
		content.ForEach(func(_, b gjson.Result) bool {
			bt := b.Get("type").Str
			sh.kinds["block:"+bt] = true
			if bt == "tool_use" {
				sh.tools[b.Get("name").Str] = true
			}
			blocks = append(blocks, bt)
			return true
		})
		turn = append(turn, typ+":"+strings.Join(blocks, "+"))
	}
	endTurn()
	return sh
}

func missing(of, in map[string]bool) []string {
	var out []string
	for k := range of {
		if !in[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestSameShapeSessionsHaveTheirShape: each generated session that the
// real-client tests of the operations leave out (sameShape: kept for its
// content) has the shape of the session named for it, of the same
// client: no entry kind, tool, turn or branch point that session lacks.
// A session regenerated with a new shape fails here, by name and what it
// has more, instead of going untested.
func TestSameShapeSessionsHaveTheirShape(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, sameShape)
	for _, v := range []string{harness.LatestVersion, harness.OldVersion} {
		dir := filepath.Join("..", "testdata", "sessions", harness.SessionsFolder(v))
		for _, name := range slices.Sorted(maps.Keys(sameShape)) {
			left, kept := shapeOf(t, filepath.Join(dir, name)), shapeOf(t, filepath.Join(dir, sameShape[name]))
			require.NotEmpty(t, left.turns, "%s/%s has no turn", dir, name)
			assert.Empty(t, missing(left.kinds, kept.kinds), "%s/%s: entry kinds %s lacks", dir, name, sameShape[name])
			assert.Empty(t, missing(left.tools, kept.tools), "%s/%s: tools %s lacks", dir, name, sameShape[name])
			assert.Empty(t, missing(left.turns, kept.turns), "%s/%s: turns %s has none of", dir, name, sameShape[name])
			assert.LessOrEqual(t, left.branchPoints, kept.branchPoints, "%s/%s: branch points", dir, name)
			files := sessionFiles(t, v)
			assert.NotContains(t, files, filepath.Join(dir, name), "left out of the real-client tests of the operations")
			assert.Contains(t, files, filepath.Join(dir, sameShape[name]), "its shape is resumed")
		}
	}
}
