// Package testcorpus finds the real Claude Code transcripts some tests
// read besides testdata/: one setting, the environment variable
// CCSURGEON_CORPUS, whose default is ../shared/corpus beside the
// checkout. A clone with nothing beside it has no corpus: the tests that
// need it are skipped with the reason (which path, which variable), and
// those that read testdata/ too still run that part.
package testcorpus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

// Env is the variable naming the corpus folder. A relative value is taken
// from the repository's root (the folder of go.mod), as the default is.
const Env = "CCSURGEON_CORPUS"

// Default is where the corpus is when Env is not set, from the
// repository's root.
const Default = "../shared/corpus"

// MissingError is Dir's error when the corpus is not there; it reads as
// the reason a test did not run: which path, which variable to set.
type MissingError struct {
	Path  string // the folder looked for, absolute
	Value string // what named it: $CCSURGEON_CORPUS, else Default
	Set   bool   // CCSURGEON_CORPUS named it
}

func (e *MissingError) Error() string {
	if e.Set {
		return fmt.Sprintf("%s=%s not found (%s is not a folder)", Env, e.Value, e.Path)
	}
	return fmt.Sprintf("%s not found beside the checkout (set %s to the corpus folder)", Default, Env)
}

// Dir returns the corpus folder, absolute: $CCSURGEON_CORPUS, else
// ../shared/corpus beside the repository. When the folder is not there
// the error is a *MissingError.
func Dir() (string, error) {
	v, set := os.LookupEnv(Env)
	if v == "" {
		v, set = Default, false
	}
	dir := v
	if !filepath.IsAbs(dir) {
		root, err := harness.RepoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, v)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", &MissingError{Path: dir, Value: v, Set: set}
	}
	return dir, nil
}

// missing reports whether a test without the corpus is skipped: when the
// corpus is simply not there (a fresh clone). It fails when
// CCSURGEON_CORPUS names a folder that is not there (a setting given on
// purpose must not turn into tests quietly not run), and in CI (CI set),
// which always has the corpus: a test skipped there would prove nothing.
func missing(err error) bool {
	var me *MissingError
	return errors.As(err, &me) && !me.Set && os.Getenv("CI") == ""
}

// Require returns the corpus folder, or ends t: skipped with the reason
// when the corpus is simply not there, failed when CCSURGEON_CORPUS names
// a folder that is not.
func Require(t testing.TB) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		if !missing(err) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return dir
}

// Path is Require joined with elem: a file or folder of the corpus.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Require(t)}, elem...)...)
}

// Optional is for a test that reads testdata/ and the corpus: it returns
// the corpus folder, or "" when the corpus is not there, after a subtest
// named "corpus" is skipped with the reason, so the part of the test that
// did not run is counted and said (go test -json reports the skip), while
// the testdata part runs. It fails t as Require does when
// CCSURGEON_CORPUS names a folder that is not there.
func Optional(t *testing.T) string {
	t.Helper()
	dir, err := Dir()
	if err == nil {
		return dir
	}
	if !missing(err) {
		t.Fatal(err)
	}
	t.Run("corpus", func(t *testing.T) { t.Skip(err) })
	return ""
}

// Name is p's name for test names and messages: "corpus/" and its path
// in the corpus when p is in it, else p as given.
func Name(p string) string {
	dir, err := Dir()
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(rel) {
		return p
	}
	return filepath.ToSlash(filepath.Join("corpus", rel))
}

// JSONLFiles lists every .jsonl file under testdata (the repository's
// testdata folder as the test names it) and under the corpus, when it is
// there (Optional).
func JSONLFiles(t *testing.T, testdata string) []string {
	t.Helper()
	var out []string
	for _, root := range []string{testdata, Optional(t)} {
		if root == "" {
			continue
		}
		if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
