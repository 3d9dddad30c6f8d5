package ops

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetTopLevelIsSjsons: the parent a relink sets is written by the
// loader's scanner where the line holds the key once, and by gjson and
// sjson otherwise; the bytes must be sjson's on every line of every
// session here and on the corpus, and on each awkward member of the
// family: the key missing, twice, escaped, nested only, next to spaces,
// a value of every kind, a byte order mark, junk after the object.
func TestSetTopLevelIsSjsons(t *testing.T) {
	lines := map[string][]byte{
		"missing":        []byte(`{"uuid":"a","type":"user"}`),
		"twice":          []byte(`{"parentUuid":"x","uuid":"a","parentUuid":"y"}`),
		"escaped":        []byte(`{"parent\u0055uid":"x","uuid":"a"}`),
		"escaped twice":  []byte(`{"parent\u0055uid":"x","parentUuid":"z"}`),
		"nested only":    []byte(`{"uuid":"a","message":{"parentUuid":"x"}}`),
		"nested and top": []byte(`{"message":{"parentUuid":"x"},"parentUuid":"y"}`),
		"spaces":         []byte(`{ "parentUuid" :  "x" , "uuid" : "a" }`),
		"null":           []byte(`{"parentUuid":null,"uuid":"a"}`),
		"number":         []byte(`{"parentUuid":12,"uuid":"a"}`),
		"object":         []byte(`{"parentUuid":{"a":[1,"}"]},"uuid":"a"}`),
		"quote in key":   []byte(`{"a\"parentUuid":1,"parentUuid":"x"}`),
		"last":           []byte(`{"uuid":"a","parentUuid":"x"}`),
		"bom":            []byte("\ufeff{\"parentUuid\":\"x\"}"),
		"junk after":     []byte(`{"parentUuid":"x"} {"parentUuid":"y"}`),
		"trailing space": []byte(`{"parentUuid":"x"}  `),
	}
	n := len(lines)
	paths := testcorpus.JSONLFiles(t, filepath.Join("..", "testdata"))
	require.NotEmpty(t, paths)
	for _, p := range paths {
		fh, err := os.Open(p)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<30)
		for k := 1; sc.Scan(); k++ {
			if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 && b[0] == '{' {
				lines[p+":"+strconv.Itoa(k)] = bytes.Clone(sc.Bytes())
			}
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	require.Greater(t, len(lines), n, "no session line was read")
	for where, raw := range lines {
		for _, val := range [][]byte{EncodeString("2f1c0a3e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"), []byte("null")} {
			want, werr := setTopLevelSlow(raw, "parentUuid", val)
			got, gerr := setTopLevel(bytes.Clone(raw), "parentUuid", val)
			if werr != nil {
				assert.Error(t, gerr, where)
				continue
			}
			require.NoError(t, gerr, where)
			if !assert.Equal(t, string(want), string(got), "%s, parentUuid set to %s", where, val) {
				return
			}
		}
	}
	t.Logf("%d lines", len(lines))
}
