package chain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordedCwd: the working directory the client takes a session to
// belong to is the relocatedCwd of the last "relocated" entry in the
// file's last 64 KB, else the first cwd in its first 64 KB: a relocation
// further back, or a cwd only after the head, does not count.
func TestRecordedCwd(t *testing.T) {
	entry := func(n int, cwd string) string {
		return fmt.Sprintf(`{"type":"user","uuid":"00000000-0000-4000-8000-%012d","parentUuid":null,"sessionId":"s","cwd":%q,"message":{"role":"user","content":"q"}}`, n, cwd)
	}
	pad := func(n int) string { // n bytes of lines without a cwd
		return strings.Repeat(`{"type":"queue-operation","content":"`+strings.Repeat("x", 900)+`"}`+"\n", n/940+1)
	}
	reloc := func(cwd string) string {
		return fmt.Sprintf(`{"type":"relocated","sessionId":"s","relocatedCwd":%q}`, cwd)
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"first cwd", entry(1, "/a") + "\n" + entry(2, "/b") + "\n", "/a"},
		{"relocated at the end", entry(1, "/a") + "\n" + reloc("/b") + "\n" + entry(2, "/b") + "\n", "/b"},
		{"the last relocation", entry(1, "/a") + "\n" + reloc("/b") + "\n" + reloc("/c") + "\n", "/c"},
		{"relocation before the tail", entry(1, "/a") + "\n" + reloc("/b") + "\n" + pad(70<<10), "/a"},
		{"cwd after the head", pad(70<<10) + entry(1, "/a") + "\n", ""},
		{"none", `{"type":"summary","summary":"x"}` + "\n", ""},
		{"a first line longer than the head", strings.Replace(entry(1, "/a"), `"q"`, `"`+strings.Repeat("q", 100<<10)+`"`, 1) + "\n" + pad(70<<10), "/a"},
		{"relocated after a long tail", entry(1, "/a") + "\n" + pad(200<<10) + reloc("/b") + "\n", "/b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := LoadBytes("s.jsonl", []byte(c.data))
			require.NoError(t, err)
			assert.Equal(t, c.want, RecordedCwd(f))
			// read from the head and tail windows alone, the same
			p := filepath.Join(t.TempDir(), "s.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(c.data), 0o600))
			assert.Equal(t, c.want, RecordedCwdOf(p), "RecordedCwdOf")
		})
	}
}
