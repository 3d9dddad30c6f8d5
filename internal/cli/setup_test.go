package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goMod returns the module path and the go version of go.mod.
func goMod(t *testing.T) (module, version string) {
	t.Helper()
	data, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(data)
	v := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(data)
	require.NotNil(t, m, "go.mod names no module")
	require.NotNil(t, v, "go.mod has no go line")
	return string(m[1]), string(v[1])
}

// setupSection is the README's Set-up section.
func setupSection(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	s := string(readme)
	i := strings.Index(s, "\n## Set-up")
	require.GreaterOrEqual(t, i, 0, "the README has no Set-up section")
	s = s[i+1:]
	if j := strings.Index(s[1:], "\n## "); j >= 0 {
		s = s[:j+1]
	}
	return s
}

// TestReadmeGoVersionIsGoMods: the Go version the README asks for is the
// one go.mod requires, and the README names no other (it said "Go 1.26+"
// while go.mod asked for 1.26.8).
func TestReadmeGoVersionIsGoMods(t *testing.T) {
	_, version := goMod(t)
	assert.True(t, strings.Contains(setupSection(t), "Go "+version+" or newer"), "the Set-up section does not say \"Go %s or newer\" (go.mod: go %s)", version, version)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, m := range regexp.MustCompile(`\bGo (1\.\d+(?:\.\d+)?)\+?`).FindAllStringSubmatch(string(readme), -1) {
		assert.Equal(t, version, m[1], "the README asks for %q; go.mod says go %s", m[0], version)
	}
}

// TestReadmeSaysHowToInstall: the Set-up section starts with installing:
// go install of go.mod's module, from a checkout too, the folder that
// puts on PATH, and the release archives; then says what the tests do
// without the corpus, and which variable names it.
func TestReadmeSaysHowToInstall(t *testing.T) {
	module, _ := goMod(t)
	s := setupSection(t)
	install := strings.Index(s, "go install "+module+"@latest")
	require.GreaterOrEqual(t, install, 0, "no 'go install %s@latest' in:\n%s", module, s)
	tests := strings.Index(s, "go test -json")
	require.GreaterOrEqual(t, tests, 0)
	assert.Less(t, install, tests, "installing comes first")
	flat := strings.Join(strings.Fields(s), " ") // lines wrapped anywhere
	for _, want := range []string{"go install .", `$(go env GOPATH)/bin`, "PATH", "release archives (tar.gz/zip for linux, macOS, windows)",
		"CCSURGEON_CORPUS", "../shared/corpus", "counted as not run"} {
		assert.True(t, strings.Contains(flat, want), "the Set-up section does not say %q", want)
	}
}

// TestReadmeTestCommandIsCIs: the test command of the README is the one
// CI runs, so that it is the one known to pass.
func TestReadmeTestCommandIsCIs(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	require.NoError(t, err)
	const cmd = "go test -json -timeout 30m ./ops ./... | go run ./scripts/testprogress"
	assert.True(t, strings.Contains(setupSection(t), cmd), "the Set-up section does not give %q", cmd)
	assert.Contains(t, string(ci), "\n"+cmd+"\n")
}
