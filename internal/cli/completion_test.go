package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary stand in for ccsurgeon when a shell runs
// it (see TestCompletionInBash). The tests run from the module's root, as
// a user in a checkout would: the paths they pass (testdata/sessions/…)
// and the hints that print them are the ones the README shows.
func TestMain(m *testing.M) {
	if os.Getenv("CCSURGEON_TEST_AS_CLI") == "1" {
		os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		panic(err)
	}
	hintObserver = hints.observe
	code := m.Run()
	if !hints.report() && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// TestCompletionInBash: the script 'completion bash' prints, sourced in
// bash, completes command names, flags, and session ids from a prefix.
func TestCompletionInBash(t *testing.T) {
	testlink.Need(t)
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "bash is needed")
	self, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(self, filepath.Join(bin, "ccsurgeon")))
	cfg := t.TempDir()
	tools := idOf(installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/tools.jsonl"))
	multi := idOf(installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/multi-turn.jsonl"))

	script, _, code := cliRun(t, "completion", "bash")
	require.Equal(t, 0, code)
	complete := func(words ...string) []string {
		t.Helper()
		// a stand-in for bash-completion's _get_comp_words_by_ref, which
		// the script calls and a bare bash lacks
		prog := `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
` + script + `
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
__ccsurgeon_bash_autocomplete
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, append([]string{"-c", prog, "bash"}, words...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CCSURGEON_TEST_AS_CLI=1", "CLAUDE_CONFIG_DIR="+cfg)
		out, err := cmd.Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	assert.Equal(t, []string{"info"}, complete("ccsurgeon", "inf"))
	assert.Equal(t, []string{tools}, complete("ccsurgeon", "info", tools[:4]), "an id prefix completes to the id")
	assert.ElementsMatch(t, []string{tools, multi}, complete("ccsurgeon", "strip-thinking", ""))
	assert.Equal(t, []string{multi}, complete("ccsurgeon", "diff", tools, multi[:6]))
	assert.Equal(t, []string{"--before-turn"}, complete("ccsurgeon", "strip-thinking", tools, "--bef"))
	assert.Equal(t, []string{"--sort"}, complete("ccsurgeon", "ls", "--so"))
}
