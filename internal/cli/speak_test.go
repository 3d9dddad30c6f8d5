package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpeakWordsEveryDomainError: each typed error of the domain reads as
// it did when the domain worded it itself (the words below are those the
// domain packages wrote before issue 29 moved them here), with the same
// exit code; a wrapper's words stay, and a hint the error carries of its
// own is kept over the one speak would give what it wraps.
func TestSpeakWordsEveryDomainError(t *testing.T) {
	// the file a link names is looked at (a folder, nothing): one that is
	named := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(named, nil, 0o600))
	for _, c := range []struct {
		err  error
		out  string
		code int
	}{
		{&chain.ArgError{Arg: "ab", Msg: `session id prefix "ab" is too short`, Hint: "give at least 4 characters of the id"},
			"ccsurgeon: session id prefix \"ab\" is too short\nccsurgeon: hint: give at least 4 characters of the id\n", 2},
		{&chain.AmbiguousError{Arg: "abcd", Candidates: []string{"/p/abcd1.jsonl", "/p/abcd2.jsonl"}},
			"ccsurgeon: session id \"abcd\" is ambiguous: 2 sessions match\nccsurgeon: hint: candidates: /p/abcd1.jsonl, /p/abcd2.jsonl\n", 2},
		{&chain.Error{Msg: "no such file: x.jsonl", Hint: "give a session id, an id prefix, or the path of an existing .jsonl file"},
			"ccsurgeon: no such file: x.jsonl\nccsurgeon: hint: give a session id, an id prefix, or the path of an existing .jsonl file\n", 1},
		{&backup.LiveError{SessionID: "s1", PID: 42, Cwd: "/w"},
			"ccsurgeon: session s1 is open in Claude Code (pid 42 in /w)\nccsurgeon: hint: close Claude Code or pass --force\n", 1},
		{fmt.Errorf("move: %w", &backup.LiveError{SessionID: "s1", Path: "/p/s1.jsonl", Age: 1234 * time.Millisecond}),
			"ccsurgeon: move: session file /p/s1.jsonl was modified 1.2s ago; Claude Code may still be writing it\nccsurgeon: hint: if Claude Code is done with it, try again in 5 seconds; else close Claude Code or pass --force\n", 1},
		{&backup.SymlinkError{Path: "/p/s.jsonl", Target: named},
			"ccsurgeon: /p/s.jsonl is a symlink (to " + named + "): ccsurgeon never writes or deletes through a symlink\nccsurgeon: hint: replace the link with a copy of the file it names, or write the result elsewhere with -o\n", 1},
		// a link to nothing: no copy to make (TestADanglingSidecarLinkIsRefusedWithAHintThatWorks)
		{&backup.SymlinkError{Path: "/p/s.jsonl", Target: "/q/gone.jsonl"},
			"ccsurgeon: /p/s.jsonl is a symlink (to /q/gone.jsonl): ccsurgeon never writes or deletes through a symlink\nccsurgeon: hint: it names nothing that exists: remove it (rm /p/s.jsonl), and run the command again\n", 1},
		{&backup.SymlinkError{Path: "/o/out.jsonl", Target: "real.jsonl", Output: true},
			"ccsurgeon: /o/out.jsonl is a symlink (to real.jsonl): ccsurgeon never writes or deletes through a symlink\nccsurgeon: hint: name the file it points to (/o/real.jsonl), or '-o -' for standard output\n", 1},
		{&backup.SymlinkError{Path: "/c/projects/-p/s/subagents", Target: "../../elsewhere", Read: true},
			"ccsurgeon: /c/projects/-p/s/subagents is a symlink (to ../../elsewhere): ccsurgeon reads a session's files only through its own folders, never through a link\nccsurgeon: hint: replace the link with a copy of the folder it names (/c/projects/elsewhere), and run the command again\n", 1},
		{&backup.SymlinkError{Path: "/c/l", Target: "/x", Hint: "remove the link: ccsurgeon makes its lock file itself"},
			"ccsurgeon: /c/l is a symlink (to /x): ccsurgeon never writes or deletes through a symlink\nccsurgeon: hint: remove the link: ccsurgeon makes its lock file itself\n", 1},
		{&backup.ExistsError{Path: "/o/out.jsonl"},
			"ccsurgeon: /o/out.jsonl already exists\nccsurgeon: hint: pass --force to replace it, or choose another name\n", 1},
		{&backup.NotRegularError{Path: "/dev/fifo"},
			"ccsurgeon: /dev/fifo is not a regular file (a device, FIFO or socket): ccsurgeon writes only regular files\nccsurgeon: hint: write to a file and copy it there, or use -o - for standard output\n", 1},
		{&backup.NotAFileError{Path: "/c/projects/-p/s/tool-results/t.txt", Kind: "a named pipe"},
			"ccsurgeon: /c/projects/-p/s/tool-results/t.txt is a named pipe, not a regular file: ccsurgeon copies only regular files\nccsurgeon: hint: replace it with a copy of the file, or remove it, and run the command again\n", 1},
		{&backup.OutsideError{Real: "/x/s.jsonl", ConfigDir: "/c"},
			"ccsurgeon: /x/s.jsonl is outside the config dir /c: ccsurgeon writes there only to a file named on the command line\nccsurgeon: hint: name the file by its path if you mean to change it there, or write the result elsewhere with -o\n", 1},
		{&backup.NoBackupError{File: "/p/s.jsonl", SessionID: "s"},
			"ccsurgeon: no backups of /p/s.jsonl\n", 1},
		{&backup.NoBackupError{File: "/p/s.jsonl", SessionID: "s", Other: "/q/s.jsonl", OtherThere: true, Kept: "/c/b"},
			"ccsurgeon: no backups of /p/s.jsonl\nccsurgeon: hint: the backups of session s are of another copy, /q/s.jsonl: restore that one with 'ccsurgeon restore /q/s.jsonl'\n", 1},
		{&backup.NoBackupError{File: "/p/s.jsonl", SessionID: "s", Other: "/q/s.jsonl", Kept: "/c/b"},
			"ccsurgeon: no backups of /p/s.jsonl\nccsurgeon: hint: the backups of session s are of another copy, /q/s.jsonl, which is no longer there; they are kept in /c/b\n", 1},
		{&backup.ElsewhereError{Name: "20261127T000000Z-strip", Of: "/q/s.jsonl", File: "/p/s.jsonl"},
			"ccsurgeon: backup 20261127T000000Z-strip is of /q/s.jsonl, not of /p/s.jsonl\nccsurgeon: hint: a backup goes back only to the file it was taken of; list this file's with 'ccsurgeon backups /p/s.jsonl'\n", 1},
		{&backup.DamagedError{Name: "b1", Err: errors.New(`it belongs to session "x"`)},
			"ccsurgeon: backup b1 is damaged: it belongs to session \"x\"\nccsurgeon: hint: choose another backup with 'ccsurgeon backups'\n", 1},
		{&backup.PartialError{BackupDir: "/c/b/1", Err: errors.New("boom")},
			"ccsurgeon: write failed part-way: boom\nccsurgeon: hint: the previous state is saved in /c/b/1; restore it with ccsurgeon's restore command\n", 1},
		{&backup.Error{Msg: `"2026" matches 2 backups: a, b`, Hint: "use a longer prefix", Err: backup.ErrAmbiguous},
			"ccsurgeon: \"2026\" matches 2 backups: a, b\nccsurgeon: hint: use a longer prefix\n", 2},
		{&backup.NameError{Name: "..jsonl"},
			"ccsurgeon: cannot keep backups of a session file named \"..jsonl\" (the name makes no backup folder): rename it, or write the result elsewhere with -o\n", 1},
		{&ops.OverTargetError{Target: 100, Total: 120, Path: "/p/s.jsonl"},
			"ccsurgeon: the estimate of the written result stays above --target-tokens 100 (120); nothing was written\nccsurgeon: hint: this is a bug in ccsurgeon: please report it with the output of: ccsurgeon info /p/s.jsonl\n", 1},
		// a hint of its own, outside what speak words, is the one printed
		{&backup.Error{Msg: "outer", Hint: "its own", Err: &backup.LiveError{SessionID: "s", PID: 1}},
			"ccsurgeon: outer\nccsurgeon: hint: its own\n", 1},
	} {
		var b bytes.Buffer
		code := reportError(&b, c.err)
		assert.Equal(t, c.out, b.String(), "%T", c.err)
		assert.Equal(t, c.code, code, "%T: %s", c.err, c.out)
	}
}

// Attack finding (2026-11-27), family "a hint's ccsurgeon command under a
// config dir that is not the default": the hint of a SESSION that matches
// nothing mentions the --config-dir flag in its prose, which was taken for
// a command already run as self, so its 'ccsurgeon ls' stayed bare: run as
// printed it lists ~/.claude, not the folder that was searched. Each
// member (one SESSION, a SESSION of a --json batch) is named; the command
// of the hint, run as printed, lists the session of the config dir given.
func TestHintCommandsRunInTheConfigDirGiven(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg")
	path := installSession(t, cfg, "-work-p", example)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(t.TempDir(), "default")) // the default is elsewhere
	quoted := regexp.MustCompile(`'(ccsurgeon [^']*)'`)
	for _, mb := range []struct {
		name string
		args []string
		hint func(stdout, stderr string) string
	}{
		{"one SESSION that matches nothing", []string{"info", "0000aaaa-0000-4000-8000-000000000000"}, func(_, e string) string { return e }},
		{"a SESSION of a --json batch that matches nothing", []string{"--json", "strip-thinking", id, "0000aaaa-0000-4000-8000-000000000000"}, func(o, _ string) string {
			var r struct {
				Sessions []struct {
					Error string `json:"error"`
				} `json:"sessions"`
			}
			require.NoError(t, json.Unmarshal([]byte(o), &r), o)
			require.Len(t, r.Sessions, 2)
			return r.Sessions[1].Error
		}},
	} {
		t.Run(mb.name, func(t *testing.T) {
			out, errs, code := cliRun(t, append([]string{"--config-dir", cfg}, mb.args...)...)
			require.Equal(t, 1, code, "%s%s", out, errs)
			hint := mb.hint(out, errs)
			m := quoted.FindStringSubmatch(hint)
			require.NotNil(t, m, "%s: no command in the hint: %s", mb.name, hint)
			args, err := splitShell(m[1])
			require.NoError(t, err)
			lsOut, lsErr, code := cliRun(t, args[1:]...)
			require.Equal(t, 0, code, "%s: %s: %s", mb.name, m[1], lsErr)
			assert.Contains(t, lsOut, id[:8], "%s: the hint's %q, run as printed, does not list the sessions of %s", mb.name, m[1], cfg)
		})
	}
}

// Attack finding (2026-11-27), family "an error about the file or folder
// the user named has no hint": a SESSION that is a FIFO (alone or in a
// --json batch) and an -o whose folder does not exist said what was wrong
// and nothing about what to do. Each member is named; each error has a
// hint line, and the -o hint's command, run as printed, makes the command
// work.
func TestErrorsAboutANamedFileHaveAHint(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	path := installSession(t, cfg, "-work-p", example)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	fifo := filepath.Join(root, "f.jsonl")
	mkfifo(t, fifo)
	missing := filepath.Join(root, "no such dir")
	for _, mb := range []struct {
		name  string
		args  []string
		batch bool
		// the hint holds a command that makes args work
		runs bool
	}{
		{"a SESSION that is a FIFO", []string{"info", fifo}, false, false},
		{"a SESSION that is a FIFO, in a --json batch", []string{"--json", "info", id, fifo}, true, false},
		{"-o FILE in a folder that does not exist (strip-thinking)", []string{"strip-thinking", id, "-o", filepath.Join(missing, "a.jsonl")}, false, true},
		{"-o DIR/ in a folder that does not exist (redact-secrets)", []string{"redact-secrets", id, "-o", filepath.Join(missing, "b", "sub") + "/"}, false, true},
		{"-o FILE in a folder that does not exist (repair)", []string{"repair", id, "-o", filepath.Join(missing+" 2", "c.jsonl")}, false, true},
	} {
		t.Run(mb.name, func(t *testing.T) {
			args := append([]string{"--config-dir", cfg}, mb.args...)
			out, errs, code := cliRun(t, args...)
			require.NotEqual(t, 0, code, "%s: %s%s", mb.name, out, errs)
			text := errs
			if mb.batch {
				var r struct {
					Sessions []struct {
						Error string `json:"error"`
					} `json:"sessions"`
				}
				require.NoError(t, json.Unmarshal([]byte(out), &r), out)
				text = r.Sessions[len(r.Sessions)-1].Error
			}
			lines := strings.Split(strings.TrimSpace(text), "\n")
			require.Len(t, lines, 2, "%s: one error line and one hint line: %s", mb.name, text)
			assert.Regexp(t, `^ccsurgeon: [^A-Z]`, lines[0], mb.name)
			require.True(t, strings.HasPrefix(lines[1], "ccsurgeon: hint: "), "%s: no hint: %s", mb.name, text)
			if !mb.runs {
				return
			}
			cmd := regexp.MustCompile(`'?(mkdir -p .*)$`).FindStringSubmatch(strings.TrimPrefix(lines[1], "ccsurgeon: hint: "))
			require.NotNil(t, cmd, "%s: the hint names no command: %s", mb.name, lines[1])
			require.NoError(t, exec.Command("sh", "-c", cmd[1]).Run(), "%s: %s", mb.name, cmd[1])
			_, errs, code = cliRun(t, args...)
			assert.Equal(t, 0, code, "%s: after %s: %s", mb.name, cmd[1], errs)
		})
	}
}
