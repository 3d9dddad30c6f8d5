// Package cli is ccsurgeon's command layer: it builds the urfave/cli
// command tree (a file per command: its flags, the checks of their
// values, the options they become), and turns errors into words, hints
// and exit codes: speak is the one mapping of the domain's typed errors
// (chain, ops, backup) to what the user reads, reportErrorAs prints them.
// many.go and pick.go choose the sessions a command works on; what each
// command does lives in package app.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/urfave/cli/v3"
)

// Main runs ccsurgeon with the command line args (args[0] the program) and
// returns the exit code; the CCSURGEON_CPUPROFILE and CCSURGEON_MEMPROFILE
// variables write profiles for developers (go tool pprof), CCSURGEON_TRACE
// an execution trace (go tool trace: which stages run side by side),
// CCSURGEON_STEPS a timeline of the steps of its writes (startSteps).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if p := os.Getenv("CCSURGEON_STEPS"); p != "" { // for developers: where a write's time goes
		defer startSteps(p)()
	}
	if p := os.Getenv("CCSURGEON_HEAPPROFILE"); p != "" { // for developers: the heap at its largest
		stop := startHeapProfile(p)
		code := run(context.Background(), args, stdin, stdout, stderr)
		stop()
		return code
	}
	if p := os.Getenv("CCSURGEON_TRACE"); p != "" { // for developers: go tool trace
		if f, err := os.Create(p); err == nil {
			_ = trace.Start(f)
			code := run(context.Background(), args, stdin, stdout, stderr)
			trace.Stop()
			f.Close()
			return code
		}
	}
	if p := os.Getenv("CCSURGEON_CPUPROFILE"); p != "" { // for developers: go tool pprof
		if f, err := os.Create(p); err == nil {
			_ = pprof.StartCPUProfile(f)
			code := run(context.Background(), args, stdin, stdout, stderr)
			pprof.StopCPUProfile()
			f.Close()
			return code
		}
	}
	code := run(context.Background(), args, stdin, stdout, stderr)
	if p := os.Getenv("CCSURGEON_MEMPROFILE"); p != "" { // for developers: go tool pprof -sample_index=alloc_space
		if f, err := os.Create(p); err == nil {
			runtime.GC() // the profile covers allocations up to the last GC
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	return code
}

// hintObserver, set by tests, sees the command line and what was written
// on stderr of every run whose stderr is not a file (a terminal's must
// stay one): the tests run every hint it holds (TestMain, main_hints_test.go).
var hintObserver func(args []string, stderr string)

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if obs := hintObserver; obs != nil {
		if _, isFile := stderr.(*os.File); !isFile {
			var seen bytes.Buffer
			code := runCommand(ctx, args, stdin, stdout, io.MultiWriter(stderr, &seen))
			obs(args, seen.String())
			return code
		}
	}
	return runCommand(ctx, args, stdin, stdout, stderr)
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if slices.Contains(args, "--generate-shell-completion") {
		// what the shell offers: flags described by their usage, whose
		// backticks name the value in --help and mean nothing here
		stdout = dropBackticks{stdout}
	}
	env := app.NewEnv(stdin, stdout, stderr)
	root := newCommand(env)
	root.Metadata = map[string]any{argsKey: args}
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("CCSURGEON_PANIC") != "" { // for developers: the stack trace
				panic(r)
			}
			fmt.Fprintf(stderr, "ccsurgeon: internal error: %v\n", r)
			fmt.Fprintln(stderr, "ccsurgeon: hint: no file was changed; please report this with the command you ran")
			code = 3
		}
	}()
	err := root.Run(ctx, countsInFull(root, args))
	return reportErrorAs(stderr, explain(err, root, args), env.Self())
}

// dropBackticks writes what it is given without its backticks.
type dropBackticks struct{ w io.Writer }

func (d dropBackticks) Write(p []byte) (int, error) {
	if _, err := d.w.Write(bytes.ReplaceAll(p, []byte("`"), nil)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// selfRe is a ccsurgeon command a hint holds, quoted or the whole hint,
// with the --config-dir it names already, if any.
var selfRe = regexp.MustCompile(`(^|')ccsurgeon (--config-dir )?`)

// reportErrorAs prints err and its hint, in which the ccsurgeon commands
// are run as self ("ccsurgeon --config-dir DIR" when the config dir is not
// the default one), so that they work as printed.
func reportErrorAs(stderr io.Writer, err error, self string) int {
	if err == nil {
		return 0
	}
	err = speak(err)
	code := 1
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	// a path or a name in the words may hold a newline or an escape: the
	// error stays one line, and the terminal shows it, never acts on it
	msg := app.Printable(err.Error())
	if msg != "" {
		fmt.Fprintf(stderr, "ccsurgeon: %s\n", lowerFirst(trimSentenceDot(msg)))
	}
	var h interface{ HintText() string }
	if errors.As(err, &h) && h.HintText() != "" {
		hint := app.Printable(h.HintText())
		if self != "ccsurgeon" {
			// each command is run as self, unless it names its config dir
			// already (a hint's prose may name the flag: that is no command)
			hint = selfRe.ReplaceAllStringFunc(hint, func(m string) string {
				if strings.HasSuffix(m, "--config-dir ") {
					return m
				}
				return strings.TrimSuffix(m, "ccsurgeon ") + self + " "
			})
		}
		fmt.Fprintf(stderr, "ccsurgeon: hint: %s\n", hint)
	}
	return code
}

// trimSentenceDot removes the period that ends a sentence, never one that
// is part of the last word (a path or an argument such as "abc.." or "v1.").
func trimSentenceDot(s string) string {
	if !strings.HasSuffix(s, ".") {
		return s
	}
	last := s[strings.LastIndexAny(s, " \t")+1:]
	if strings.ContainsAny(strings.TrimSuffix(last, "."), "./\\") || strings.HasSuffix(last, "..") {
		return s
	}
	return s[:len(s)-1]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	if w, _, _ := strings.Cut(s, " "); strings.ContainsAny(w, "./\\") {
		return s // the message starts with a path or a name the user gave
	}
	if len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' { // an acronym: keep it
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func newCommand(env *app.Env) *cli.Command {
	root := &cli.Command{
		Name:    "ccsurgeon",
		Usage:   "surgery on Claude Code session transcripts",
		Version: buildVersion(),
		Description: `ccsurgeon reads the JSONL transcripts Claude Code keeps under
~/.claude/projects/ and changes them without breaking them: clone, fork,
strip thinking, drop tool calls, compress old turns, redact secrets.

SESSION is a session id, a unique id prefix (4+ characters), or a path to a
session file. Ids are looked up in every folder under <config-dir>/projects/.
With no SESSION most commands work on the newest session of this folder's
project (the one 'claude --continue' picks); a change in place asks first
(y/N) on a terminal and refuses elsewhere; --pick chooses one of them with
the arrow keys. A change in place keeps the file's modification time. Most
commands take several SESSIONs, --all or --project PATH (see each command's
--help).

EXIT STATUS:` + exitCodesHelp,
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print a shell completion script (bash, zsh, fish, pwsh)"
			c.UsageText = "ccsurgeon completion bash|zsh|fish|pwsh\n\nCompletes commands, flags and session ids (type a prefix, then Tab).\n\nexamples:\n   source <(ccsurgeon completion bash)                          # in ~/.bashrc\n   source <(ccsurgeon completion zsh)                           # in ~/.zshrc\n   ccsurgeon completion fish > ~/.config/fish/completions/ccsurgeon.fish\n   ccsurgeon completion pwsh > ccsurgeon.ps1                    # then run it in PowerShell"
			c.Description = ""
			// urfave makes this command when the tree runs, after finish
			c.OnUsageError = onUsageError
			for _, sub := range c.Commands {
				sub.Usage = "print the " + sub.Name + " completion script"
				sub.OnUsageError = onUsageError
			}
			c.Action = func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() == 0 {
					return usageError{err: errors.New("completion needs a shell"), hint: "one of " + strings.Join(shells, ", ")}
				}
				return usageError{err: fmt.Errorf("unknown shell %q", cmd.Args().First()), hint: "one of " + strings.Join(shells, ", ")}
			}
		},
		Writer:         env.Out,
		ErrWriter:      env.Err,
		Reader:         env.In,
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config-dir", Usage: "Claude Code config `DIR` (default $CLAUDE_CONFIG_DIR, else ~/.claude; on Windows %USERPROFILE%\\.claude)"},
			&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output on stderr"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			env.ConfigDir = cmd.String("config-dir")
			if env.ConfigDir == "" {
				env.ConfigDir = chain.DefaultConfigDir()
			}
			// one absolute path for every command: move and the backups
			// compare the paths they write with it
			if abs, err := filepath.Abs(env.ConfigDir); err == nil {
				env.ConfigDir = abs
			}
			env.JSON = cmd.Bool("json")
			if !env.JSON {
				// text for a person: what a file holds is shown, never
				// acted on by the terminal (app.RawOut for a session's bytes)
				env.Out = app.TextOut{W: env.Out}
			}
			env.Quiet = cmd.Bool("quiet")
			return ctx, nil
		},
		Commands: []*cli.Command{
			lsCommand(env),
			infoCommand(env),
			turnsCommand(env),
			validateCommand(env),
			cloneCommand(env),
			forkCommand(env),
			stripCommand(env),
			dropCommand(env),
			compressCommand(env),
			redactCommand(env),
			rewriteCommand(env),
			repairCommand(env),
			moveCommand(env),
			doctorCommand(env),
		},
	}
	root.Commands = append(root.Commands, backupCommands(env)...)
	root.Commands = append(root.Commands, helpCommand())
	finish(env, root)
	return root
}

// oneSession is the one SESSION of a command that also takes --project
// OLD (move): its hints name both.
func oneSession(cmd *cli.Command) (string, error) {
	switch cmd.Args().Len() {
	case 1:
		return cmd.Args().First(), nil
	case 0:
		return "", usageError{err: fmt.Errorf("%s needs a SESSION (an id, an id prefix or a .jsonl path)", cmd.Name),
			hint: fmt.Sprintf("name the session to %s ('ccsurgeon ls' lists them), or %s every session of a project with --project OLD", cmd.Name, cmd.Name)}
	}
	return "", usageError{err: fmt.Errorf("%s takes one SESSION, got %d arguments: %s", cmd.Name, cmd.Args().Len(), strings.Join(cmd.Args().Slice(), " ")),
		hint: fmt.Sprintf("%s one session at a time, or every session of a project with --project OLD", cmd.Name)}
}

func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return usageError{err: fmt.Errorf("%s takes no arguments, got %q", cmd.Name, cmd.Args().First())}
	}
	return nil
}

// speak words the errors the domain returns as facts: the hint that says
// what to do, in the command line's terms (its flags and commands), and
// the exit code (2 for a bad value or argument the user gave, as for every
// usage error; 1 for a refusal or a failure). It words the outermost error
// of the chain it knows; an error that already carries a hint of its own
// (an *app.Error, a domain error whose hint is a fact) is left as it is.
func speak(err error) error {
	out := err
	walkErrors(err, func(e error) bool {
		w, done := speakOne(err, e)
		if done {
			out = w
		}
		return done
	})
	return out
}

// walkErrors calls f on err and what it wraps, outermost first, in the
// order errors.As looks, until f returns true.
func walkErrors(err error, f func(error) bool) bool {
	for err != nil {
		if f(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if walkErrors(e, f) {
					return true
				}
			}
			return false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return false
		}
	}
	return false
}

// speakOne words e, one error of err's chain; done is false when e is not
// one to word (the search goes on inside it).
func speakOne(err, e error) (worded error, done bool) {
	words := func(hint string, code int) (error, bool) {
		return &app.Error{Msg: err.Error(), Hint: hint, Code: code, Err: err}, true
	}
	const force = "close Claude Code or pass --force"
	switch t := e.(type) {
	case *chain.ArgError:
		return words(t.Hint, 2)
	case *chain.AmbiguousError:
		return words(t.HintText(), 2)
	case *chain.ConfigDirError:
		return words("name the folder that holds projects/ (~/.claude by default) with --config-dir DIR or $CLAUDE_CONFIG_DIR", 1)
	case *chain.NoMatchError:
		return words("list sessions with 'ccsurgeon ls', or pass --config-dir or a path to a .jsonl file", 1)
	case *ops.TurnRangeError:
		return words("list them with 'ccsurgeon turns SESSION'", 2)
	case *ops.BeforeTurnError:
		return &app.Error{Msg: app.Reword(err, e, fmt.Sprintf("--before-turn %d is out of range: give 1-%d (the branch has %d turns; %d means all of them)", t.N, t.Turns+1, t.Turns, t.Turns+1)), Hint: "list the turns with 'ccsurgeon turns SESSION'", Code: 2, Err: err}, true
	case *ops.OptionError:
		flag := map[string]string{"KeepTurns": "--keep-turns", "KeepExchanges": "--keep-exchanges", "Target": "--target-tokens"}[t.Option]
		if flag == "" {
			return err, true
		}
		return &app.Error{Msg: app.Reword(err, e, fmt.Sprintf("%s must be %s", flag, t.Want)), Code: 2, Err: err}, true
	case *ops.OverTargetError:
		return &app.Error{Msg: app.Reword(err, e, fmt.Sprintf("the estimate of the written result stays above --target-tokens %d (%d); nothing was written", t.Target, t.Total)),
			Hint: fitBugHint(t.Path), Code: 1, Err: err}, true
	case *backup.LiveError:
		if t.PID > 0 {
			return words(force, 1)
		}
		// written in the last seconds: if the client just quit, waiting
		// out backup.RecentWriteWindow is the safe answer
		return words("if Claude Code is done with it, try again in 5 seconds; else "+force, 1)
	case *backup.SymlinkError:
		switch {
		case t.Hint != "":
			return words(t.Hint, 1)
		case t.Output:
			return words(fmt.Sprintf("name the file it points to (%s), or '-o -' for standard output", t.TargetPath()), 1)
		case t.Read:
			return words(fmt.Sprintf("replace the link with a copy of the folder it names (%s), and run the command again", t.TargetPath()), 1)
		}
		fi, err := os.Stat(t.TargetPath())
		if errors.Is(err, fs.ErrNotExist) {
			// a link to nothing (its file removed): no copy to make
			return words(fmt.Sprintf("it names nothing that exists: remove it (%s), and run the command again", app.RemoveCmd(t.Path)), 1)
		}
		if err == nil && fi.IsDir() {
			// a folder of the config dir kept elsewhere (dotfiles): the
			// folder itself in the link's place, and the same run works
			return words(fmt.Sprintf("put the folder it names in the link's place (%s), and run the command again",
				app.FolderForLinkCmd(t.Path, t.TargetPath())), 1)
		}
		return words("replace the link with a copy of the file it names, or write the result elsewhere with -o", 1)
	case *backup.NameError:
		return &app.Error{Msg: app.Reword(err, e, e.Error()+": rename it, or write the result elsewhere with -o"), Code: 1, Err: err}, true
	case *backup.CannotWriteError:
		if t.Block == backup.NoFolder {
			return words("create it first: "+app.MkdirCmd(t.Dir), 1)
		}
		name := filepath.Base(filepath.Clean(t.Path))
		if strings.HasSuffix(t.Path, "/") || strings.HasSuffix(t.Path, string(filepath.Separator)) {
			name += "/" // a share folder
		}
		return words("write it in a folder you can write, such as the current one (-o ./"+name+"), or to standard output with -o -", 1)
	case *backup.ExistsError:
		return words("pass --force to replace it, or choose another name", 1)
	case *backup.NotRegularError:
		return words("write to a file and copy it there, or use -o - for standard output", 1)
	case *backup.NotAFileError:
		return words("replace it with a copy of the file, or remove it, and run the command again", 1)
	case *backup.OutsideError:
		return words("name the file by its path if you mean to change it there, or write the result elsewhere with -o", 1)
	case *backup.NoBackupError:
		switch {
		case t.Other == "":
			return err, true // the command says why, if it can (restore)
		case t.OtherThere:
			return words(fmt.Sprintf("the backups of session %s are of another copy, %s: restore that one with 'ccsurgeon restore %s'", t.SessionID, t.Other, t.Other), 1)
		}
		// a restore of a file that is not there fails: say where the
		// backups are instead of a command that cannot work
		return words(fmt.Sprintf("the backups of session %s are of another copy, %s, which is no longer there; they are kept in %s", t.SessionID, t.Other, t.Kept), 1)
	case *backup.ElsewhereError:
		return words(fmt.Sprintf("a backup goes back only to the file it was taken of; list this file's with 'ccsurgeon backups %s'", t.File), 1)
	case *backup.MovedSinceError:
		if t.Undo.Name == "" {
			return words(fmt.Sprintf("a backup taken in another folder goes back there: list this session's with 'ccsurgeon backups %s'", t.SessionID), 1)
		}
		// the newest move undone first: the session is then where the
		// backup was taken (or a move nearer to it); the hint is that
		// command, whole (a config dir in it may need quotes)
		return &app.Error{Msg: app.Reword(err, e, t.Error()+fmt.Sprintf(": undo that move first (backup %s), then restore %s again", t.Undo.Name, t.Name)),
			// (named by its path: another copy of the session may share its id)
			Hint: fmt.Sprintf("ccsurgeon restore %s %s", app.ShellQuote(filepath.Join(t.To, t.SessionID+".jsonl")), t.Undo.Name), Code: 1, Err: err}, true
	case *backup.DamagedError:
		return words("choose another backup with 'ccsurgeon backups'", 1)
	case *backup.PartialError:
		return words(fmt.Sprintf("the previous state is saved in %s; restore it with ccsurgeon's restore command", t.BackupDir), 1)
	case *backup.Error:
		if errors.Is(t.Err, backup.ErrAmbiguous) {
			return words(t.Hint, 2) // as an ambiguous session id prefix
		}
	}
	if e == ops.ErrNoSelector {
		return &app.Error{Msg: app.Reword(err, e, "drop-tool-calls needs a selector"), Hint: "add --tool NAME, --larger-than SIZE, --turns RANGE or --failed", Code: 2, Err: err}, true
	}
	if _, ok := e.(interface{ HintText() string }); ok {
		return err, true // worded already: its own hint (or none) and exit code
	}
	return nil, false
}

// fitBugHint is the hint of ops.OverTargetError, a bug: the report to
// send is what info says of this session, named by its path (info with no
// SESSION would read the newest session of the folder's project) and
// quoted for the shell; the command ends the hint, whole, so it runs as
// printed.
func fitBugHint(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	return "this is a bug in ccsurgeon: please report it with the output of: ccsurgeon info " + app.ShellQuote(path)
}
