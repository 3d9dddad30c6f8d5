package testcorpus

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeRepo makes root/repo (with a go.mod and a package folder) and, when
// withCorpus, root/shared/corpus; the test runs in repo/pkg, as a
// package's test does.
func fakeRepo(t *testing.T, withCorpus bool) (root string) {
	root = t.TempDir()
	for _, d := range []string{"repo/pkg", "other/corpus"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if withCorpus {
		if err := os.MkdirAll(filepath.Join(root, "shared", "corpus"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "repo", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "repo", "pkg"))
	return root
}

// TestDirDefaultIsBesideTheCheckout: unset, the corpus is ../shared/corpus
// from the repository's root, wherever in it the test runs.
func TestDirDefaultIsBesideTheCheckout(t *testing.T) {
	t.Setenv(Env, "")
	root := fakeRepo(t, true)
	got, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "shared", "corpus"); got != want {
		t.Fatalf("Dir() = %s, want %s", got, want)
	}
	if n := Name(filepath.Join(got, "a", "b.jsonl")); n != "corpus/a/b.jsonl" {
		t.Errorf("Name = %s", n)
	}
	if n := Name("../testdata/x.jsonl"); n != "../testdata/x.jsonl" {
		t.Errorf("Name of a testdata path = %s", n)
	}
}

// TestDirFromTheVariable: CCSURGEON_CORPUS names the corpus, absolute or
// from the repository's root.
func TestDirFromTheVariable(t *testing.T) {
	root := fakeRepo(t, false)
	want := filepath.Join(root, "other", "corpus")
	for _, v := range []string{want, "../other/corpus"} {
		t.Setenv(Env, v)
		got, err := Dir()
		if err != nil || got != want {
			t.Errorf("%s=%s: Dir() = %q, %v; want %s", Env, v, got, err, want)
		}
	}
}

// TestMissingCorpusSaysWhatToSet: without the corpus the reason names the
// path and the variable; skipped when unset (a fresh clone), an error
// when the variable names a folder that is not there, and in CI.
func TestMissingCorpusSaysWhatToSet(t *testing.T) {
	fakeRepo(t, false)
	t.Setenv("CI", "true")
	t.Setenv(Env, "")
	if _, err := Dir(); missing(err) {
		t.Fatalf("Dir() error %v: in CI a missing corpus must fail, not skip", err)
	}
	t.Setenv("CI", "")
	_, err := Dir()
	var me *MissingError
	if !errors.As(err, &me) || !missing(err) {
		t.Fatalf("Dir() error %v: want a MissingError to skip on", err)
	}
	if want := "../shared/corpus not found beside the checkout (set CCSURGEON_CORPUS to the corpus folder)"; err.Error() != want {
		t.Errorf("reason %q, want %q", err, want)
	}
	t.Setenv(Env, "nowhere")
	_, err = Dir()
	if !errors.As(err, &me) || missing(err) {
		t.Fatalf("Dir() error %v: a corpus named on purpose and not there must fail, not skip", err)
	}
	if want := "CCSURGEON_CORPUS=nowhere not found (" + me.Path + " is not a folder)"; err.Error() != want {
		t.Errorf("reason %q, want %q", err, want)
	}
}
