package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"
)

// xxh128Hex is the XXH3-128 of a file's bytes as `xxh128sum` prints it.
func xxh128Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := xxh3.Hash128(b).Bytes()
	return hex.EncodeToString(s[:])
}

// The checksum is XXH3-128 as xxHash's own tools print it (its published
// value for no bytes), whatever size the pieces are written in.
func TestChecksumIsXXH128(t *testing.T) {
	h := newChecksum()
	assert.Equal(t, "99aa06d3014798d86001c324468d497f", sumOf(h), "XXH3-128 of no bytes")
	data := []byte(strings.Repeat(`{"type":"user","message":{"content":"héllo"}}`+"\n", 5000))
	for _, piece := range []int{1, 7, 4096, len(data)} {
		h := newChecksum()
		for i := 0; i < len(data); i += piece {
			_, _ = h.Write(data[i:min(len(data), i+piece)])
		}
		s := xxh3.Hash128(data).Bytes()
		assert.Equal(t, hex.EncodeToString(s[:]), sumOf(h), "written %d bytes at a time", piece)
	}
}

// A restore checks every checksum a manifest records, of either version,
// before it writes a byte: a backup with a right one goes back, one with
// a wrong or missing one is refused as damaged and the session is left as
// it is. Each member names the manifest it was given.
func TestRestoreChecksFamily(t *testing.T) {
	const original = "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n"
	shaOf := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	xxhOf := func(s string) string { b := xxh3.Hash128([]byte(s)).Bytes(); return hex.EncodeToString(b[:]) }
	wrongXXH, wrongSHA := strings.Repeat("ab", 16), strings.Repeat("cd", 32)
	tests := []struct {
		name     string
		version  int
		sums     map[string]string // the main file's checksums in the manifest ("": none)
		restores bool
		why      string // in the error when refused
	}{
		{"version 2, as written now", 2, nil, true, ""},
		{"version 1: sha256 only, as ccsurgeon wrote before", 1, map[string]string{"sha256": shaOf(original)}, true, ""},
		{"both recorded, both right", 2, map[string]string{"xxh128": xxhOf(original), "sha256": shaOf(original)}, true, ""},
		{"xxh128 wrong", 2, map[string]string{"xxh128": wrongXXH}, false, "xxh128 checksum mismatch"},
		{"version 1: sha256 wrong", 1, map[string]string{"sha256": wrongSHA}, false, "sha256 checksum mismatch"},
		{"xxh128 right, sha256 wrong", 2, map[string]string{"xxh128": xxhOf(original), "sha256": wrongSHA}, false, "sha256 checksum mismatch"},
		{"xxh128 wrong, sha256 right", 2, map[string]string{"xxh128": wrongXXH, "sha256": shaOf(original)}, false, "xxh128 checksum mismatch"},
		{"no checksum", 2, map[string]string{}, false, "no checksum recorded"},
		{"xxh128 of other bytes of the same size", 2, map[string]string{"xxh128": xxhOf(strings.ToUpper(original))}, false, "xxh128 checksum mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			require.Equal(t, original, readString(t, e.main))
			res, err := Apply(Plan{ConfigDir: e.configDir, SessionID: testSession, Op: "edit",
				Files: []FileWrite{{Path: e.main, Snapshot: snap(t, e.main), Render: str("new\n")}}})
			require.NoError(t, err)
			mp := filepath.Join(res.BackupDir, manifestName)
			raw, err := os.ReadFile(mp)
			require.NoError(t, err)
			var m map[string]any
			require.NoError(t, json.Unmarshal(raw, &m))
			assert.EqualValues(t, manifestVersion, m["version"], "the manifest a backup writes now")
			files := m["files"].([]any)
			require.Len(t, files, 1)
			f0 := files[0].(map[string]any)
			assert.Equal(t, xxhOf(original), f0["xxh128"], "the checksum written is the saved bytes'")
			assert.NotContains(t, f0, "sha256")
			if tc.sums != nil {
				delete(f0, "xxh128")
				for k, v := range tc.sums {
					f0[k] = v
				}
				m["version"] = tc.version
				raw, err = json.Marshal(m)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(mp, raw, 0o600))
			}
			_, _, err = Restore(RestoreOptions{ConfigDir: e.configDir, SessionID: testSession, ProjectDir: e.projectDir, Force: true})
			if tc.restores {
				require.NoError(t, err)
				assert.Equal(t, original, readString(t, e.main))
				return
			}
			require.Error(t, err)
			var de *DamagedError
			require.ErrorAs(t, err, &de)
			assert.Contains(t, err.Error(), tc.why)
			assert.Equal(t, "new\n", readString(t, e.main), "a refused restore changes nothing")
		})
	}
}
