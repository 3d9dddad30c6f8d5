package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// domainRoots are the packages that return facts and typed errors: no
// flag, no ccsurgeon command and no exit code in them (the command layer,
// internal/cli and internal/app, words those). A package added under one
// of them is checked too; a new domain package is added here.
var domainRoots = []string{"chain", "ops", "backup", "validate", "doctor"}

// boundaryAllowed are the string literals of the domain that name a flag
// or a command and are right to: data, never words for the user about
// ccsurgeon's command line. Keyed by file (from the repository's root)
// and a part of the literal; an entry no literal uses fails the test.
var boundaryAllowed = map[[2]string]string{
	// the redaction rules match secrets in command lines users pasted
	// into a conversation (curl --user, docker login --password, …)
	{"ops/redact/rules.go", `"--user `}:                        "a curl option in a pasted command line",
	{"ops/redact/rules.go", `"--user=`}:                        "a curl option in a pasted command line",
	{"ops/redact/rules.go", `(?:-u|--user)`}:                   "a curl option in a pasted command line",
	{"ops/redact/structural.go", `(?:-p|--password|--secret)`}: "docker/helm login options in a pasted command line",
	{"ops/redact/structural.go", `(?:-b|--body)`}:              "gh secret set's option in a pasted command line",
	{"ops/redact/structural.go", `--password-stdin`}:           "docker login's option in a pasted command line",
	{"ops/redact/structural.go", `(?:-a|--pass)`}:              "redis-cli's option in a pasted command line",
	{"ops/redact/generic.go", `"--no-"`}:                       "a --no-X switch in pasted text takes no value",
	{"ops/redact/hand.go", `"--user"`}:                         "the hand-written matcher of the curl rule",
	{"ops/redact/cliflags.go", `--user(?:name)?`}:              "Samba clients' option in a pasted command line",
	{"ops/redact/cliflags.go", `--stdin`}:                      "passwd's option in a pasted command line",
	{"ops/redact/general6.go", `--auth`}:                       "HTTPie's option in a pasted command line",
	{"ops/redact/general7.go", `"echo -n "`}:                   "echo's option before a secret piped to a secret store in a pasted command line",
	{"ops/redact/obsconn.go", `--password`}:                    "the password option of cypher-shell/clickhouse-client in a pasted command line",
	{"ops/redact/generic.go", `"--name"`}:                      "aws ssm put-parameter's option in a pasted command line",
	{"ops/redact/generic.go", `"--value"`}:                     "aws ssm put-parameter's option in a pasted command line",
	{"ops/redact/longtail.go", `"--value"`}:                    "a secret store's option (aws ssm --type SecureString) in a pasted command line",
	{"ops/redact/longtail.go", `"--user "`}:                    "curl's option sending an API key as the Basic user in a pasted command line",
	{"ops/redact/keys.go", `--decode`}:                         "base64's option in a pasted command line",
	{"ops/redact/encoded.go", `"--decode"`}:                    "base64's option before a here-string in a pasted command line",
	// text ccsurgeon writes into the sessions it changes, which the
	// client sends to the model (internal/spec checks it)
	{"ops/fit.go", `[ccsurgeon removed %s of this conversation to fit --target-tokens %d`}: "the note written in place of the removed turns",
	{"ops/compress.go", `removed by ccsurgeon compress-old-turns`}:                         "the placeholder written in place of removed content",
	// the client's own flag, a fact about the client
	{"validate/validate.go", `--resume fails on it`}: "Claude Code's --resume, not ccsurgeon's",
}

// TestDomainNamesNoCommandLine: the domain packages (chain, ops, backup,
// validate, doctor) name no flag and no ccsurgeon command in their string
// literals, and no struct field, constant or method carries an exit
// code: they return facts and typed errors, and speak (root.go) and
// internal/app word them. A failure names the rule and file:line.
func TestDomainNamesNoCommandLine(t *testing.T) {
	root := newCommand(&app.Env{})
	var cmds, shorts []string
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) == 1 {
					shorts = append(shorts, regexp.QuoteMeta(n))
				}
			}
		}
		for _, s := range c.Commands {
			cmds = append(cmds, regexp.QuoteMeta(s.Name))
			for _, a := range s.Aliases {
				cmds = append(cmds, regexp.QuoteMeta(a))
			}
			walk(s)
		}
	}
	walk(root)
	slices.Sort(shorts)
	shorts = slices.Compact(shorts)
	if len(cmds) < 10 || !slices.Contains(cmds, "restore") || !slices.Contains(shorts, "o") {
		t.Fatalf("the command tree lists commands %v and short flags %v: not the tree this test reads", cmds, shorts)
	}
	rules := []struct {
		name string
		re   *regexp.Regexp
	}{
		{"names a --flag", regexp.MustCompile(`(^|[^\w-])--[a-z][a-z0-9-]*`)},
		{"names a short flag of ccsurgeon", regexp.MustCompile(`(^|[\s'"(])-(` + strings.Join(shorts, "|") + `)([\s'"),.=]|$)`)},
		{"names a ccsurgeon command", regexp.MustCompile(`\bccsurgeon('s)? (` + strings.Join(cmds, "|") + `)\b`)},
	}
	exitName := regexp.MustCompile(`Exit|^Code$|^Code[A-Z]`)
	intTypes := map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "uint": true, "uint8": true}

	used := map[[2]string]bool{}
	var problems []string
	files := 0
	for _, dir := range domainRoots {
		// TestMain runs the tests from the repository's root
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			rel := filepath.ToSlash(p)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			files++
			at := func(n ast.Node) string { return rel + ":" + strconv.Itoa(fset.Position(n.Pos()).Line) }
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if n.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(n.Value)
					if err != nil {
						s = n.Value
					}
					for _, r := range rules {
						m := r.re.FindString(s)
						if m == "" {
							continue
						}
						allowed := false
						for k := range boundaryAllowed {
							if k[0] == rel && strings.Contains(n.Value, k[1]) || k[0] == rel && strings.Contains(s, k[1]) {
								allowed, used[k] = true, true
							}
						}
						if !allowed {
							problems = append(problems, at(n)+": "+r.name+" ("+strings.TrimSpace(m)+") in "+n.Value+": return a fact or a typed error, and word it in internal/cli (speak) or internal/app")
						}
					}
				case *ast.StructType:
					for _, fl := range n.Fields.List {
						id, isIdent := fl.Type.(*ast.Ident)
						for _, nm := range fl.Names {
							if strings.Contains(nm.Name, "Exit") || exitName.MatchString(nm.Name) && isIdent && intTypes[id.Name] {
								problems = append(problems, at(nm)+": a struct field carries an exit code ("+nm.Name+"): the command layer chooses exit codes")
							}
						}
					}
				case *ast.ValueSpec:
					for _, nm := range n.Names {
						if exitName.MatchString(nm.Name) {
							problems = append(problems, at(nm)+": a constant or variable names an exit code ("+nm.Name+"): the command layer chooses exit codes")
						}
					}
				case *ast.FuncDecl:
					if strings.Contains(n.Name.Name, "ExitCode") {
						problems = append(problems, at(n.Name)+": "+n.Name.Name+" chooses an exit code: the command layer does")
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("read %d files of %v: not the domain packages", files, domainRoots)
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
	for k, why := range boundaryAllowed {
		if !used[k] {
			t.Errorf("allow-list entry %s %q (%s) matches no literal: remove it", k[0], k[1], why)
		}
	}
}
