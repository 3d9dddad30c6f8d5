package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/require"
)

// TestStepTimeline: CCSURGEON_STEPS=FILE writes every named step of a
// command's writes, one a line: the milliseconds since the start, the
// process's user and system CPU in milliseconds, and the step (the
// timeline BENCHMARKS.md's step figures come from). A clone as a new
// session names its read, its temp and its link; the hook is gone after
// the run, and the output is the same as without the variable.
func TestStepTimeline(t *testing.T) {
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "-p")
	require.NoError(t, os.MkdirAll(proj, 0o700))
	src, err := os.ReadFile(example)
	require.NoError(t, err)
	id := "0b7e5c1a-1111-4222-8333-944455556661"
	require.NoError(t, os.WriteFile(filepath.Join(proj, id+".jsonl"), src, 0o600))
	steps := filepath.Join(t.TempDir(), "steps.txt")
	t.Setenv("CCSURGEON_STEPS", steps)
	var out, errb bytes.Buffer
	code := Main([]string{"ccsurgeon", "--config-dir", cfg, "-q", "clone", id}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Nil(t, backup.TestHook, "the timeline's hook is left set after the run")
	b, err := os.ReadFile(steps)
	require.NoError(t, err, "no timeline written")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var names []string
	last := -1.0
	for _, l := range lines {
		f := strings.SplitN(l, " ", 4)
		require.Len(t, f, 4, "line %q", l)
		for _, n := range f[:3] {
			v, perr := strconv.ParseFloat(n, 64)
			require.NoError(t, perr, "line %q", l)
			require.GreaterOrEqual(t, v, 0.0, "line %q", l)
		}
		at, _ := strconv.ParseFloat(f[0], 64)
		require.GreaterOrEqual(t, at, last, "times go back: %q", l)
		last = at
		names = append(names, f[3])
	}
	for _, want := range []string{"write-session-read", "create-before-link"} {
		require.Contains(t, names, want, "timeline: %v", names)
	}
}
