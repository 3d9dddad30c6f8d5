package ops

import (
	"io"
	"os"
	"testing"
)

// BenchmarkStreamRename measures the per-line work of a plain clone (the
// loader's check of each line and the renaming of its ids) on the file
// named by CCSURGEON_BENCH_FILE (the first 64 MB of it), in one goroutine,
// without the file system: go test ./ops -run '^$' -bench StreamRename.
func BenchmarkStreamRename(b *testing.B) {
	f := benchSessionFile(b)
	data := make([]byte, 64<<20)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		b.Fatal(err)
	}
	data = data[:n]
	for n > 0 && data[n-1] != '\n' {
		n--
	}
	data = data[:n]
	work := make([]byte, len(data))
	r := benchRemapper()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		copy(work, data)
		for off := 0; off < len(work); {
			end := min(off+streamBlock, len(work))
			for end < len(work) && work[end-1] != '\n' {
				end++
			}
			r.renameBlock(&cloneBlock{data: work[off:end], first: off == 0})
			off = end
		}
	}
}

// benchSessionFile opens the session file named by CCSURGEON_BENCH_FILE
// (closed when the benchmark ends), or skips the benchmark.
func benchSessionFile(b *testing.B) *os.File {
	p := os.Getenv("CCSURGEON_BENCH_FILE")
	if p == "" {
		b.Skip("set CCSURGEON_BENCH_FILE to a session file")
	}
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// benchRemapper renames the bench's generated sessions (their id) to a
// fixed new one.
func benchRemapper() *Remapper {
	return NewRemapperFor("11111111-2222-4333-8444-555555555555", "52fdfc07-2182-454f-963f-5f0f9a621d72")
}
