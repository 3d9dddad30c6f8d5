package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What --version prints after "ccsurgeon version ", from the linker's
// values (a release) or the build info ('go install …@v1.2.3', 'go build'
// in a git checkout).
func TestVersionString(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev}, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		return bi
	}
	pseudo := func(version, rev, modified string) *debug.BuildInfo {
		bi := vcs(rev, modified)
		bi.Main.Version = version
		return bi
	}
	const rev = "5c2e56219ffe0e5765da04490a07b881c8f3d228"
	for _, tc := range []struct {
		name, version, commit string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"release (ldflags win)", "1.2.3", "abc1234", vcs(rev, "false"), "1.2.3 (commit abc1234)"},
		{"release tag with v", "v1.2.3", "abc1234", nil, "1.2.3 (commit abc1234)"},
		{"go build in a checkout", "", "", vcs(rev, "false"), devVersion + " (commit 5c2e56219ffe)"},
		{"go build with changes", "", "", vcs(rev, "true"), devVersion + " (commit 5c2e56219ffe, modified)"},
		{"go install @v1.4.0", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "1.4.0 (commit unknown)"},
		// 'go build' in a clone since Go 1.24: a pseudo-version of no tag,
		// "+dirty" with changes (measured: go1.26.8 in a fresh clone)
		{"go build in a clone (Go 1.24+)", "", "", pseudo("v0.0.0-20261127002428-5c2e56219ffe", rev, "false"), devVersion + " (commit 5c2e56219ffe)"},
		{"go build in a changed clone (Go 1.24+)", "", "", pseudo("v0.0.0-20261127002428-5c2e56219ffe+dirty", rev, "true"), devVersion + " (commit 5c2e56219ffe, modified)"},
		{"go build after tag v1.4.0", "", "", pseudo("v1.4.1-0.20261127002428-5c2e56219ffe+dirty", rev, "true"), "1.4.1-0.20261127002428-5c2e56219ffe (commit 5c2e56219ffe, modified)"},
		{"no build info", "", "", nil, devVersion + " (commit unknown)"},
	} {
		assert.Equal(t, tc.want, versionString(tc.version, tc.commit, tc.bi, tc.bi != nil), tc.name)
	}
}

// A binary built as GoReleaser does (-ldflags -X main.version) prints that
// version, and the commit that 'go build' recorded from the checkout
// (where Go records one: a clone, not a git worktree).
func TestVersionOfABuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ccsurgeon")
	build := exec.Command("go", "build", "-buildvcs=auto", "-ldflags", "-X main.version=9.8.7", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	info, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	commit := "unknown"
	for _, l := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "build\tvcs.revision="); ok {
			head, err := exec.Command("git", "rev-parse", "HEAD").Output()
			require.NoError(t, err)
			require.Equal(t, strings.TrimSpace(string(head)), v, "the recorded commit is the checkout's")
			commit = v[:12]
		}
		if strings.TrimSpace(l) == "build\tvcs.modified=true" {
			commit += ", modified"
		}
	}
	if commit == "unknown" {
		t.Log("go recorded no commit here (a git worktree, or no git): the commit reads unknown")
	}
	assert.Equal(t, "ccsurgeon version 9.8.7 (commit "+commit+")\n", string(got))
}

// Every command that replaces a session in place says in --help that only
// Linux shows another process writing the file, and what guards it on
// macOS and Windows.
func TestHelpSaysWhatOnlyLinuxSees(t *testing.T) {
	root := newCommand(&app.Env{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	n := 0
	for _, c := range root.Commands {
		inPlace := c.Name == "restore"
		for _, f := range c.Flags {
			inPlace = inPlace || f.Names()[0] == "no-backup"
		}
		if !inPlace {
			continue // clone, fork: a new session; move links new files and renames nothing over
		}
		n++
		out, _, code := cliRun(t, c.Name, "--help")
		require.Equal(t, 0, code)
		flat := strings.Join(strings.Fields(out), " ")
		assert.Contains(t, flat, "on Linux, a session file another process holds open for writing is refused", c.Name)
		assert.Contains(t, flat, "macOS and Windows do not show that, so there only the 5-second guard", c.Name)
	}
	assert.GreaterOrEqual(t, n, 6, "strip-thinking, drop-tool-calls, compress, redact-secrets, repair, restore…")
}
