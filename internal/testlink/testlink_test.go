package testlink

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryLinkTestCallsNeed: a test file that is built on Windows (no
// build constraint that leaves it out) and makes a symbolic link
// (os.Symlink) calls Need, so that where links cannot be made its link
// tests skip saying why instead of failing. A new one fails here, naming
// the file. (A file may make a link that is not its subject, copying a
// tree that holds one: it is listed here with why.)
func TestEveryLinkTestCallsNeed(t *testing.T) {
	notTheSubject := map[string]string{
		"internal/cli/hints_test.go": "copyTreeKeepingTimes copies a tree as it is, a link in it too; no test there is about a link",
	}
	var problems []string
	seen := 0
	for _, root := range []string{"../../backup", "../../internal/app", "../../internal/cli", "../../ops", "../../chain", "../../validate", "../../doctor"} {
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			p := filepath.Join(root, e.Name())
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if !onWindows(f, e.Name()) {
				continue
			}
			links, needs := 0, 0
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						switch x.Name + "." + sel.Sel.Name {
						case "os.Symlink":
							links++
						case "testlink.Need":
							needs++
						}
					}
				}
				return true
			})
			rel := strings.TrimPrefix(filepath.ToSlash(p), "../../")
			if links > 0 {
				seen++
			}
			if links > 0 && needs == 0 && notTheSubject[rel] == "" {
				problems = append(problems, rel+" makes a link and never calls testlink.Need: call it first in each test (or member) whose subject is a link")
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found %d files that make links: not the tree this test reads", seen)
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// onWindows reports whether the test file f (named name) is built on
// Windows: its //go:build line and its name's _GOOS suffix allow it.
func onWindows(f *ast.File, name string) bool {
	base := strings.TrimSuffix(name, "_test.go")
	for _, goos := range []string{"linux", "darwin", "freebsd", "openbsd", "netbsd", "unix"} {
		if strings.HasSuffix(base, "_"+goos) {
			return false
		}
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				expr, err := constraint.Parse(c.Text)
				if err != nil {
					return true
				}
				return expr.Eval(func(tag string) bool { return tag == "windows" })
			}
		}
	}
	return true
}
