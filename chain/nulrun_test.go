package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNULRunIsIndexedByOffsetNotKept: a run of NUL bytes of many blocks
// (crash padding) between lines, with either line end, and one to EOF, is
// one invalid line recorded by offset and length; the lines around it
// keep theirs; the file is written back byte for byte; and the load
// allocates a small part of the file's size (the splitter held the whole
// run, doubling its buffer).
func TestNULRunIsIndexedByOffsetNotKept(t *testing.T) {
	a := `{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}`
	b := `{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}`
	run := 48*blockSize + 123
	for _, eol := range []string{"\n", "\r\n", ""} {
		t.Run(strings.ReplaceAll(strings.ReplaceAll(eol, "\r", "CR"), "\n", "LF"), func(t *testing.T) {
			var data []byte
			data = append(data, a+"\n"...)
			data = append(data, make([]byte, run)...)
			data = append(data, "tail"+eol...)
			if eol != "" {
				data = append(data, b+"\n"...)
			}
			p := filepath.Join(t.TempDir(), "s.jsonl")
			require.NoError(t, os.WriteFile(p, data, 0o600))
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			f, err := LoadFile(p)
			runtime.ReadMemStats(&m1)
			require.NoError(t, err)
			defer f.Close()
			assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(len(data)/4), "the load held the run")
			want := 3
			if eol == "" {
				want = 2
			}
			require.Len(t, f.Entries, want)
			e := f.Entries[1]
			assert.Equal(t, KindInvalid, e.Kind)
			assert.Equal(t, int64(len(a)+1), e.Off)
			assert.Equal(t, run+len("tail"), int(e.Len))
			assert.Equal(t, len(eol), int(e.EOL))
			assert.Equal(t, int64(len(data)), f.Size)
			if eol != "" {
				assert.Equal(t, KindEntry, f.Entries[2].Kind)
				assert.Equal(t, e.Off+e.TotalBytes(), f.Entries[2].Off)
			}
			var out bytes.Buffer
			_, err = f.Write(&out, nil, func(b []byte) []byte { return b })
			require.NoError(t, err)
			assert.True(t, bytes.Equal(data, out.Bytes()), "not written back byte for byte")
		})
	}
}
