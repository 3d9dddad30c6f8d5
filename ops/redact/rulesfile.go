package redact

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// RulesFileName is the name of the user rules file inside <config-dir>/ccsurgeon/.
const RulesFileName = "redact-rules.txt"

// LoadRulesFile reads a rules file. The format is line based:
//
//	# comment (also blank lines)
//	rule NAME REGEX        a user rule; NAME is [A-Za-z0-9_-]+, REGEX is the rest of the line (RE2 syntax)
//	allow REGEX            candidate secrets matching REGEX are not reported
//	disable-defaults       use only the rules of this file
//
// A missing file gives empty Options and no error. The regexps are compiled
// to report errors with their line number.
func LoadRulesFile(path string) (Options, error) {
	var opts Options
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return opts, nil
	}
	if err != nil {
		return opts, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch verb {
		case "rule":
			name, re, ok := strings.Cut(rest, " ")
			re = strings.TrimSpace(re)
			if !ok || re == "" || !validRuleName(name) {
				return Options{}, fmt.Errorf("%s:%d: want `rule NAME REGEX`", path, ln)
			}
			if _, err := New(Options{DisableDefaults: true, ExtraRules: map[string]string{name: re}}); err != nil {
				return Options{}, fmt.Errorf("%s:%d: %w", path, ln, err)
			}
			if opts.ExtraRules == nil {
				opts.ExtraRules = map[string]string{}
			}
			if _, dup := opts.ExtraRules[name]; dup {
				return Options{}, fmt.Errorf("%s:%d: duplicate rule %s", path, ln, name)
			}
			opts.ExtraRules[name] = re
		case "allow":
			if rest == "" {
				return Options{}, fmt.Errorf("%s:%d: want `allow REGEX`", path, ln)
			}
			if _, err := New(Options{DisableDefaults: true, Allow: []string{rest}}); err != nil {
				return Options{}, fmt.Errorf("%s:%d: %w", path, ln, err)
			}
			opts.Allow = append(opts.Allow, rest)
		case "disable-defaults":
			if rest != "" {
				return Options{}, fmt.Errorf("%s:%d: disable-defaults takes no argument", path, ln)
			}
			opts.DisableDefaults = true
		default:
			return Options{}, fmt.Errorf("%s:%d: unknown directive %q (want rule, allow, disable-defaults or #)", path, ln, verb)
		}
	}
	if err := sc.Err(); err != nil {
		return Options{}, err
	}
	return opts, nil
}
