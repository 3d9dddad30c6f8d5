package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

// OpSpec selects the operations of a writing command. They are applied in
// one documented order: redact-secrets, strip-thinking, drop-tool-calls,
// compress-old-turns (secrets go first so that nothing a later step keeps
// or cuts can hide one; compression comes last so it measures what is
// left).
type OpSpec struct {
	Redact      bool
	RedactRules []string // NAME=REGEX
	RedactAllow []string // REGEX

	StripThinking   bool
	StripBeforeTurn int

	DropTools      []string
	DropLargerThan string
	DropTurns      string
	DropFailed     bool
	Drop           bool // drop-tool-calls was asked for

	Compress      bool
	KeepTurns     int
	KeepExchanges int // 0: ops.DefaultKeepExchanges
	MaxResult     string
	// TargetTokens, when > 0, makes the compression cut only until the
	// estimate of what a resume sends fits this many tokens (ops.FitTokens).
	TargetTokens int
	// KeepTurnsFlag names the flag of KeepTurns in messages ("" =
	// --keep-turns)
	KeepTurnsFlag string
	// KeepRecent: KeepTurns or KeepExchanges was given, so --target-tokens
	// never cuts into the recent context they keep
	KeepRecent bool
}

// Pipeline builds the operations of spec.
func (env *Env) Pipeline(spec OpSpec) (ops.Pipeline, error) {
	var p ops.Pipeline
	if spec.Redact {
		sc, err := env.scanner(spec.RedactRules, spec.RedactAllow)
		if err != nil {
			return nil, err
		}
		p = append(p, ops.RedactSecrets{Scanner: sc})
	}
	if spec.StripThinking {
		p = append(p, ops.StripThinking{BeforeTurn: spec.StripBeforeTurn})
	}
	if spec.Drop {
		d := ops.DropToolCalls{Tools: spec.DropTools, Failed: spec.DropFailed}
		if spec.DropLargerThan != "" {
			n, err := ParseSize("--larger-than", spec.DropLargerThan)
			if err != nil {
				return nil, err
			}
			d.LargerThan = n
		}
		if spec.DropTurns != "" {
			r, err := ops.ParseTurnRange(spec.DropTurns)
			if err != nil {
				return nil, UsageErrorf("example: --turns 1-10", "%v", err)
			}
			d.Turns = r
		}
		p = append(p, d)
	}
	if spec.TargetTokens > 0 {
		if spec.MaxResult != "" {
			return nil, UsageErrorf("--target-tokens picks the cuts itself", "--max-result cannot be used with --target-tokens")
		}
		return append(p, ops.FitTokens{Target: spec.TargetTokens, KeepTurns: spec.KeepTurns, KeepExchanges: spec.KeepExchanges, KeepRecent: spec.KeepRecent}), nil
	}
	if spec.Compress {
		c := ops.CompressOldTurns{KeepTurns: spec.KeepTurns, KeepExchanges: spec.KeepExchanges}
		if spec.MaxResult != "" {
			n, err := ParseSize("--max-result", spec.MaxResult)
			if err != nil {
				return nil, err
			}
			c.MaxResult = int(n)
		}
		p = append(p, c)
	}
	return p, nil
}

// RulesFile is where redact-secrets reads user rules:
// <config-dir>/ccsurgeon/redact-rules.txt.
func (env *Env) RulesFile() string {
	return filepath.Join(env.ConfigDir, "ccsurgeon", redact.RulesFileName)
}

// scannerCache keeps the scanners of a run by what they are built from:
// a batch compiles its rules once, not once a session (the rules file is
// read once a run too).
type scannerCache struct {
	mu    sync.Mutex
	built int // scanners built (tests)
	by    map[string]*redact.Scanner
}

// scanner is the redact scanner of the built-in rules, the rules file of
// the config dir, --rule (rules) and --allow (allow): the run's one when
// it has built it already.
func (env *Env) scanner(rules, allow []string) (*redact.Scanner, error) {
	c := env.scanners
	if c == nil {
		return env.newScanner(rules, allow)
	}
	key := env.ConfigDir + "\x00" + strings.Join(rules, "\x00") + "\x01" + strings.Join(allow, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.by[key]; sc != nil {
		return sc, nil
	}
	sc, err := env.newScanner(rules, allow)
	if err != nil {
		return nil, err
	}
	if c.by == nil {
		c.by = map[string]*redact.Scanner{}
	}
	c.by[key] = sc
	c.built++
	return sc, nil
}

func (env *Env) newScanner(rules, allow []string) (*redact.Scanner, error) {
	opts, err := redact.LoadRulesFile(env.RulesFile())
	if err != nil {
		return nil, Errorf("%v", err)
	}
	if opts.ExtraRules == nil {
		opts.ExtraRules = map[string]string{}
	}
	for _, r := range rules {
		name, re, ok := strings.Cut(r, "=")
		if !ok || name == "" || re == "" {
			return nil, UsageErrorf("example: --rule internal-token='itk_[a-z0-9]{32}'", "--rule %q: want NAME=REGEX", r)
		}
		opts.ExtraRules[name] = re
	}
	opts.Allow = append(opts.Allow, allow...)
	sc, err := redact.New(opts)
	if err != nil {
		return nil, UsageErrorf("check the regular expressions of --rule, --allow and "+env.RulesFile(), "%v", err)
	}
	return sc, nil
}

// RunOps applies the operations of spec to a session and writes the result
// to the destination.
func (env *Env) RunOps(session string, spec OpSpec, d Dest) error {
	p, err := env.Pipeline(spec)
	if err != nil {
		return err
	}
	// refused with --dry-run too: a preview says what the real run says
	if len(p) == 0 && d.Output == "" && !d.New {
		return UsageErrorf("add --strip-thinking, --drop-tool-calls NAME, --compress-old-turns N, --target-tokens N or --redact-secrets, or use -o PATH for a copy", "rewrite without an operation would change nothing")
	}
	err = spec.targetWords(env.RunPipeline(session, p, d))
	var e *Error
	var te *ops.TargetError
	if errors.As(err, &e) && errors.As(err, &te) && !te.KeptRecent && session != "" {
		// the budget that fits, as a command that shows what it cuts
		e.Hint += fmt.Sprintf(": 'ccsurgeon compress %s --target-tokens %d --dry-run' shows what that cuts", ShellQuote(session), te.Floor)
	}
	return err
}

// RunPipeline applies the operations p to a session in one pass (one
// validation, one backup, one write) and writes the result to the
// destination.
func (env *Env) RunPipeline(session string, p ops.Pipeline, d Dest) error {
	return env.runWrite(session, d, func(*chain.Session) (ops.Pipeline, error) { return p, nil })
}

// targetWords words a --target-tokens the cuts cannot meet
// (ops.TargetError), naming the flags of this command that keep the
// recent context, when they are what blocks.
func (spec OpSpec) targetWords(err error) error {
	var te *ops.TargetError
	if !errors.As(err, &te) {
		return err
	}
	// what blocks, as the message names it
	blocks := "the system prompt and tools and the last prompt with its answer"
	if te.Measured {
		blocks = "the system prompt and tools with the first prompt they are measured by, and the last prompt with its answer,"
	}
	hint := fmt.Sprintf("%s need that much: give a --target-tokens of at least %d", blocks, te.Floor)
	if te.Floor < te.Total {
		hint = fmt.Sprintf("give a --target-tokens of at least %d, the fewest the cuts reach", te.Floor)
	}
	flag := spec.KeepTurnsFlag
	if flag == "" {
		flag = "--keep-turns"
	}
	if te.KeptRecent {
		hint = fmt.Sprintf("leave out %s and --keep-exchanges (--target-tokens then cuts the recent turns too), or give a --target-tokens of at least %d", flag, te.Floor)
	}
	return &Error{Msg: Reword(err, te, te.Message(flag+" and --keep-exchanges")), Hint: hint, Code: 1, Err: err}
}

// RunRedactCheck scans without writing and exits 1 when a secret is found,
// or when a file of the session could not be scanned (a clean check must
// have read everything): a gate before sharing a transcript or in CI.
func (env *Env) RunRedactCheck(session string, spec OpSpec) error {
	spec = OpSpec{Redact: true, RedactRules: spec.RedactRules, RedactAllow: spec.RedactAllow}
	var found, inOthers, notScanned, links int
	var id, path string
	err := env.runWriteWith(session, Dest{DryRun: true}, func(*chain.Session) (ops.Pipeline, error) { return env.Pipeline(spec) }, func(r *WriteResult) {
		found, inOthers, notScanned, links = r.redactions.Len(), r.otherFileSecrets, r.notScanned, r.linksNotRead
		id, path = r.SessionID, r.Path
		r.check = true
	})
	if err != nil {
		return err
	}
	unread := ""
	if notScanned > 0 {
		unread = Plural(notScanned, "tool-results file", "tool-results files") + " could not be scanned (see the notes)"
	}
	if links > 0 {
		if unread != "" {
			unread += ", and "
		}
		unread += Plural(links, "subagent transcript", "subagent transcripts") + " could not be scanned (see the warnings)"
	}
	if found > 0 {
		// the session as the user can type it again, not "SESSION"
		arg := env.sessionArg(id, path)
		hint := "write a redacted copy with 'ccsurgeon redact " + arg + " -o redacted.jsonl'"
		if inOthers > 0 {
			// -o FILE writes the transcript only: the subagent transcripts
			// and tool-results files would keep theirs, and not be shared
			share := ShellQuote(id[:min(8, len(id))] + "-share/")
			hint = "copy it redacted with its subagent and tool-results files with 'ccsurgeon redact " + arg + " -o " + share + "', or redact it in place with 'ccsurgeon redact " + arg + "'"
		}
		msg := Plural(found, "secret", "secrets") + " found"
		if unread != "" {
			msg += ", and " + unread
		}
		return &Error{Msg: msg + "; nothing was written", Hint: hint, Code: 1}
	}
	if unread != "" {
		return &Error{Msg: unread + ", so the session is not known to be clean; nothing was written",
			Hint: "only regular files are read there, never through a symlink: put the file a link names in its place (or remove what is not a file) and check again", Code: 1}
	}
	return nil
}

// printRedactions prints the per-type report of redact-secrets: how many,
// and where, never the secret itself. With -o FILE (notWritten: the
// files FILE does not hold, whose secrets number unwritten) the total
// says how many FILE holds, redacted, and how many it does not: the list
// is of every secret found, and no count may claim a redaction -o did
// not write.
func (env *Env) printRedactions(rs *ops.RedactionLog, notWritten map[string]bool, unwritten int, dest string) {
	if rs.Len() == 0 {
		return
	}
	byRule := rs.ByRule()
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	if len(notWritten) > 0 && unwritten > 0 {
		fmt.Fprintf(env.Out, "secrets: %d found: %d in %s, redacted; %d in files -o does not write, left as they are\n", rs.Len(), rs.Len()-unwritten, dest, unwritten)
	} else {
		fmt.Fprintf(env.Out, "secrets: %d\n", rs.Len())
	}
	for _, r := range rules {
		fmt.Fprintf(env.Out, "  %-32s %d\n", r, byRule[r])
	}
	const maxShown = 50
	k := 0
	err := rs.Each(func(r ops.Redaction) (bool, error) {
		if k == maxShown {
			fmt.Fprintf(env.Out, "  … and %d more (use --json for all)\n", rs.Len()-maxShown)
			return false, nil
		}
		k++
		note := ""
		if r.InThinking {
			note = " (thinking block removed)"
		}
		if notWritten[r.File] {
			note += " (not written: the file is not in the output)"
		}
		fmt.Fprintf(env.Out, "  %s:%d: %s %s -> %s [%s]%s\n", shortPath(r.File), r.Line, r.Field, r.Rule, r.Placeholder, r.Fingerprint, note)
		return true, nil
	})
	if err != nil {
		fmt.Fprintf(env.Out, "  (the list could not be read back: %v)\n", err)
	}
}

func shortPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
