package app

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/require"
)

// TestOwnSweepsRemoveNothingThroughAFolderSwappedForALink: ccsurgeon
// cleans up after its killed runs: the next run on a session removes their
// temp files (.<name>.ccsurgeon-tmp-<pid>-…, Recover's sweep and the sweep
// of the target's temps before each write), a killed new session's list
// and the files it names (.<id>.jsonl.ccsurgeon-files), and its
// unfinished folders (marked .ccsurgeon-incomplete). The session's project
// folder swapped for a link to a folder outside the config dir, as a sweep
// starts, holding a file of each of those kinds (a dead pid in every name
// and mark, no main transcript: each reads as a leftover) must have none
// of them removed: the sweeps remove beneath the config dir, or nothing.
// A member per sweep (step); the failure names the kind of file removed.
func TestOwnSweepsRemoveNothingThroughAFolderSwappedForALink(t *testing.T) {
	for _, step := range []string{"sweep-temps", "stale-temps"} {
		t.Run(step, func(t *testing.T) { testOwnSweepsRemoveNothing(t, step) })
	}
}

func testOwnSweepsRemoveNothing(t *testing.T, step string) {
	testlink.Need(t)
	e := newMoveEnv(t, "thinking-tool-loop", "old")
	folder := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
	outside := filepath.Join(e.root, "outside-folder")
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	pid := strconv.Itoa(dead.Process.Pid)
	newID := "0b0e0a2c-1111-4222-8333-944455556666"
	// what one who can write the outside folder puts there, by kind
	planted := map[string]string{
		"a temp file of the session's transcript":        "." + e.id + ".jsonl.ccsurgeon-tmp-" + pid + "-0a1b2c3d4e5f",
		"a temp file of another name":                    ".notes.txt.ccsurgeon-tmp-" + pid + "-0a1b2c3d4e5f",
		"a file a killed new session's list names":       "agent-0123abcd-a1eb358aa10f9c9a1.jsonl",
		"a killed new session's list":                    "." + newID + ".jsonl.ccsurgeon-files",
		"a file in a killed new session's folder":        filepath.Join(newID, "kept.txt"),
		"the mark of a killed new session's folder":      filepath.Join(newID, ".ccsurgeon-incomplete"),
		"a temp file in a killed new session's folder":   filepath.Join(newID, ".x.ccsurgeon-tmp-"+pid+"-0a1b2c3d4e5f"),
		"a temp file of a folder without a mark":         filepath.Join("unmarked", ".y.ccsurgeon-tmp-"+pid+"-0a1b2c3d4e5f"),
		"a temp file of a subagent folder's transcript ": filepath.Join(e.id, "subagents", ".agent-x.jsonl.ccsurgeon-tmp-"+pid+"-0a1b2c3d4e5f"),
	}
	body := map[string]string{
		planted["a killed new session's list"]: pid + "\n" + filepath.Join(folder, newID+".jsonl") + "\n" +
			filepath.Join(folder, planted["a file a killed new session's list names"]) + "\n",
		planted["the mark of a killed new session's folder"]: pid + "\n" + filepath.Join(folder, newID+".jsonl") + "\n",
	}
	var once, checked sync.Once
	swapped := false
	gone := map[string]bool{} // kind → removed, as the sweep has run
	check := func() {
		for kind, rel := range planted {
			if _, err := os.Lstat(filepath.Join(outside, rel)); err != nil {
				gone[kind] = true
			}
		}
	}
	backup.TestHook = func(s string) {
		// the run sweeps before it takes its backup; a link that is there
		// by then is one the in-place change follows as the user's (a
		// config dir whose projects/ is a link): Recover's sweeps are
		// judged once they are over
		if s == "after-backup" && step == "sweep-temps" && swapped {
			checked.Do(check)
		}
		if s != step+":"+folder {
			return
		}
		once.Do(func() {
			swapForOutsideCopy(t, folder, filepath.Join(e.root, "moved-away"), outside)
			for _, rel := range planted {
				p := filepath.Join(outside, rel)
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
				b, ok := body[rel]
				if !ok {
					b = "a file outside the config dir\n"
				}
				require.NoError(t, os.WriteFile(p, []byte(b), 0o600))
			}
			swapped = true
		})
	}
	defer func() { backup.TestHook = nil }()
	var errb bytes.Buffer
	env := &Env{ConfigDir: e.cfg, Out: io.Discard, Err: &errb, Quiet: true}
	err := env.RunOps(e.id, OpSpec{StripThinking: true}, Dest{Force: true})
	backup.TestHook = nil
	t.Logf("the change says: %v (%s)", err, errb.String())
	require.True(t, swapped, "the sweep never came to %s (step %s)", folder, step)
	checked.Do(check)
	for kind, rel := range planted {
		if gone[kind] {
			t.Errorf("%s: %s was removed outside the config dir, through a folder swapped for a link", kind, filepath.Join(outside, rel))
		}
	}
}
