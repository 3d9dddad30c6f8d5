package ops

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// oracleCompress is compress-old-turns' cut as it was written on gjson and
// sjson, kept as the oracle of TestCompressLineMatchesGjsonOracle.
func oracleCompress(e *chain.Entry, raw []byte, c entryCut) (out []byte, cuts int, changed bool) {
	cut := c
	max := c.Max
	big := c.Text && e.ToolUseResult > 0
	for _, b := range e.Blocks() {
		if (c.Text && int(b.Size) > max) || (c.Images && (b.Kind == chain.BlockImage || b.Images > 0 || b.Kind == chain.BlockDocument)) {
			big = true
		}
	}
	if !big {
		return raw, 0, false
	}
	out = raw
	set := func(path string, v []byte) {
		if r, err := sjson.SetRawBytes(out, path, v); err == nil {
			out, changed = r, true
		}
	}
	// the content edits are collected as byte ranges of the line and
	// spliced in one pass (one sjson call per edit re-parses the line)
	type splice struct {
		start, end int
		with       []byte
	}
	var edits []splice
	replace := func(r gjson.Result, with []byte) {
		if r.Index > 0 {
			edits = append(edits, splice{r.Index, r.Index + len(r.Raw), with})
		}
	}
	content := gjson.GetBytes(out, "message.content")
	if content.IsArray() {
		content.ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "tool_result":
				c := b.Get("content")
				if !cut.Text {
					c.ForEach(func(_, sub gjson.Result) bool {
						if typ := sub.Get("type").Str; cut.Images && (typ == "image" || typ == "document") {
							replace(sub, placeholder(sub))
						}
						return true
					})
					return true
				}
				if c.Type == gjson.String {
					if s, ok := CutMiddle(c.Str, max); ok {
						replace(c, EncodeString(s))
					}
				} else if c.IsArray() {
					c.ForEach(func(_, sub gjson.Result) bool {
						switch sub.Get("type").Str {
						case "text":
							if tx := sub.Get("text"); len(tx.Raw) > max {
								if s, ok := CutMiddle(tx.Str, max); ok {
									replace(tx, EncodeString(s))
								}
							}
						case "image", "document":
							if cut.Images {
								replace(sub, placeholder(sub))
							}
						}
						return true
					})
				}
			case "tool_use":
				if !cut.Text {
					return true
				}
				b.Get("input").ForEach(func(_, v gjson.Result) bool {
					if v.Type == gjson.String && len(v.Raw) > max {
						if s, ok := CutMiddle(v.Str, max); ok {
							replace(v, EncodeString(s))
						}
					}
					return true
				})
			case "image", "document":
				if cut.Images {
					replace(b, placeholder(b))
				}
			}
			return true
		})
	}
	if len(edits) > 0 {
		sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
		spliced := make([]byte, 0, len(out))
		pos := 0
		for _, e := range edits {
			if e.start < pos {
				continue
			}
			spliced = append(spliced, out[pos:e.start]...)
			spliced = append(spliced, e.with...)
			pos = e.end
		}
		out = append(spliced, out[pos:]...)
		changed = true
		cuts = len(edits)
	}
	if tur := gjson.GetBytes(out, "toolUseResult"); c.Text && tur.Exists() {
		if tur.Type == gjson.String {
			if s, ok := CutMiddle(tur.Str, max); ok {
				set("toolUseResult", EncodeString(s))
			}
		} else if tur.IsObject() && tur.Index > 0 {
			if obj, dropped := withoutFields(tur.Raw, toolUseResultCopies); dropped {
				out = append(append(append([]byte(nil), out[:tur.Index]...), obj...), out[tur.Index+len(tur.Raw):]...)
				changed = true
			}
		}
	}
	return out, cuts, changed
}

// TestCompressLineMatchesGjsonOracle: the raw-text cut of compress makes
// the same bytes and counts as the gjson one did, on every message entry of
// testdata and ../shared/corpus, for every kind of cut compress and
// --target-tokens make.
func TestCompressLineMatchesGjsonOracle(t *testing.T) {
	files := testcorpus.JSONLFiles(t, filepath.Join("..", "testdata"))
	cuts := []entryCut{
		{Max: DefaultMaxResult, Text: true, Images: true},
		{Max: DefaultMaxResult, Text: true},
		{Images: true},
		{Max: 500, Text: true},
		{Max: 100, Text: true},
		{Max: 10, Text: true, Images: true},
	}
	n, changed := 0, 0
	kinds := map[cutKind]int{}
	for _, p := range files {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		for i := range f.Entries {
			e := &f.Entries[i]
			if !e.IsMessage() {
				continue
			}
			raw, err := f.Raw(i)
			require.NoError(t, err)
			for _, c := range cuts {
				want, wantCuts, wantChanged := oracleCompress(e, append([]byte(nil), raw...), c)
				got, gotCuts, gotChanged := []byte(nil), 0, false
				if needsCut(e, c) {
					got, gotCuts, gotChanged = compressLine(raw, c)
				}
				if !gotChanged {
					got = raw
				}
				where := fmt.Sprintf("%s line %d, cut %+v", p, e.Line, c)
				if gotChanged {
					// the write replays the plan of the counting pass:
					// the same bytes, without walking the line again
					_, _, parts, _ := planCuts(nil, raw, c, true)
					replayed, ok := replayCuts(nil, raw, parts, c)
					require.True(t, ok, where)
					require.Equal(t, string(got), string(replayed), where+": replayed plan")
					for _, part := range parts {
						kinds[part.kind]++
					}
				}
				require.Equal(t, wantChanged, gotChanged, where)
				require.Equal(t, wantCuts, gotCuts, where)
				require.Equal(t, string(want), string(got), where)
				n++
				if gotChanged {
					changed++
				}
			}
		}
		f.Close()
	}
	t.Logf("%d (entry, cut) pairs the same, %d of them cut; parts replayed by kind (string, media, copies): %d %d %d", n, changed, kinds[cutStr], kinds[cutMedia], kinds[cutCopies])
	require.Greater(t, changed, 100)
	for _, k := range []cutKind{cutStr, cutMedia, cutCopies} {
		require.Positive(t, kinds[k], "no part of kind %d replayed: the test does not reach it", k)
	}
}

var _ = sort.Ints
var _ = gjson.Parse
var _ = sjson.SetRawBytes
