package ops

import (
	"bytes"
	"crypto/aes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestStreamRenamesAsLine: the pass of a plain clone (Stream: the loader's
// check and the renaming of each line in one walk, a value looked at by
// its kind, the session id of a run of lines decoded once, the last ids
// kept) gives every line the bytes Line gives it (the renaming of the
// full path, held to the oracle by TestRemapLineMatchesOracle), leaves
// the lines the loader does not take for entries as they are, and names
// the session ids it did not know as the index reads them. Members: a
// uuid as a whole string value, at the end of a string after an escaped
// quote, inside it, in arrays and objects; numbers, literals; capitals;
// escaped keys and session ids; session ids that change from line to
// line and come back; every line of testdata and the corpus.
func TestStreamRenamesAsLine(t *testing.T) {
	sid := "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	other := "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f"
	u := "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	lines := []string{
		`{"type":"user","uuid":"` + u + `","parentUuid":null,"sessionId":"` + sid + `"}`,
		`{"type":"user","note":"x\"` + u + `","n2":"\"` + u + `\"","n3":"` + u + ` tail","n4":"head ` + u + `"}`,
		`{"type":"user","ids":["` + u + `",1,"` + sid + `",{"a":"` + u + `"}],"o":{"p":{"q":"\"` + u + `"}},"n":12,"t":true,"f":false,"z":null,"sessionId":"` + sid + `"}`,
		`{"type":"user","uuid":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D","sessionId":"` + other + `"}`,
		`{"type":"user","uuid":"` + u + `","sessionId":"` + sid + `"}`,
		`{"type":"user","sessionId":"\u0036f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b","u\u0075id":"` + u + `"}`,
		`{"type":"user","sessionId":"` + other + `","sessionId":"` + sid + `"}`,
		`{"type":"user","sessionId":"` + sid + `","sessionId":"` + other + `"}`,
		`{"type":"user","sessionId":"00000000-0000-0000-0000-000000000000","uuid":"00000000-0000-0000-0000-000000000000"}`,
		`{"type":"user","sessionId":12,"parentUuid":"` + u + `"}`,
		`{"type":"user","message":{"id":"` + u + `"},"content":"` + u + `","uuid":"` + u + `"}`,
		`{"type":"user","uuid":"` + u + `"`, // torn: not an entry
		`not json "` + u + `"`,
		``,
		`{"uuid":"` + u + `"} {"uuid":"` + u + `"}`,
	}
	for _, p := range testcorpus.JSONLFiles(t, filepath.Join("..", "testdata")) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		lines = append(lines, string(bytes.TrimRight(b, "\n")))
	}
	in := []byte(joinLines(lines))
	mk := func() *Remapper {
		perm, err := aes.NewCipher(make([]byte, 16))
		require.NoError(t, err)
		r := &Remapper{NewID: "11111111-2222-4333-8444-555555555555", perm: perm,
			other: map[[36]byte][36]byte{}, oldIDs: map[[36]byte]bool{}}
		r.newID, _ = key(r.NewID)
		r.addID(sid)
		r.index()
		return r
	}
	r := mk()
	var out bytes.Buffer
	res, err := r.Stream(&out, bytes.NewReader(in), int64(len(in)))
	var unk *UnknownSessionIDsError
	require.True(t, errors.As(err, &unk), "the other session id is named: %v", err)

	// what Line and the index give, line by line, with the same Remapper
	// (a capitalised id's fresh one is kept in it)
	var want bytes.Buffer
	wantUnknown := map[string]bool{}
	entries := 0
	for i, l := range bytes.Split(in, []byte("\n")) {
		if i > 0 {
			want.WriteByte('\n')
		}
		line := append([]byte(nil), l...)
		if chain.EntryFields(line, i == 0, func(string, int, int) {}) == chain.KindEntry {
			entries++
			var s []byte
			chain.EntryFields(line, i == 0, func(k string, vs, ve int) {
				if k == "sessionId" {
					s = line[vs:ve]
				}
			})
			if k, ok := key(chain.SessionIDOf(s)); s != nil && ok && !r.oldIDs[k] {
				wantUnknown[string(k[:])] = true
			}
			line = r.Line(line)
		}
		want.Write(line)
	}
	require.Equal(t, want.String(), out.String())
	require.Equal(t, entries, res.Entries)
	names := make([]string, 0, len(wantUnknown))
	for k := range wantUnknown {
		names = append(names, k)
	}
	slices.Sort(names)
	require.Equal(t, names, unk.IDs)
	require.Contains(t, unk.IDs, other)
}

func joinLines(ls []string) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}
