package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"
)

// SessionWindows returns fuzz seeds cut from the generated sessions of
// testdata/sessions: windows of `window` consecutive lines (lines longer than
// maxLine left out), at most maxWindows lines into each file, so that a
// fuzzer starts from real entries and stays fast.
func SessionWindows(tb testing.TB, maxLine, window, maxWindows int) [][]byte {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatalf("harness: %v", err)
	}
	var files []string
	for _, v := range listdir.Matching(filepath.Join(root, "testdata", "sessions"), "*") {
		files = append(files, listdir.Matching(v, "*.jsonl")...)
	}
	if len(files) == 0 {
		tb.Fatalf("harness: no sessions under %s/testdata/sessions", root)
	}
	var out [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatalf("harness: %v", err)
		}
		var small [][]byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) <= maxLine {
				small = append(small, l)
			}
		}
		for k := 0; k+window <= len(small) && k < maxWindows; k += window {
			out = append(out, bytes.Join(small[k:k+window], nil))
		}
	}
	return out
}
