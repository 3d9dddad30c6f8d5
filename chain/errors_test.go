package chain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigDirAndNoMatchAreFacts: a config dir that cannot hold sessions
// and a SESSION that matches none come back as typed errors carrying what
// was looked at, with no flag or command of the CLI in their words (the
// command layer adds the hint).
func TestConfigDirAndNoMatchAreFacts(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere")
	var cd *ConfigDirError
	if err := CheckConfigDir(missing); !errors.As(err, &cd) || cd.Dir != missing || !cd.Missing {
		t.Fatalf("CheckConfigDir(missing) = %v, want a ConfigDirError{Dir: %s, Missing: true}", err, missing)
	}
	if err := CheckConfigDir(dir); !errors.As(err, &cd) || cd.Dir != dir || cd.Missing {
		t.Fatalf("CheckConfigDir(no projects/) = %v, want a ConfigDirError{Dir: %s}", err, dir)
	}
	if err := os.Mkdir(ProjectsDir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckConfigDir(dir); err != nil {
		t.Fatalf("CheckConfigDir(with projects/) = %v", err)
	}
	_, err := Locate(dir, "3f2a9c1e")
	var nm *NoMatchError
	if !errors.As(err, &nm) || nm.Arg != "3f2a9c1e" || nm.ProjectsDir != ProjectsDir(dir) {
		t.Fatalf("Locate(no such id) = %v, want a NoMatchError", err)
	}
	for _, err := range []error{&ConfigDirError{Dir: dir}, &ConfigDirError{Dir: dir, Missing: true}, nm} {
		if s := err.Error(); strings.Contains(s, "--") || strings.Contains(s, "ccsurgeon") {
			t.Errorf("%q names the CLI", s)
		}
		var h interface{ HintText() string }
		if errors.As(err, &h) {
			t.Errorf("%T carries a hint: the command layer words it", err)
		}
	}
}
