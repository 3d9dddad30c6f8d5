package backup

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// removalCalls are the calls that remove a file or folder by its name:
// through a folder on the way swapped for a link they remove what the
// link leads to. The removals that follow no link are backup's
// removeBeneath, removeDirBeneath, removeAllBeneath and sweepBeneath
// (beneath_unix.go: unlinkat from a folder opened O_NOFOLLOW).
var removalCalls = map[string]bool{
	"os.Remove": true, "os.RemoveAll": true,
	"syscall.Unlink": true, "syscall.Rmdir": true, "unix.Unlink": true, "unix.Rmdir": true,
}

// removalRoots are the packages whose code removes files or makes folders,
// and the command layer above them (the tests'
// working folder is backup/).
var removalRoots = []string{"../backup", "../ops", "../chain", "../validate", "../doctor", "../internal/app", "../internal/cli"}

// TestEveryRemovalByNameIsListed: every call that removes a file or
// folder by its name in the packages that touch a config dir stands in
// byNameRemovals, which says why that one cannot remove a file outside
// the config dir through a folder swapped for a link (or that it cannot
// help it: windows). A new one fails here, naming its function: if its
// path can lie below a project folder or the backups, it removes through
// removeBeneath, removeDirBeneath, removeAllBeneath or sweepBeneath; else
// it is listed with its reason. A listed one that is gone fails too, so
// that the list stays true. Keyed by file and function, with the number
// of calls in it: a second removal in a listed function is new.
//
// What it cannot tell: a removal written through another package's
// function (filepath.WalkDir with a remove in a closure counts, and so
// does os.Remove taken as a value; a new helper in a package not in
// removalRoots does not).
func TestEveryRemovalByNameIsListed(t *testing.T) {
	found := callsIn(t, removalRoots, removalCalls)
	if found["backup/beneath_windows.go:removeBeneath"] == 0 || found["ops/redactlog.go:newRedactLog"]+found["backup/atomic.go:writeAtomic"] == 0 {
		t.Fatalf("found %v: not the tree this test reads", found)
	}
	checkListed(t, found, byNameRemovals, "removes", "remove below a project folder or the backups with removeBeneath/removeDirBeneath/removeAllBeneath/sweepBeneath")
}

// callsIn counts, by "file:function" (a method as Type.Method), the uses
// of calls (a call, or the function taken as a value) in the non-test Go
// files below roots (testdata left out).
func callsIn(t *testing.T, roots []string, calls map[string]bool) map[string]int {
	t.Helper()
	found := map[string]int{}
	fset := token.NewFileSet()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(p, "../"))
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				name := fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) > 0 {
					typ := fn.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				ast.Inspect(fn, func(n ast.Node) bool {
					// a call, or the function taken as a value
					// (remove := os.Remove): every use counts
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && calls[x.Name+"."+sel.Sel.Name] {
						found[rel+":"+name]++
					}
					return true
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found
}

// checkListed fails for each site of found (verb: what its calls do by
// name) not in listed, listed with another count, and for each listed
// site that is gone; fix says what a new one does instead.
func checkListed(t *testing.T, found map[string]int, listed map[string]struct {
	n   int
	why string
}, verb, fix string) {
	t.Helper()
	var problems []string
	for site, n := range found {
		want, ok := listed[site]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s %s by name (%d use(s)), and is not listed: %s, or list it with why it is safe", site, verb, n, fix))
		case want.n != n:
			problems = append(problems, fmt.Sprintf("%s %s by name %d time(s), the list says %d: a new one goes beneath, or is listed", site, verb, n, want.n))
		}
	}
	for site := range listed {
		if found[site] == 0 {
			problems = append(problems, fmt.Sprintf("%s is listed and %s nothing by name any more: take it out of the list", site, verb))
		}
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// byNameRemovals: every removal by name, and why it may be one.
var byNameRemovals = map[string]struct {
	n   int
	why string
}{
	// windows has no unlinkat: its beneath removals check each folder
	// on the way by name, then remove by name (beneath_windows.go)
	"backup/beneath_windows.go:removeBeneath":    {1, "windows: checked by name (checkBeneath), then removed by name"},
	"backup/beneath_windows.go:removeDirBeneath": {1, "windows: checked by name (checkBeneath), then removed by name"},
	"backup/beneath_windows.go:removeAllBeneath": {2, "windows: checked by name (checkBeneath); os.RemoveAll removes a link inside, never follows it"},
	"backup/beneath_windows.go:sweepBeneath":     {1, "windows: checked by name (checkBeneath), then removed by name"},
	// writes that make their file by name: the removal is of this call's
	// own temp or new file, at the name it just made (the write itself
	// goes where the name leads; safety3 left these writers by name)
	"backup/atomic.go:writeAtomic": {1, "its own temp, made a moment before by name (WriteFileAtomic: ccsurgeon's own files, an index, -o)"},
	"backup/atomic.go:renderTemp":  {1, "its own temp, on a failed render (the by-name writer)"},
	"backup/atomic.go:finishTemp":  {1, "its own temp of a by-name write (a beneath one passes root: removeBeneath)"},
	"backup/atomic.go:renderNew":   {1, "the file it made a moment before with O_EXCL, on a failed render"},
	"backup/atomic.go:finishNew":   {1, "the file renderNew made, on a failed fsync"},
	// the new-session writer (clonenew3's this round: not touched here)
	"backup/atomic.go:createNew":               {1, "its own temp once linked (the new-session writer: clonenew3's)"},
	"backup/atomic.go:DirSync.Last":            {2, "its own temp, and the link it made a moment before on a failed fsync (the new-session writer: clonenew3's)"},
	"backup/atomic.go:DirSync.RemoveMade":      {1, "only what the batch made, while os.SameFile says it is still that file (the new-session writer: clonenew3's)"},
	"backup/recover.go:NewFiles.Folder":        {1, "the folder it made a moment before, empty, on a failed mark (the new-session writer: clonenew3's)"},
	"backup/recover.go:NewFiles.RemoveMarkers": {1, "its own marks and list, once the new session is whole or before a failed one's folders go (the new-session writer: clonenew3's; Done calls it)"},
	"internal/app/write.go:madeList.removeAll": {1, "a failed creation's own files and folders, each only as it made it (the new-session writer: clonenew3's)"},
	// ccsurgeon's own folders, not a project folder
	"backup/recover.go:rollForward": {2, "only for a step with no root: an older version's journal recovered with no project folder known (else the step's root or the project folder: removeBeneath)"},
	// outside any config dir
	"internal/app/write.go:job.toStdout":  {1, "its scratch file in the system's temp folder (os.CreateTemp)"},
	"ops/redactlog.go:RedactionLog.flush": {1, "its scratch file in the system's temp folder, unnamed as soon as made"},
	"ops/redactlog.go:RedactionLog.Close": {1, "its scratch file in the system's temp folder"},
}
