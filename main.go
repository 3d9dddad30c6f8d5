// Command ccsurgeon performs surgery on Claude Code session transcripts:
// clone, fork, shrink and redact sessions without breaking them.
//
// main.go builds the command tree and turns flags into options; what each
// command does lives in package app.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/app"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/urfave/cli/v3"
)

var version = "0.1.0"

func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// usageError marks a command-line mistake (exit 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) ExitCode() int { return 2 }

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	env := &app.Env{In: stdin, Out: stdout, Err: stderr}
	root := newCommand(env)
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ccsurgeon: internal error: %v\n", r)
			fmt.Fprintln(stderr, "ccsurgeon: hint: no file was changed; please report this with the command you ran")
			code = 3
		}
	}()
	err := root.Run(ctx, args)
	return reportError(stderr, err)
}

func reportError(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	code := 1
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	msg := err.Error()
	if msg != "" {
		fmt.Fprintf(stderr, "ccsurgeon: %s\n", lowerFirst(strings.TrimSuffix(msg, ".")))
	}
	var h interface{ HintText() string }
	if errors.As(err, &h) && h.HintText() != "" {
		fmt.Fprintf(stderr, "ccsurgeon: hint: %s\n", h.HintText())
	}
	return code
}

func lowerFirst(s string) string {
	if s == "" {
		return s
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
		Version: version,
		Description: `ccsurgeon reads the JSONL transcripts Claude Code keeps under
~/.claude/projects/ and changes them without breaking them: clone, fork,
strip thinking, drop tool calls, compress old turns, redact secrets.

SESSION is a session id, a unique id prefix (4+ characters), or a path to a
.jsonl file. Ids are looked up in every folder under <config-dir>/projects/.`,
		EnableShellCompletion: true,
		Writer:                env.Out,
		ErrWriter:             env.Err,
		Reader:                env.In,
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config-dir", Usage: "Claude Code config `DIR` (default $CLAUDE_CONFIG_DIR, else ~/.claude)"},
			&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output on stderr"},
		},
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			env.ConfigDir = cmd.String("config-dir")
			if env.ConfigDir == "" {
				env.ConfigDir = chain.DefaultConfigDir()
			}
			env.JSON = cmd.Bool("json")
			env.Quiet = cmd.Bool("quiet")
			return ctx, nil
		},
		Commands: []*cli.Command{
			{
				Name:      "ls",
				Usage:     "list sessions, newest first",
				UsageText: "ccsurgeon ls [--project PATH]\n\nexample:\n   ccsurgeon ls --project ~/src/myapp",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "project", Usage: "only sessions of the project at `PATH` (a working directory or a folder name under projects/)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if err := noArgs(cmd); err != nil {
						return err
					}
					return env.RunLs(app.LsOptions{Project: cmd.String("project")})
				},
			},
			{
				Name:      "info",
				Usage:     "show what a session holds: sizes by entry type and tool, thinking, images, turns, branches",
				UsageText: "ccsurgeon info SESSION\n\nexample:\n   ccsurgeon info 3f2a9c1e\n   ccsurgeon --json info ./session.jsonl",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					s, err := oneSession(cmd)
					if err != nil {
						return err
					}
					return env.RunInfo(app.InfoOptions{Session: s})
				},
			},
			{
				Name:      "turns",
				Usage:     "list the human turns of the branch the client resumes (--all: every branch)",
				UsageText: "ccsurgeon turns SESSION [--all]\n\nexample:\n   ccsurgeon turns 3f2a9c1e --all",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "all", Usage: "list every branch (e.g. those /rewind left behind) with its leaf"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					s, err := oneSession(cmd)
					if err != nil {
						return err
					}
					return env.RunTurns(app.TurnsOptions{Session: s, All: cmd.Bool("all")})
				},
			},
			{
				Name:      "validate",
				Usage:     "check that sessions would resume and be accepted by the API (exit 1 if not)",
				UsageText: "ccsurgeon validate SESSION|FILE...\n\nexample:\n   ccsurgeon validate 3f2a9c1e ./other.jsonl",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					return env.RunValidate(app.ValidateOptions{Sessions: cmd.Args().Slice()})
				},
			},
			cloneCommand(env),
			forkCommand(env),
			rewriteCommand(env),
		},
	}
	setUsageErrors(root)
	return root
}

// destFlags are the destination flags every writing command takes.
func destFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the result to `PATH` ('-' for stdout) and touch nothing else"},
		&cli.BoolFlag{Name: "new", Usage: "write the result as a new session (fresh ids) beside the original"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; print what would change"},
		&cli.BoolFlag{Name: "diff", Usage: "with --dry-run: print a unified line diff"},
		&cli.BoolFlag{Name: "force", Usage: "write in place even when Claude Code seems to be using the session"},
		&cli.IntFlag{Name: "keep", Usage: "keep the `N` newest backups of the session (default 20)"},
	}
}

func destFrom(cmd *cli.Command) app.Dest {
	return app.Dest{Output: cmd.String("output"), New: cmd.Bool("new"), DryRun: cmd.Bool("dry-run"), Diff: cmd.Bool("diff"), Force: cmd.Bool("force"), Keep: int(cmd.Int("keep"))}
}

const destHelp = `Destinations (for every writing command):
   (default)     change the session in place, after backing it up
                 (undo with 'ccsurgeon restore SESSION')
   --new         write a new session beside it, with fresh ids
   -o PATH       write the result to PATH ('-' for stdout), touch nothing else
   --dry-run     change nothing; print a summary (--diff: a line diff)`

func rewriteCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "rewrite",
		Usage: "apply several operations in one pass (with none, a byte-identical copy)",
		UsageText: `ccsurgeon rewrite SESSION [operation flags] [-o PATH | --new | --dry-run]

examples:
   ccsurgeon rewrite 3f2a9c1e -o copy.jsonl   # no operation: copy.jsonl is byte-identical

` + destHelp,
		Flags: destFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s, err := oneSession(cmd)
			if err != nil {
				return err
			}
			return env.RunRewrite(app.RewriteOptions{Session: s, Dest: destFrom(cmd)})
		},
	}
}

func branchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "leaf", Usage: "work on the branch ending at entry `UUID`"},
		&cli.IntFlag{Name: "branch", Usage: "work on branch `N` as numbered by 'turns --all'"},
	}
}

func cloneCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "clone",
		Usage: "copy a session to a new session with fresh ids (optionally another branch)",
		UsageText: `ccsurgeon clone SESSION [--leaf UUID | --branch N]

Writes a new session in the same project folder: a fresh session id and a
fresh uuid for every entry, every reference remapped; subagent transcripts,
tool-results/ and file-history backups copied. Message content stays
byte-identical. With --leaf or --branch the chosen branch is the one the
client resumes: this brings back a conversation that /rewind left behind.

examples:
   ccsurgeon clone 3f2a9c1e
   ccsurgeon turns 3f2a9c1e --all && ccsurgeon clone 3f2a9c1e --branch 1`,
		Flags: append(branchFlags(), destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			s, err := oneSession(cmd)
			if err != nil {
				return err
			}
			return env.RunClone(s, app.BranchOptions{Leaf: cmd.String("leaf"), Branch: int(cmd.Int("branch"))}, destFrom(cmd))
		},
	}
}

func forkCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:    "fork-at-turn",
		Aliases: []string{"fork"},
		Usage:   "start a new session from the conversation up to the end of turn N",
		UsageText: `ccsurgeon fork-at-turn SESSION N [--branch N | --leaf UUID]

N is a turn number as listed by 'ccsurgeon turns SESSION'. The new session
holds the conversation up to and including the complete answer to turn N,
with fresh ids. Turns before a compaction are allowed.

example:
   ccsurgeon fork 3f2a9c1e 4`,
		Flags: append(branchFlags(), destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() != 2 {
				return usageError{fmt.Errorf("fork-at-turn needs SESSION and a turn number N")}
			}
			n, err := strconv.Atoi(cmd.Args().Get(1))
			if err != nil {
				return usageError{fmt.Errorf("turn number %q is not a number", cmd.Args().Get(1))}
			}
			return env.RunFork(cmd.Args().First(), n, app.BranchOptions{Leaf: cmd.String("leaf"), Branch: int(cmd.Int("branch"))}, destFrom(cmd))
		},
	}
}

func oneSession(cmd *cli.Command) (string, error) {
	switch cmd.Args().Len() {
	case 1:
		return cmd.Args().First(), nil
	case 0:
		return "", usageError{fmt.Errorf("%s needs a SESSION (an id, an id prefix or a .jsonl path)", cmd.Name)}
	}
	return "", usageError{fmt.Errorf("%s takes one SESSION, got %d arguments: %s", cmd.Name, cmd.Args().Len(), strings.Join(cmd.Args().Slice(), " "))}
}

func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd.Name, cmd.Args().First())}
	}
	return nil
}

func setUsageErrors(c *cli.Command) {
	c.OnUsageError = func(ctx context.Context, cmd *cli.Command, err error, isSubcommand bool) error {
		return usageError{err}
	}
	for _, sub := range c.Commands {
		setUsageErrors(sub)
	}
}
