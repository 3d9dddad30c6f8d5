package ops

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// withoutFieldsBuilt is withoutFields as it was before it looked for a
// field to drop first: the object rebuilt whole, every nested object
// walked (the oracle of TestWithoutFieldsIsTheBuiltOne).
func withoutFieldsBuilt(obj string, drop map[string]bool, prefix string) (string, bool) {
	var b strings.Builder
	b.WriteByte('{')
	any, n := false, 0
	chain.Fields(obj, 0, func(k string, vs, ve int) bool {
		name := prefix + k
		v := obj[vs:ve]
		if drop[name] {
			any = true
			return true
		}
		if v[0] == '{' {
			if inner, ok := withoutFieldsBuilt(v, drop, name+"."); ok {
				v, any = inner, true
			}
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(EncodeString(k))
		b.WriteByte(':')
		b.WriteString(v)
		return true
	})
	b.WriteByte('}')
	if !any {
		return obj, false
	}
	return b.String(), true
}

// TestWithoutFieldsIsTheBuiltOne: withoutFields, which walks an object
// first and builds a copy only when a field goes, gives what the whole
// rebuild gave, on every toolUseResult object of testdata and the corpus
// and on objects made to reach each way: a copy at the top, in "file", an
// object named like a copy's parent that holds none, the same key twice,
// escaped keys, a nested "content" outside "file", nothing to drop.
func TestWithoutFieldsIsTheBuiltOne(t *testing.T) {
	objs := []string{
		`{}`,
		`{"stdout":"a","stderr":"b","interrupted":false}`,
		`{"interrupted":false,"isImage":false}`,
		`{"type":"text","file":{"filePath":"/a","content":"x\ny","numLines":2}}`,
		`{"type":"text","file":{"filePath":"/a","numLines":2}}`,
		`{"other":{"content":"kept: not a copy"},"file":{"content":"gone"}}`,
		`{"other":{"content":"kept"}}`,
		`{"stdout":"a","stdout":"twice"}`,
		`{"std\u006fut":"escaped key","x\"y":1,"file":{"cont\u0065nt":"z"}}`,
		`{"file":{"inner":{"content":"deeper: kept"}},"oldString":"a","newString":"b","structuredPatch":[1,2]}`,
		`{"a":{"b":{"c":{}}},"originalFile":"x"}`,
	}
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		f, err := chain.LoadFile(p)
		require.NoError(t, err)
		for i := range f.Entries {
			if f.Entries[i].ToolUseResult == 0 {
				continue
			}
			raw, err := f.Raw(i)
			require.NoError(t, err)
			if tur := gjson.GetBytes(raw, "toolUseResult"); tur.IsObject() {
				objs = append(objs, tur.Raw)
			}
		}
		f.Close()
	}
	dropped := 0
	for _, o := range objs {
		want, wantOK := withoutFieldsBuilt(o, toolUseResultCopies, "")
		got, gotOK := withoutFields(o, toolUseResultCopies)
		require.Equal(t, wantOK, gotOK, o)
		require.Equal(t, want, got, o)
		if gotOK {
			dropped++
		}
	}
	t.Logf("%d objects, %d with a field dropped", len(objs), dropped)
	require.Greater(t, dropped, 5)
	require.Less(t, dropped, len(objs))
}
