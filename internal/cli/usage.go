package cli

// The command tree's common behaviour, applied to every command by finish
// once the tree is built: usage errors in ccsurgeon's voice with the
// nearest flag or command suggested, flag help without urfave's "(default:
// X)", and completion of session ids. A command added to the tree gets all
// of it without a line of its own.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// exitCodesHelp is the exit status table, printed by --help and repeated
// word for word in the README.
const exitCodesHelp = `
   0  success (validate, redact --check, diff, doctor: nothing found)
   1  refused, invalid, or found (nothing was changed, but what repair
      and doctor --fix fixed before they found what they cannot fix);
      with several sessions: at least one failed
   2  usage error: an unknown command or flag, a bad value (a session id
      or BACKUP prefix that matches several)
   3  internal error: a bug in ccsurgeon (nothing was changed)
`

// shells are the shells 'completion' writes a script for.
var shells = []string{"bash", "zsh", "fish", "pwsh"}

// usageError marks a command-line mistake (exit 2). cmd is the command
// whose flags or arguments were wrong, when known.
type usageError struct {
	err  error
	cmd  *cli.Command
	hint string
}

func (u usageError) Error() string    { return u.err.Error() }
func (u usageError) ExitCode() int    { return 2 }
func (u usageError) HintText() string { return u.hint }

func init() {
	// urfave's own help command, in ccsurgeon's voice
	cli.UsageCommandHelp = "show the commands, or the help of one command"
}

// finish gives every command of the tree the common behaviour.
func finish(env *app.Env, c *cli.Command) {
	c.OnUsageError = onUsageError
	for _, f := range c.Flags {
		hideDefault(f)
		refuseEmpty(f)
		onlyOnce(f)
		if f, ok := f.(*cli.IntFlag); ok {
			if m, ok := intMin[f.Name]; ok {
				f.Validator = func(v int) error {
					if v < m {
						return fmt.Errorf("below %d", m)
					}
					return nil
				}
			}
		}
	}
	if takesSessions(c) {
		c.ShellComplete = completeSessions(env)
	}
	if action := c.Action; action != nil {
		// the command a session's lock names to whoever waits for it
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			env.Command = cmd.Name
			return action(ctx, cmd)
		}
	}
	for _, sub := range c.Commands {
		finish(env, sub)
	}
}

// onUsageError marks urfave's usage errors as ccsurgeon's (exit 2, said
// by explain) instead of printing "Incorrect Usage" and the help.
func onUsageError(ctx context.Context, cmd *cli.Command, err error, isSubcommand bool) error {
	return usageError{err: err, cmd: cmd}
}

// refuseEmpty makes an empty value of a flag that takes text a usage
// error: read as "not given", '-o ""' would change a session in place and
// '--config-dir ""' would work on ~/.claude.
func refuseEmpty(f cli.Flag) {
	const empty = "empty"
	switch f := f.(type) {
	case *cli.StringFlag:
		if f.Validator == nil {
			f.Validator = func(v string) error {
				if v == "" {
					return errors.New(empty)
				}
				return nil
			}
		}
	case *cli.StringSliceFlag:
		if f.Validator == nil {
			f.Validator = func(vs []string) error {
				if slices.Contains(vs, "") {
					return errors.New(empty)
				}
				return nil
			}
		}
	}
}

// onlyOnce makes a flag with one value given twice a usage error: urfave
// keeps the last one, so '-o a.jsonl -o b.jsonl' wrote b.jsonl without a
// word about a.jsonl. Flags that take several values (--tool) and switches
// are left as they are.
func onlyOnce(f cli.Flag) {
	switch f := f.(type) {
	case *cli.StringFlag:
		f.OnlyOnce = true
	case *cli.IntFlag:
		f.OnlyOnce = true
	}
}

// intMin is the smallest value each whole-number flag takes: a value
// below it is refused as a usage error, never read as "not given".
var intMin = map[string]int{
	"keep":               1, // --no-backup keeps none
	"before-turn":        1,
	"branch":             1,
	"target-tokens":      1,
	"keep-turns":         0,
	"compress-old-turns": 0,
	"keep-exchanges":     1,
}

// hideDefault stops urfave from appending "(default: X)": a flag's usage
// says its default in words where it has a real one, and a sentinel (0 or
// -1 for "not given") means nothing to a user.
func hideDefault(f cli.Flag) {
	switch f := f.(type) {
	case *cli.IntFlag:
		f.HideDefault = true
	case *cli.StringFlag:
		f.HideDefault = true
	case *cli.BoolFlag:
		f.HideDefault = true
	case *cli.StringSliceFlag:
		f.HideDefault = true
	}
}

// takesSessions reports whether a command's arguments are sessions.
func takesSessions(c *cli.Command) bool {
	return strings.Contains(c.UsageText, "SESSION") || strings.Contains(c.UsageText, "diff A B")
}

// completeSessions offers the flags after a dash, else the session ids
// under the config dir (the shell narrows them to what was typed).
func completeSessions(env *app.Env) cli.ShellCompleteFunc {
	return func(ctx context.Context, cmd *cli.Command) {
		args := cmd.Args().Slice()
		if len(args) > 0 && strings.HasPrefix(args[len(args)-1], "-") {
			cli.DefaultCompleteWithFlags(ctx, cmd)
			return
		}
		dir := cmd.Root().String("config-dir")
		if dir == "" {
			dir = chain.DefaultConfigDir()
		}
		paths, err := chain.ListSessions(dir)
		if err != nil {
			return
		}
		for _, p := range paths {
			id := p[strings.LastIndexByte(p, '/')+1:]
			fmt.Fprintln(cmd.Root().Writer, strings.TrimSuffix(id, ".jsonl"))
		}
	}
}

var (
	notDefinedRe = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	badValueRe   = regexp.MustCompile(`^invalid value "(.*)" for flag -+([^:]+): `)
	twiceRe      = regexp.MustCompile(`^invalid value "(.*)" for flag -+([^:]+): can't duplicate this flag$`)
	needsArgRe   = regexp.MustCompile(`^flag needs an argument: -*(.+)$`)
	noHelpRe     = regexp.MustCompile(`^No help topic for '(.*)'`)
	// placeholderRe finds the name of a flag's value in its usage: `SIZE`
	placeholderRe = regexp.MustCompile("`([^`]+)`")
)

// explain turns urfave's messages into ccsurgeon's: which flag, what it
// wants, and the nearest flag or command when the user mistyped one. args
// is the command line, to quote a flag as it was typed.
func explain(err error, root *cli.Command, args []string) error {
	var ue usageError
	if errors.As(err, &ue) && ue.hint == "" && ue.cmd != nil {
		return explainUsage(ue, root, args)
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() == 3 {
		// urfave's help command: 'help frob', 'completion powershell'
		if m := noHelpRe.FindStringSubmatch(err.Error()); m != nil {
			if isCompletion(args) {
				return usageError{err: fmt.Errorf("unknown shell %q", m[1]), hint: "one of " + strings.Join(shells, ", ")}
			}
			return unknownCommand(root, m[1])
		}
	}
	return err
}

func explainUsage(ue usageError, root *cli.Command, args []string) error {
	cmd := ue.cmd
	msg := ue.err.Error()
	help := "see 'ccsurgeon --help'"
	if cmd != root && cmd.Name != "" {
		help = fmt.Sprintf("see '%s --help'", cmd.FullName()) // "ccsurgeon completion bash"
	}
	if m := notDefinedRe.FindStringSubmatch(msg); m != nil {
		typed := asTyped(m[1], args)
		hint := help
		if near := nearest(m[1], flagNames(cmd)); near != "" {
			hint = "did you mean --" + near + "?"
		}
		return usageError{err: fmt.Errorf("unknown flag %s", typed), hint: hint}
	}
	if m := twiceRe.FindStringSubmatch(msg); m != nil {
		return usageError{err: fmt.Errorf("%s given twice (the second time: %q)", asTyped(m[2], args), m[1]), hint: "give it once"}
	}
	if m := badValueRe.FindStringSubmatch(msg); m != nil {
		hint := help
		if full, ok := inFull(m[1]); ok && isIntFlag(cmd, m[2]) {
			hint = fmt.Sprintf("write the number in full: %s %d", asTyped(m[2], args), full)
		} else if isIntFlag(cmd, m[2]) && strings.ContainsAny(m[1], "0123456789") && !plainIntRe.MatchString(m[1]) {
			// a number in a form the flag does not read ("150 000", "150000.0")
			hint = "write it as " + countForms
		}
		return usageError{err: fmt.Errorf("%s %q: want %s", asTyped(m[2], args), typedValue(m[2], m[1], args), wants(cmd, m[2])), hint: hint}
	}
	if m := needsArgRe.FindStringSubmatch(msg); m != nil {
		return usageError{err: fmt.Errorf("%s needs %s", asTyped(m[1], args), wants(cmd, m[1])), hint: help}
	}
	return usageError{err: ue.err, cmd: cmd, hint: help}
}

// asTyped returns the flag name as it was typed (one dash or two).
func asTyped(name string, args []string) string {
	for _, a := range args {
		a, _, _ = strings.Cut(a, "=")
		if strings.TrimLeft(a, "-") == name && strings.HasPrefix(a, "-") {
			return a
		}
	}
	return "--" + name
}

// typedValue returns the value of flag name as it was typed, given the
// value the parser read (parsed): countsInFull wrote "0e5" as "0" and
// "1.5M" as "1500000" for it, and an error that echoed those named a
// number the user never gave.
func typedValue(name, parsed string, args []string) string {
	for k, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		n, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n != name {
			continue
		}
		if !eq {
			if k+1 >= len(args) {
				continue
			}
			val = args[k+1]
		}
		if full, ok := inFull(val); val == parsed || ok && strconv.FormatInt(full, 10) == parsed {
			return val
		}
	}
	return parsed
}

// countsInFull writes every count given to a whole-number flag as
// ccsurgeon prints counts ("--target-tokens 150k", "1.5M", "150,000") in
// full, for the flag parser: the one place counts are read, so each flag
// that takes one accepts what ccsurgeon itself prints. Arguments after
// "--" are left as they are.
func countsInFull(root *cli.Command, args []string) []string {
	ints := map[string]bool{}
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		for _, f := range c.Flags {
			if _, ok := f.(*cli.IntFlag); ok {
				for _, n := range f.Names() {
					ints[n] = true
				}
			}
		}
		for _, sub := range c.Commands {
			walk(sub)
		}
	}
	walk(root)
	out := slices.Clone(args)
	for k := 1; k < len(out); k++ {
		a := out[k]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !ints[name] {
			continue
		}
		if eq {
			if n, ok := inFull(val); ok {
				out[k] = a[:len(a)-len(val)] + strconv.FormatInt(n, 10)
			}
		} else if k+1 < len(out) {
			if n, ok := inFull(out[k+1]); ok {
				out[k+1] = strconv.FormatInt(n, 10)
			}
			k++
		}
	}
	return out
}

// shortHandRe is a count as ccsurgeon prints one ("150k", "1.5M"), with
// commas ("150,000"; the flag reads 150_000 as it is) or in scientific
// notation as scripts and spreadsheets print one ("1.5e5").
var shortHandRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(?:([kKmM])|[eE]\+?([0-9]{1,2}))$|^[0-9]{1,3}(?:,[0-9]{3})+$`)

// countForms is how a count may be written, for the hint of one that is
// written otherwise.
const countForms = "150000, 150k, 1.5M, 150,000 or 1.5e5"

// plainIntRe is a whole number as the flag parser reads it.
var plainIntRe = regexp.MustCompile(`^[-+]?[0-9]+$`)

// inFull is the whole number a short-hand count stands for: 150000 for
// "150k". ok is false for what is no such count.
func inFull(v string) (n int64, ok bool) {
	m := shortHandRe.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	if m[2] == "" && m[3] == "" {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, ",", ""), 10, 64)
		return n, err == nil
	}
	// in whole numbers, digit by digit: a float multiplies 8.2 by 1e6 to
	// 8199999.999…, and 8.2M was refused as no whole number
	whole, frac, _ := strings.Cut(m[1], ".")
	zeros := 3
	switch {
	case m[2] == "m" || m[2] == "M":
		zeros = 6
	case m[3] != "":
		zeros, _ = strconv.Atoi(m[3])
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > zeros {
		return 0, false
	}
	n, err := strconv.ParseInt(whole+frac+strings.Repeat("0", zeros-len(frac)), 10, 64)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// isIntFlag reports whether the flag name of cmd (or a global one) takes
// a whole number.
func isIntFlag(cmd *cli.Command, name string) bool {
	for _, c := range withRoot(cmd) {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if _, ok := f.(*cli.IntFlag); ok && n == name {
					return true
				}
			}
		}
	}
	return false
}

// wants says what a flag's value must be.
func wants(cmd *cli.Command, name string) string {
	for _, c := range withRoot(cmd) {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if n != name {
					continue
				}
				if _, ok := f.(*cli.IntFlag); ok {
					if m, ok := intMin[name]; ok {
						return fmt.Sprintf("a whole number, %d or more", m)
					}
					return "a whole number"
				}
				if d, ok := f.(cli.DocGenerationFlag); ok && d.TakesValue() {
					if u := d.GetUsage(); u != "" {
						placeholder, usage := "a value", strings.ReplaceAll(u, "`", "")
						if m := placeholderRe.FindStringSubmatch(u); m != nil {
							placeholder = m[1]
						}
						return placeholder + ": " + usage
					}
				}
				return "a value"
			}
		}
	}
	return "a value"
}

// flagNames lists the long names of the flags a command accepts, its own
// and the global ones.
func flagNames(cmd *cli.Command) []string {
	var out []string
	for _, c := range withRoot(cmd) {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// withRoot is cmd, then the root command if cmd is not it.
func withRoot(cmd *cli.Command) []*cli.Command {
	if r := cmd.Root(); r != nil && r != cmd {
		return []*cli.Command{cmd, r}
	}
	return []*cli.Command{cmd}
}

// unknownCommand is the error for a command name that is not one.
func unknownCommand(root *cli.Command, name string) error {
	var names []string
	for _, c := range root.Commands {
		if !c.Hidden || c.Name == "completion" {
			names = append(names, c.Names()...)
		}
	}
	hint := "see 'ccsurgeon --help' for the commands"
	if name == "version" {
		hint = "the version is 'ccsurgeon --version'"
	} else if near := nearest(name, names); near != "" {
		hint = fmt.Sprintf("did you mean '%s'?", near)
	}
	return &app.Error{Msg: fmt.Sprintf("unknown command %q", name), Hint: hint, Code: 2}
}

// isCompletion reports whether the command line runs 'completion'.
func isCompletion(args []string) bool {
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			return a == "completion"
		}
	}
	return false
}

// nearest returns the candidate closest to s: one that s is a prefix of,
// or one within a few edits; "" when none is close.
func nearest(s string, candidates []string) string {
	best, bestD := "", 1
	if len(s) > 5 {
		bestD = 2
	}
	for _, c := range candidates {
		if len(s) >= 2 && strings.HasPrefix(c, s) {
			return c
		}
	}
	for _, c := range candidates {
		if d := editDistance(s, c); d <= bestD && (best == "" || d < editDistance(s, best)) {
			best = c
		}
	}
	if best == "" && len(s) >= 4 {
		// a word of one candidate only ("tokens" of "target-tokens")
		for _, c := range candidates {
			if strings.Contains(c, s) {
				if best != "" {
					return ""
				}
				best = c
			}
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (with transpositions)
// between a and b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
