package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// executableMagic are the first bytes of the programs Go builds for the
// platforms the client runs on: ELF (linux), PE's "MZ" (windows), Mach-O
// (darwin, both byte orders and the universal header).
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	[]byte("MZ"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
}

// TestNoBuiltProgramIsCommitted: a program built from this repository
// (a `go build` output for any platform) is never a file of it. One
// landed once (a 7.6 MB tokeneval.exe, removed in 099f674): every clone
// carries it forever. The repository's files are what git tracks, so a
// developer's own builds beside them (ignored by .gitignore) do not count.
func TestNoBuiltProgramIsCommitted(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs from a clean clone, whose files git lists: %v", err)
		}
		t.Skipf("not run: the repository's file list needs git in a clone (%v)", err)
	}
	var programs []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range executableMagic {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				programs = append(programs, name)
				break
			}
		}
	}
	if len(programs) > 0 {
		t.Errorf("built programs are committed (git rm --cached them; .gitignore ignores *.exe): %s", strings.Join(programs, ", "))
	}
}

// TestNoFolderIsReadAsAPattern: filepath.Glob reads the whole path it is
// given as a pattern, and a folder name with a pattern character (`[`, a
// backslash off Windows) above the config dir made it find nothing: the
// session's subagents and the client's open-session records went unseen
// (TestAConfigDirOfAnyNameSeesEverySessionFile). Every program's listing
// of a folder by pattern goes through listdir.Matching (internal/listdir), which matches names
// only.
func TestNoFolderIsReadAsAPattern(t *testing.T) {
	var found []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "filepath.Glob(") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				found = append(found, fmt.Sprintf("%s:%d", p, i+1))
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, found, "use listdir.Matching(dir, pattern): these read a folder's name as a pattern")
}
