package backup

import (
	"crypto/sha256"
	"hash"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkChecksum: the backup's checksum (XXH3-128) against the sha256
// of manifest version 1, over CCSURGEON_BENCH_FILE (a session's
// transcript; else 64 MB of lines), read from memory in 1 MB pieces as
// HashAhead reads the file:
//
//	CCSURGEON_BENCH_FILE=F go test ./backup -run '^$' -bench Checksum -benchtime 5x
func BenchmarkChecksum(b *testing.B) {
	var data []byte
	if p := os.Getenv("CCSURGEON_BENCH_FILE"); p != "" {
		var err error
		data, err = os.ReadFile(p)
		require.NoError(b, err)
	} else {
		line := []byte(`{"type":"user","uuid":"0123","message":{"role":"user","content":"a line of a session"}}` + "\n")
		for len(data) < 64<<20 {
			data = append(data, line...)
		}
	}
	for _, c := range []struct {
		name string
		new  func() hash.Hash
	}{{"xxh128", newChecksum}, {"sha256", sha256.New}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				h := c.new()
				for i := 0; i < len(data); i += 1 << 20 {
					_, _ = h.Write(data[i:min(len(data), i+1<<20)])
				}
				_ = h.Sum(nil)
			}
		})
	}
}
