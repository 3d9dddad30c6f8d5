package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileJSON is text a session's author controls (a prompt, a recorded
// cwd, a tool's name), as JSON escapes: an OSC 52 that writes the
// reader's clipboard, a bell, a clear-screen, a C1 CSI, a carriage return
// that draws over the line, a newline that makes a row two.
const hostileJSON = `\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m\rX\nY\u007f`

// rawControls lists the control characters of out other than the newline
// and tab that lay out a command's text: a terminal acts on the rest.
func rawControls(out string) []string {
	var found []string
	for i, r := range out {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			lo, hi := max(0, i-20), min(len(out), i+20)
			found = append(found, strings.ToValidUTF8(out[lo:hi], "?"))
		}
	}
	return found
}

// TestNoControlCharacterFromAFileReachesTheTerminal: what a session file
// holds (its prompts, its recorded cwd, its tools' names) and a path's
// name are printed with their control characters written as escapes, by
// every command that prints them as text: a transcript someone shares
// cannot clear the reader's screen, set their terminal's title or write
// their clipboard (OSC 52) when they run ccsurgeon ls on it, and a row or
// an error stays one line.
func TestNoControlCharacterFromAFileReachesTheTerminal(t *testing.T) {
	needControlCharacterNames(t)
	cfg := t.TempDir()
	b, err := os.ReadFile(example)
	require.NoError(t, err)
	b = bytes.ReplaceAll(b, []byte("Run some shell commands."), []byte("Run "+hostileJSON+" commands."))
	b = bytes.ReplaceAll(b, []byte(`"/tmp/ccsurgeon-gen/2.1.328/tools/work/project"`), []byte(`"/tmp/proj`+hostileJSON+`"`))
	b = bytes.ReplaceAll(b, []byte(`"name":"Bash"`), []byte(`"name":"Bash`+hostileJSON+`"`))
	src := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(src, b, 0o600))
	path := installSession(t, cfg, "-tmp-proj", src)
	id := idOf(path)
	// a session file whose name holds a newline: its row stays one line
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "evil\nx.jsonl"), b, 0o600))
	// a link in tool-results/ whose name holds an OSC and a bell: clone
	// warns that it leaves it out, naming it
	tr := filepath.Join(filepath.Dir(path), id, "tool-results")
	require.NoError(t, os.MkdirAll(tr, 0o700))
	testlink.Need(t) // (the link's name is the subject here)
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(tr, "x\x1b]0;PWN\a.txt")))
	// a session file outside the config dir whose name holds a newline
	newline := filepath.Join(t.TempDir(), "c\nd.jsonl")
	require.NoError(t, os.WriteFile(newline, b, 0o600))
	// a file whose name holds a newline and an escape, not a session
	bad := filepath.Join(t.TempDir(), "a\nb\x1b[2J.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("hello\n"), 0o600))

	for _, tc := range []struct {
		name string
		args []string
		row  bool // stdout has the session's row, one line
		fail bool // an error: stderr is its two lines
	}{
		{"ls", []string{"ls"}, true, false},
		{"ls --turns", []string{"ls", "--turns"}, true, false},
		{"turns", []string{"turns", id}, false, false},
		{"info", []string{"info", id}, false, false},
		{"validate", []string{"validate", id}, false, false},
		{"doctor", []string{"doctor"}, false, false},
		{"clone's warning", []string{"clone", id}, false, false},
		{"redact --check's note", []string{"redact", id, "--check"}, false, false},
		{"error naming a path", []string{"info", bad}, false, true},
		{"info of a path with a newline", []string{"info", newline}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, _ := cliRun(t, append([]string{"--config-dir", cfg}, tc.args...)...)
			assert.Empty(t, rawControls(stdout), "stdout holds control characters a terminal acts on:\n%s", stdout)
			assert.Empty(t, rawControls(stderr), "stderr holds control characters a terminal acts on:\n%s", stderr)
			if tc.name == "info of a path with a newline" {
				assert.Contains(t, stdout, `c\nd.jsonl`+"\n", "the path is one line")
			}
			if tc.row {
				assert.Regexp(t, `(?m)^`+id+` .* commands\.$`, stdout, "the session's row is one line, its title on it")
				assert.Regexp(t, `(?m)^evil\\nx .* commands\.$`, stdout, "a file name's newline is written as an escape")
			}
			if tc.fail {
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				require.Len(t, lines, 2, "the error and its hint:\n%s", stderr)
				assert.True(t, strings.HasPrefix(lines[0], "ccsurgeon: ") && strings.HasPrefix(lines[1], "ccsurgeon: hint: "), "%q", lines)
				assert.Contains(t, lines[0], `a\nb\x1b[2J.jsonl`, "the path is named, its newline and escape written as escapes")
			}
		})
	}
}

// TestPickChoosesTheSessionShownOnTheLine: --pick numbers the lines it
// prints and takes the session of the line chosen. A session file whose
// name held a newline printed as two lines, so every number below it
// chose the session of the line above: 'echo 3' picked the older session
// while the list showed the newer on line 3, and a change in place would
// have gone to a session the user did not choose.
func TestPickChoosesTheSessionShownOnTheLine(t *testing.T) {
	needControlCharacterNames(t)
	cfg, older, newer := twoSessionsOfThisFolder(t)
	b, err := os.ReadFile(newer)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(newer), "ab\ncd.jsonl"), b, 0o600)) // the newest
	var list, errb bytes.Buffer
	run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "turns", "--pick"}, strings.NewReader("\n"), &list, &errb)
	for _, want := range []string{newer, older} {
		m := regexp.MustCompile(`(?m)^\s*(\d+)  ` + idOf(want)[:8] + `\s`).FindStringSubmatch(errb.String())
		require.NotNil(t, m, "no line shows %s:\n%s", idOf(want), errb.String())
		var out, e2, direct bytes.Buffer
		code := run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "--json", "turns", "--pick"}, strings.NewReader(m[1]+"\n"), &out, &e2)
		require.Equal(t, 0, code, e2.String())
		require.Equal(t, 0, run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "--json", "turns", idOf(want)}, strings.NewReader(""), &direct, &e2))
		assert.JSONEq(t, direct.String(), out.String(), "line %s shows %s, but another session was picked", m[1], idOf(want))
	}
}

// TestPrintableKeepsBytesThatAreNotUTF8: the escapes of a path's control
// characters leave its other bytes as they are, those that are not UTF-8
// (a name in Latin-1) included: a path in a hint still names the file.
func TestPrintableKeepsBytesThatAreNotUTF8(t *testing.T) {
	assert.Equal(t, "caf\xe9\\nx\xff\xfe.jsonl", app.Printable("caf\xe9\nx\xff\xfe.jsonl"))
	assert.Equal(t, "\u00e9t\u00e9\\x1b", app.Printable("\u00e9t\u00e9\x1b"))
}
