package backup

import "testing"

// mkdirCalls are the calls that make a folder by its name: through a
// folder on the way swapped for a link they make it where the link leads
// (and then the files written into it). The ones that follow no link are
// backup's makeDirs, makeDir, mkdirBeneath and mkdirOneBeneath
// (beneath_unix.go: mkdirat from a folder opened O_NOFOLLOW).
var mkdirCalls = map[string]bool{
	"os.Mkdir": true, "os.MkdirAll": true, "os.MkdirTemp": true,
	"syscall.Mkdir": true, "unix.Mkdir": true,
}

// TestEveryMkdirByNameIsListed: every call that makes a folder by its
// name in the packages that touch a config dir stands in byNameMkdirs,
// which says why that one cannot make a folder outside the config dir
// through a folder swapped for a link (or that it cannot help it:
// windows). A new one fails here, naming its function: a folder below the
// config dir is made with makeDirs or makeDir (from the config dir down,
// following no link; TestNoFolderMadeThroughAFolderSwappedForALink has a
// member per place), else it is listed with its reason. A listed one that
// is gone fails too. Keyed by file and function, with the number of calls
// in it. What it cannot tell: as TestEveryRemovalByNameIsListed.
func TestEveryMkdirByNameIsListed(t *testing.T) {
	found := callsIn(t, removalRoots, mkdirCalls)
	if found["backup/beneath_windows.go:mkdirBeneath"] == 0 {
		t.Fatalf("found %v: not the tree this test reads", found)
	}
	checkListed(t, found, byNameMkdirs, "makes a folder", "make a folder below the config dir with makeDirs/makeDir (mkdirBeneath, mkdirOneBeneath)")
}

// byNameMkdirs: every folder made by name, and why it may be.
var byNameMkdirs = map[string]struct {
	n   int
	why string
}{
	// windows has no mkdirat: its beneath folders check each folder on
	// the way by name, then make the folder by name (beneath_windows.go)
	"backup/beneath_windows.go:mkdirBeneath":    {1, "windows: each folder made by name, then checked (Lstat) for a link or junction before the next"},
	"backup/beneath_windows.go:mkdirOneBeneath": {1, "windows: checked by name (checkBeneath), then made by name"},
	// a DirSync with no Base: the two writers of new sessions and share
	// folders (internal/app writeNewSession, writeFolder) set it
	"backup/atomic.go:DirSync.mkdir":    {1, "a batch with no Base and no root (tests only: writeNewSession's Base is the config dir, writeFolder's the -o folder)"},
	"backup/atomic.go:DirSync.makeDirs": {1, "a batch with no Base (tests only, as DirSync.mkdir)"},
	"backup/atomic.go:DirSync.Mkdir":    {1, "with no Base: the folder -o DIR/ names, the user's own (its parent must be there; -o under projects/ is refused before)"},
}
