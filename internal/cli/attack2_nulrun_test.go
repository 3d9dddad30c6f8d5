package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNULRunsCostNoMemory: a file that ends in a run of NUL bytes (a sparse
// file, the padding a crash leaves; cheap to make with truncate) cost 1.3×
// its size in memory: the loader's line splitter kept the whole "line" of
// NULs, doubling its buffer until a newline came (doctor on a 3.2 GB one:
// 3.95 GB). Such a line is never JSON: it is recorded by offset and length.
// Every command that reads the file allocates less than half of its size
// in all (runtime.MemStats.TotalAlloc, a bound on the peak too), and still
// says what the line is.
func TestNULRunsCostNoMemory(t *testing.T) {
	const size = 256 << 20
	cfg := t.TempDir()
	path, _ := installSessionOf(t, cfg, "-tmp-p", "/tmp/p")
	id := idOf(path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:3], "")), 0o600))
	require.NoError(t, os.Truncate(path, size)) // a run of NULs to the end, no newline
	hist := filepath.Join(cfg, "history.jsonl")
	require.NoError(t, os.WriteFile(hist, []byte(`{"display":"hi","project":"/tmp/p","sessionId":"`+id+`"}`+"\n"), 0o600))
	require.NoError(t, os.Truncate(hist, size))
	for _, tc := range []struct {
		args []string
		says string // what is said of the NUL line
	}{
		{[]string{"validate", id}, "NUL"},
		{[]string{"info", id}, ""},
		{[]string{"doctor"}, ""},
		{[]string{"repair", id, "--dry-run"}, ""},
		{[]string{"turns", id}, ""},
		{[]string{"move", id, "--to", filepath.Join(t.TempDir(), "elsewhere"), "--dry-run"}, ""},
	} {
		t.Run(strings.Join(tc.args[:1], " "), func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			stdout, stderr, _ := cliRun(t, append([]string{"--config-dir", cfg}, tc.args...)...)
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("%s: %d MB allocated for a file of %d MB", tc.args[0], alloc>>20, size>>20)
			assert.Less(t, alloc, uint64(size/2), "allocated more than half the file's size\n%s%s", stdout, stderr)
			if tc.says != "" {
				assert.Contains(t, stdout+stderr, tc.says)
			}
		})
	}
}
