package cli

// Every hint is a command that works (issue 27, finding 12). Each run of
// the CLI tests reports its stderr to hintObserver; every hint line it
// holds that is a ccsurgeon command (the whole hint, or each 'ccsurgeon …'
// quoted in it) is run right away, in a copy of the run's config dir, as
// printed: it must succeed, or fail with a hint of its own (exit 1) —
// never a usage error, an internal error, an error without a hint, or the
// refusal of a session or file that is not there (what it names must be). A
// command with a placeholder (SESSION, PATH, N…) is not runnable as
// printed and fails too. TestMain reports the hints that failed after all
// tests ran, and fails the package run.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var (
	hintLineRe  = regexp.MustCompile(`(?m)^ccsurgeon: (?:.*?: )?hint: (.*)$`)
	quotedCmdRe = regexp.MustCompile(`'(ccsurgeon [^']*)'`)
	// the refusals of a session or file that does not exist (chain.Locate)
	missingRe    = regexp.MustCompile(`(?m)^ccsurgeon: (no such file: |no session matches )`)
	placeholders = map[string]bool{"SESSION": true, "PATH": true, "DIR": true, "N": true, "UUID": true, "BACKUP": true,
		"OLD": true, "NEW": true, "ID": true, "FILE": true, "SIZE": true, "RANGE": true, "NAME": true, "REGEX": true, "COMMAND": true, "A": true, "B": true}
)

// hintResult is what running one hint gave.
type hintResult struct {
	from    string // the command line that printed it
	hint    string
	command string
	problem string // "" when it worked
}

type hintChecker struct {
	mu      sync.Mutex
	results []hintResult
	skipped int // hints of runs without --config-dir: no environment to copy
}

var hints = &hintChecker{}

// observe runs the hints in stderr of the command line args.
func (h *hintChecker) observe(args []string, stderr string) {
	for _, m := range hintLineRe.FindAllStringSubmatch(stderr, -1) {
		hint := m[1]
		var cmds []string
		if strings.HasPrefix(hint, "ccsurgeon ") {
			cmds = []string{hint}
		} else {
			for _, q := range quotedCmdRe.FindAllStringSubmatch(hint, -1) {
				cmds = append(cmds, q[1])
			}
		}
		for _, c := range cmds {
			r := hintResult{from: strings.Join(args, " "), hint: hint, command: c}
			r.problem = h.try(args, c)
			h.mu.Lock()
			if r.problem == "skip" {
				h.skipped++
			} else {
				h.results = append(h.results, r)
			}
			h.mu.Unlock()
		}
	}
}

// configDirOf is the --config-dir of a command line ("" if none).
func configDirOf(args []string) string {
	for i, a := range args {
		if a == "--config-dir" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--config-dir="); ok {
			return v
		}
	}
	return ""
}

// try runs command c in a copy of the config dir of the run args.
func (h *hintChecker) try(args []string, c string) string {
	words, err := splitShell(c)
	if err != nil {
		return err.Error()
	}
	for _, w := range words {
		if placeholders[w] {
			return fmt.Sprintf("placeholder %s: not runnable as printed", w)
		}
	}
	cfg := configDirOf(args)
	if cfg == "" {
		cfg = os.Getenv("CLAUDE_CONFIG_DIR")
	}
	tmp, err := os.MkdirTemp("", "ccsurgeon-hint-")
	if err != nil {
		return "skip"
	}
	defer os.RemoveAll(tmp)
	cp := filepath.Join(tmp, "cfg")
	abs := ""
	if cfg == "" {
		// the run used ~/.claude, which the tests leave alone: the hint
		// runs against a config dir with nothing in it
		if err := os.MkdirAll(filepath.Join(cp, "projects"), 0o700); err != nil {
			return "skip"
		}
	} else {
		if abs, err = filepath.Abs(cfg); err != nil {
			return "skip"
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return "skip" // the run's point was a missing config dir
		}
		if err := copyTreeKeepingTimes(abs, cp); err != nil {
			return "skip"
		}
		// a backup's manifest names its files by their absolute paths
		// (a move's record too): in the copy, the copy's, as they would
		// be had the run used the copy
		_ = filepath.WalkDir(filepath.Join(cp, "ccsurgeon", "backups"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "manifest.json" {
				if b, rerr := os.ReadFile(p); rerr == nil {
					fixed := bytes.ReplaceAll(b, []byte(jsonPath(abs)), []byte(jsonPath(cp)))
					_ = os.WriteFile(p, fixed, 0o600)
				}
			}
			return nil
		})
	}
	hasCfg := false
	for i, w := range words {
		if w == "--config-dir" || strings.HasPrefix(w, "--config-dir=") {
			hasCfg = true
		}
		for _, from := range []string{abs, cfg} {
			if from == "" {
				continue
			}
			if w == from || strings.HasPrefix(w, from+string(filepath.Separator)) || strings.HasPrefix(w, "--config-dir="+from) {
				words[i] = strings.Replace(w, from, cp, 1)
				break
			}
		}
	}
	for i := 1; i < len(words); i++ { // -o FILE: a file of the copy, never one of the tests' (or the repository's)
		if (words[i-1] == "-o" || words[i-1] == "--output") && words[i] != "-" {
			words[i] = filepath.Join(tmp, "out-"+filepath.Base(words[i]))
		}
	}
	line := append([]string{"ccsurgeon"}, words[1:]...)
	if !hasCfg { // as if the run's config dir were $CLAUDE_CONFIG_DIR
		line = append([]string{"ccsurgeon", "--config-dir", cp}, words[1:]...)
	}
	var out, errb bytes.Buffer
	code := runCommand(context.Background(), line, strings.NewReader(""), &out, &errb)
	switch {
	case code == 0:
		return ""
	case code == 1 && missingRe.MatchString(errb.String()):
		// what the hint names is not there: it cannot work, whatever the
		// hint of the refusal says
	case code == 1 && hintLineRe.MatchString(errb.String()):
		return "" // refused, with a hint of its own
	case code == 1 && !regexp.MustCompile(`(?m)^ccsurgeon: `).MatchString(errb.String()):
		return "" // found (validate, diff, redact --check): what it found is the answer
	}
	return fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(errb.String()))
}

// jsonPath is path as a JSON string holds it (without the quotes).
func jsonPath(path string) string {
	b, _ := json.Marshal(path)
	return string(b[1 : len(b)-1])
}

// copyTreeKeepingTimes copies src to dst with modes and modification times
// (the live-session guard reads them), symlinks as symlinks.
func copyTreeKeepingTimes(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(t, to)
		case info.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(to, time.Time{}, info.ModTime())
		}
		return nil // a FIFO, a socket: left out
	})
}

// splitShell splits a command line as a POSIX shell does for the quoting
// hints use: blanks between words, 'single quotes' literal.
func splitShell(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, inWord := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			w.WriteByte(c)
		case c == '\'':
			in, inWord = true, true
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			// $'...': bash's quoting of control characters
			j := i + 2
			for ; j < len(line) && line[j] != '\''; j++ {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated quote in %q", line)
			}
			body := strings.NewReplacer(`\'`, `'`, `"`, `\"`).Replace(line[i+2 : j])
			u, err := strconv.Unquote(`"` + body + `"`)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line[i:j+1], err)
			}
			w.WriteString(u)
			i, inWord = j, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.IndexByte("\"$`*?[]{}();&|<>~#", c) >= 0:
			return nil, fmt.Errorf("%q holds %q, which a shell reads otherwise", line, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if in {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// report prints the hints that failed and returns whether all worked.
func (h *hintChecker) report() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	var bad []string
	for _, r := range h.results {
		if r.problem != "" {
			bad = append(bad, fmt.Sprintf("  ccsurgeon %s\n    hint: %s\n    ran:  %s\n    got:  %s", strings.TrimPrefix(r.from, "ccsurgeon "), r.hint, r.command, r.problem))
		}
	}
	sort.Strings(bad)
	bad = compactStrings(bad)
	if testingVerbose() || len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "hints run: %d, failed: %d (and %d of runs without --config-dir, not run)\n", len(h.results), len(bad), h.skipped)
	}
	if len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "--- FAIL: every hint works (issue 27, finding 12): %d hints do not work as printed:\n%s\n", len(bad), strings.Join(bad, "\n"))
		return false
	}
	return true
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func testingVerbose() bool {
	for _, a := range os.Args {
		if a == "-test.v=true" || a == "-test.v" {
			return true
		}
	}
	return false
}

// TestHintCheckerCatchesWhatDoesNotWork: the checker behind TestMain fails
// a hint with a placeholder, one that is a usage error and one that fails
// without a hint; it passes one that works and one that fails with a
// hint of its own.
func TestHintCheckerCatchesWhatDoesNotWork(t *testing.T) {
	cfg := t.TempDir()
	installSession(t, cfg, "-work-p", example)
	args := []string{"ccsurgeon", "--config-dir", cfg, "info"}
	h := &hintChecker{}
	for cmd, bad := range map[string]bool{
		"ccsurgeon turns SESSION":          true,
		"ccsurgeon info --bogus":           true,
		"ccsurgeon info 97e1284d":          false,
		"ccsurgeon info 1234abcd":          true, // no such session: it names what is not there
		"ccsurgeon info /no/such/s.jsonl":  true,
		"ccsurgeon ls --project /no/where": false,
		"ccsurgeon info 'unterminated":     true,
	} {
		got := h.try(args, cmd)
		if bad {
			assert.NotEmpty(t, got, cmd)
		} else {
			assert.Empty(t, got, cmd)
		}
	}
}
