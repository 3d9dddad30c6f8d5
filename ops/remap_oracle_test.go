package ops

import (
	"bytes"
	"crypto/aes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

var nilKey, _ = key(nilUUID)

// oracleContentKeys and oracleRemapLine are the renaming of a clone as it
// was made before it was made faster (a map of content keys, every uuid
// looked up in the map of session ids by its 36 bytes): the rule the fast
// one must keep, byte for byte.
var oracleContentKeys = map[string]bool{
	"message": true, "toolUseResult": true, "content": true, "lastPrompt": true,
	"summary": true, "display": true, "attachment": true, "data": true,
	"customTitle": true, "text": true, "prompt": true,
}

func oracleMapKey(r *Remapper, old [36]byte) [36]byte {
	if old == nilKey {
		return old
	}
	if r.oldIDs[old] {
		return r.newID
	}
	if id, ok := chain.ParseID(unsafe.String(&old[0], len(old))); ok {
		var n chain.ID
		r.perm.Encrypt(n[:], id[:])
		n[6] = n[6]&0x0f | 0x40
		n[8] = n[8]&0x3f | 0x80
		var out [36]byte
		n.Put(out[:])
		return out
	}
	n, ok := r.other[old]
	if !ok {
		copy(n[:], uuid.NewString())
		r.other[old] = n
	}
	return n
}

func oracleRemapLine(r *Remapper, raw []byte) []byte {
	str := string(raw)
	i := strings.IndexByte(str, '{')
	if i < 0 {
		return raw
	}
	chain.Fields(str, i, func(k string, vs, ve int) bool {
		if oracleContentKeys[k] {
			return true
		}
		b := raw[vs:ve]
		for j := 0; j+37 < len(b); {
			q := bytes.IndexByte(b[j:len(b)-37], '"')
			if q < 0 {
				break
			}
			j += q
			if b[j+37] == '"' && chain.IsUUID(b[j+1:j+37]) {
				var old [36]byte
				copy(old[:], b[j+1:j+37])
				n := oracleMapKey(r, old)
				copy(b[j+1:j+37], n[:])
				j += 38
				continue
			}
			j++
		}
		return true
	})
	return raw
}

// fixedRemapper is a Remapper to the new id 11111111-2222-4333-8444-555555555555
// of the session ids sids, with the permutation of the zero key: two of
// them rename alike.
func fixedRemapper(t testing.TB, sids ...string) *Remapper {
	perm, err := aes.NewCipher(make([]byte, 16))
	require.NoError(t, err)
	r := &Remapper{NewID: "11111111-2222-4333-8444-555555555555", perm: perm,
		other: map[[36]byte][36]byte{}, oldIDs: map[[36]byte]bool{}}
	r.newID, _ = key(r.NewID)
	for _, id := range sids {
		r.addID(id)
	}
	r.index()
	return r
}

// TestRemapLineMatchesOracle: the renaming of a new session gives every
// line of testdata and ../shared/corpus, and lines made to hold each
// member of the family of uuid-looking strings (an entry id, a session id
// in lower case and in capitals, the nil uuid, ids in content fields that
// must stay, ids nested in non-content fields, near misses), the bytes the
// oracle gives, with the same permutation.
func TestRemapLineMatchesOracle(t *testing.T) {
	sid := "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	capSID := "ABCDEF01-2345-4678-89AB-CDEF01234567"
	newRemapper := func() *Remapper { return fixedRemapper(t, sid, capSID) }
	lines := []string{
		`{"type":"user","uuid":"` + sid + `","parentUuid":"` + capSID + `","sessionId":"` + sid + `"}`,
		`{"type":"user","uuid":"00000000-0000-0000-0000-000000000000","leafUuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}`,
		`{"type":"assistant","message":{"id":"` + sid + `","content":[{"type":"text","text":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}]},"uuid":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D"}`,
		`{"type":"x","compactMetadata":{"preservedSegment":{"headUuid":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d","ids":["` + capSID + `","` + sid + `"]}}}`,
		`{"type":"x","toolUseResult":"` + sid + `","display":"` + sid + `","summary":"` + sid + `","lastPrompt":"` + sid + `","customTitle":"` + sid + `","data":{"x":"` + sid + `"},"text":"` + sid + `","prompt":"` + sid + `","attachment":{"u":"` + sid + `"},"content":"` + sid + `"}`,
		`{"type":"x","note":"he said \"` + sid + `\" and a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d","id":"a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5","id2":"a1b2c3d4xe5f6-4a7b-8c9d-0e1f2a3b4c5d","id3":"g1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}`,
		`  {"uuid" : "` + sid + `" , "parentUuid":null}`,
		`{"uuid":"a1B2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}`,
		`not json "` + sid + `"`,
		``,
		`{}`,
		`{"\u0075uid":"` + sid + `","m\u0065ssage":"` + sid + `"}`,
	}
	files := testcorpus.JSONLFiles(t, filepath.Join("..", "testdata"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if bytes.HasPrefix(bytes.TrimSpace(l), []byte("{")) && json.Valid(l) {
				lines = append(lines, string(l))
			}
		}
	}
	require.Greater(t, len(lines), 1000, "the corpus lines were not read")
	got, want := newRemapper(), newRemapper()
	renamed := 0
	for _, l := range lines {
		w := oracleRemapLine(want, []byte(l))
		g := got.Line([]byte(l))
		// capitals get random fresh ids (one each, kept): compare them
		// through the two remappers' own choices
		for old, n := range want.other {
			if gn, ok := got.other[old]; ok {
				g = bytes.ReplaceAll(g, gn[:], n[:])
			}
		}
		require.Equal(t, string(w), string(g), "line %q", l)
		if string(w) != l {
			renamed++
		}
	}
	require.Greater(t, renamed, 1000)
	require.Len(t, got.other, len(want.other))
}
