// Command ccsurgeon performs surgery on Claude Code session transcripts:
// clone, fork, shrink and redact sessions without breaking them.
//
// main.go builds the command tree and turns flags into options; what each
// command does lives in package app.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/app"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/urfave/cli/v3"
)

func main() {
	if p := os.Getenv("CCSURGEON_HEAPPROFILE"); p != "" { // for developers: the heap at its largest
		stop := startHeapProfile(p)
		code := run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if p := os.Getenv("CCSURGEON_CPUPROFILE"); p != "" { // for developers: go tool pprof
		if f, err := os.Create(p); err == nil {
			_ = pprof.StartCPUProfile(f)
			code := run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	code := run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)
	if p := os.Getenv("CCSURGEON_MEMPROFILE"); p != "" { // for developers: go tool pprof -sample_index=alloc_space
		if f, err := os.Create(p); err == nil {
			runtime.GC() // the profile covers allocations up to the last GC
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	os.Exit(code)
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
	env := &app.Env{In: stdin, Out: stdout, Err: stderr}
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

func reportError(stderr io.Writer, err error) int { return reportErrorAs(stderr, err, "ccsurgeon") }

// selfRe is a ccsurgeon command a hint holds, quoted or the whole hint.
var selfRe = regexp.MustCompile(`(^|')ccsurgeon `)

// reportErrorAs prints err and its hint, in which the ccsurgeon commands
// are run as self ("ccsurgeon --config-dir DIR" when the config dir is not
// the default one), so that they work as printed.
func reportErrorAs(stderr io.Writer, err error, self string) int {
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
		fmt.Fprintf(stderr, "ccsurgeon: %s\n", lowerFirst(trimSentenceDot(msg)))
	}
	var h interface{ HintText() string }
	if errors.As(err, &h) && h.HintText() != "" {
		hint := h.HintText()
		if self != "ccsurgeon" && !strings.Contains(hint, "--config-dir") {
			hint = selfRe.ReplaceAllStringFunc(hint, func(m string) string {
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
the arrow keys. A change in place keeps the file's modification time. Most commands take several SESSIONs, --all or --project PATH
(see each command's --help).

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
			env.Quiet = cmd.Bool("quiet")
			return ctx, nil
		},
		Commands: []*cli.Command{
			{
				Name:  "ls",
				Usage: "list sessions, newest first",
				UsageText: `ccsurgeon ls [--project PATH] [--turns] [--sort date|size] [--since DURATION|DATE] [--min-size SIZE]

ls reads the first and last 64 KB of each session (its project, first prompt,
title and last prompt), so a 1 GB session lists as fast as a small one;
--turns also counts the turns of each session, which reads whole files.
A session ccsurgeon made is marked with where it came from: "(clone of
3f2a9c1e)", "(fork of 3f2a9c1e)" ("origin" in --json). A --project that
matches nothing, or a config dir that does not exist or has no projects/
folder, is an error (exit 1).

examples:
   ccsurgeon ls --project ~/src/myapp
   ccsurgeon ls --sort size --min-size 10MB --since 1w
   ccsurgeon --json ls --turns`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "project", Usage: "only sessions of project `PATH`: the path the PROJECT column shows, or a folder name under projects/"},
					&cli.BoolFlag{Name: "turns", Usage: "count the turns of each session (reads whole files)"},
					&cli.StringFlag{Name: "sort", Usage: "order by `WHICH`: date (newest first, the default) or size (biggest first)"},
					&cli.StringFlag{Name: "since", Usage: "only sessions modified in the last `DURATION` (30m, 2h, 3d, 1w) or since a date (2026-11-01)"},
					&cli.StringFlag{Name: "min-size", Usage: "only sessions of at least `SIZE` (e.g. 10MB)"},
				},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					if err := noArgs(cmd); err != nil {
						return err
					}
					return env.RunLs(app.LsOptions{Project: cmd.String("project"), Turns: cmd.Bool("turns"), Sort: cmd.String("sort"), Since: cmd.String("since"), MinSize: cmd.String("min-size")})
				},
			},
			many(&cli.Command{
				Name:      "info",
				Usage:     "show the tokens a resume sends and what cuts them, then what a session holds: sizes by entry type and tool, thinking, images, turns, branches",
				UsageText: "ccsurgeon info SESSION\n\nexample:\n   ccsurgeon info 3f2a9c1e\n   ccsurgeon --json info ./session.jsonl",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					return eachSession(env, cmd, func(env *app.Env, s string) error {
						return env.RunInfo(app.InfoOptions{Session: s})
					})
				},
			}),
			{
				Name:      "turns",
				Usage:     "list the human turns of the branch the client resumes (--all: every branch)",
				UsageText: "ccsurgeon turns SESSION [--all]\n\nexample:\n   ccsurgeon turns 3f2a9c1e --all",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "all", Usage: "list every branch (e.g. those /rewind left behind) with its leaf"},
					pickFlag(),
				},
				Metadata: map[string]any{pickKey: true},
				Action: func(ctx context.Context, cmd *cli.Command) error {
					return eachSession(env, cmd, func(env *app.Env, s string) error {
						return env.RunTurns(app.TurnsOptions{Session: s, All: cmd.Bool("all")})
					})
				},
			},
			many(&cli.Command{
				Name:      "validate",
				Usage:     "check that sessions would resume and be accepted by the API (exit 1 if not)",
				UsageText: "ccsurgeon validate SESSION|FILE...\n\nexample:\n   ccsurgeon validate 3f2a9c1e ./other.jsonl",
				Action: func(ctx context.Context, cmd *cli.Command) error {
					sessions, err := sessionsOf(env, cmd)
					if err != nil {
						return err
					}
					return env.RunValidate(app.ValidateOptions{Sessions: sessions})
				},
			}),
			cloneCommand(env),
			forkCommand(env),
			stripCommand(env),
			dropCommand(env),
			compressCommand(env),
			redactCommand(env),
			rewriteCommand(env),
			repairCommand(env),
			moveCommand(env),
		},
	}
	root.Commands = append(root.Commands, backupCommands(env)...)
	root.Commands = append(root.Commands, helpCommand())
	finish(env, root)
	return root
}

// writerGuardNote says what --force does not override, and where: only
// Linux shows which process holds a file open for writing (backup/writers_*.go).
const writerGuardNote = "Not overridden: on Linux, a session file another process holds open for writing is refused; " +
	"macOS and Windows do not show that, so there only the 5-second guard (a file modified in the last 5 s, " +
	"or since ccsurgeon read it) protects a client still writing"

// destFlags are the destination flags every writing command takes.
func destFlags() []cli.Flag {
	return append(newDestFlags(),
		&cli.BoolFlag{Name: "force", Usage: "write in place even when Claude Code seems to be using the session; with -o, replace an existing file (never a session). " + writerGuardNote},
		&cli.IntFlag{Name: "keep", Usage: "keep the `N` last made backups of the session, besides the original (default 20)"},
		&cli.BoolFlag{Name: "no-backup", Usage: "change in place without keeping a backup (after redact-secrets: no copy of the secrets is left)"},
	)
}

// newDestFlags are the destination flags of a command that writes a new
// session (clone, fork-at-turn): none of a change in place, which they
// refuse (--keep, --no-backup); --force only replaces a file -o names.
func newDestFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the result to `PATH` ('-' for stdout; PATH/ ending in a slash: a folder with the session and its subagent and tool-results files) and touch nothing else"},
		&cli.BoolFlag{Name: "new", Usage: "write the result as a new session (fresh ids) in the project folder of its working directory"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; print what would change"},
		&cli.BoolFlag{Name: "diff", Usage: "print a unified line diff of what would change (a preview: implies --dry-run)"},
	}
}

// forceOutputFlag is --force of a command that writes a new session.
func forceOutputFlag() cli.Flag {
	return &cli.BoolFlag{Name: "force", Usage: "with -o, replace an existing file (never a session)"}
}

func destFrom(cmd *cli.Command) app.Dest {
	return app.Dest{Output: cmd.String("output"), New: cmd.Bool("new"), DryRun: cmd.Bool("dry-run"), Diff: cmd.Bool("diff"), Force: cmd.Bool("force"), Keep: int(cmd.Int("keep")), NoBackup: cmd.Bool("no-backup")}
}

// checkTakesNoWrite refuses a write flag with --check (redact-secrets):
// --check is a scan that writes nothing, not a preview of a write as
// --dry-run and --diff are (they preview the command as given, with its
// flags), so -o, --new, --no-backup, --keep and --force would be ignored
// in silence. The hint is the command as typed without --check (whole,
// so that a quoted argument in it stays runnable).
func checkTakesNoWrite(env *app.Env, cmd *cli.Command) error {
	if !cmd.Bool("check") {
		return nil
	}
	given := ""
	for _, f := range []string{"output", "new", "no-backup", "keep", "force"} {
		if cmd.IsSet(f) {
			given = map[string]string{"output": "-o"}[f]
			if given == "" {
				given = "--" + f
			}
			break
		}
	}
	if given == "" {
		return nil
	}
	line := []string{env.Self(), cmd.Name}
	for _, a := range cmd.Args().Slice() {
		line = append(line, shellQuote(a))
	}
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if name == "check" || !cmd.IsSet(name) {
			continue
		}
		flag := "--" + name
		if name == "output" {
			flag = "-o"
		}
		switch f.(type) {
		case *cli.BoolFlag:
			line = append(line, flag)
		case *cli.StringSliceFlag:
			for _, v := range cmd.StringSlice(name) {
				line = append(line, flag, shellQuote(v))
			}
		default:
			line = append(line, flag, shellQuote(fmt.Sprint(cmd.Value(name))))
		}
	}
	return app.UsageErrorf(strings.Join(line, " "), "--check writes nothing; it cannot take %s", given)
}

const destHelp = `Destinations (for every writing command):
   (default)     change the session in place, after backing it up
                 (undo with 'ccsurgeon restore SESSION')
   --new         write a new session, with fresh ids, in the project folder of
                 its working directory
   -o PATH       write the result to PATH ('-' for stdout), touch nothing else
                 (an existing file is replaced only with --force)
   --dry-run     change nothing; print a summary (--diff: a line diff)
   --no-backup   change in place without keeping a backup`

func rewriteCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:  "rewrite",
		Usage: "apply several operations in one pass: one validation, one backup, one write",
		UsageText: `ccsurgeon rewrite SESSION [--redact-secrets] [--strip-thinking] [--drop-tool-calls NAME]...
                  [--compress-old-turns N] [-o PATH | --new | --dry-run]

The operations run in this order: redact-secrets, strip-thinking,
drop-tool-calls, compress-old-turns. With no operation and -o PATH the
result is a byte-identical copy (the lossless property, exposed).

examples:
   ccsurgeon rewrite 3f2a9c1e --strip-thinking --compress-old-turns 3
   ccsurgeon rewrite 3f2a9c1e --redact-secrets --strip-thinking -o share.jsonl
   ccsurgeon rewrite 3f2a9c1e -o copy.jsonl   # no operation: byte-identical

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "redact-secrets", Usage: "replace secrets with placeholders (see 'redact-secrets --help')"},
			&cli.BoolFlag{Name: "strip-thinking", Usage: "remove thinking blocks"},
			&cli.StringSliceFlag{Name: "drop-tool-calls", Usage: "remove the calls of tool `NAME` with their results (repeatable)"},
			&cli.IntFlag{Name: "compress-old-turns", Usage: "compress every turn but the last `N`"},
			&cli.StringFlag{Name: "max-result", Usage: "with --compress-old-turns: cut tool output longer than `SIZE` (default 2KB)"},
			&cli.IntFlag{Name: "keep-exchanges", Usage: "with --compress-old-turns or --target-tokens: also keep the last `N` tool exchanges as they are (default 10)"},
			&cli.IntFlag{Name: "target-tokens", Usage: "cut until info estimates the result at most `N` tokens (150k, 1.5M); with --compress-old-turns N the last N turns stay as they are"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if !cmd.IsSet("compress-old-turns") && !cmd.IsSet("target-tokens") {
				// they were ignored: the user meant to compress
				if cmd.IsSet("max-result") {
					return usageError{err: errors.New("--max-result needs --compress-old-turns N"), hint: "see 'ccsurgeon rewrite --help'"}
				}
				if cmd.IsSet("keep-exchanges") {
					return usageError{err: errors.New("--keep-exchanges needs --compress-old-turns N or --target-tokens N"), hint: "see 'ccsurgeon rewrite --help'"}
				}
			}
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				spec := app.OpSpec{
					Redact:        cmd.Bool("redact-secrets"),
					StripThinking: cmd.Bool("strip-thinking"),
					DropTools:     cmd.StringSlice("drop-tool-calls"),
					Drop:          len(cmd.StringSlice("drop-tool-calls")) > 0,
					Compress:      cmd.IsSet("compress-old-turns"),
					KeepTurns:     int(cmd.Int("compress-old-turns")),
					KeepExchanges: int(cmd.Int("keep-exchanges")),
					MaxResult:     cmd.String("max-result"),
					TargetTokens:  int(cmd.Int("target-tokens")),
					KeepTurnsFlag: "--compress-old-turns",
					KeepRecent:    cmd.IsSet("compress-old-turns") || cmd.IsSet("keep-exchanges"),
				}
				if spec.TargetTokens > 0 && !spec.Compress {
					spec.KeepTurns = ops.DefaultKeepTurns
				}
				return env.RunOps(s, spec, destFrom(cmd))
			})
		},
	})
}

func stripCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:  "strip-thinking",
		Usage: "remove thinking blocks (whole entries where a block is its own entry)",
		UsageText: `ccsurgeon strip-thinking SESSION [--before-turn N]

Thinking text is never edited: a block goes whole or stays. When the
session ends inside a tool-use loop, the thinking of that last turn stays,
because the API wants the final assistant turn to start with it.

examples:
   ccsurgeon strip-thinking 3f2a9c1e --dry-run
   ccsurgeon strip-thinking 3f2a9c1e --before-turn 10

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "before-turn", Usage: "only strip turns before turn `N`"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunOps(s, app.OpSpec{StripThinking: true, StripBeforeTurn: int(cmd.Int("before-turn"))}, destFrom(cmd))
			})
		},
	})
}

func dropCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:  "drop-tool-calls",
		Usage: "remove tool calls with their results, progress records and subagent transcripts",
		UsageText: `ccsurgeon drop-tool-calls SESSION [--tool NAME]... [--larger-than SIZE] [--turns RANGE] [--failed]

Each selected tool_use goes together with its tool_result, the result's
toolUseResult, its progress entries and, for an Agent/Task call, its
subagent transcript. Entries left empty disappear and the chain is re-linked.
Selectors combine: a call is dropped when it matches all that are given.
SIZE needs a unit (512B, 20KB, 1.5MB; KiB and MiB too): a bare number such
as 20 is refused. RANGE must lie within the turns of the session. When the
selectors select nothing, nothing is written (no backup, no new session)
and the command says so.

examples:
   ccsurgeon drop-tool-calls 3f2a9c1e --tool Read --larger-than 20KB
   ccsurgeon drop-tool-calls 3f2a9c1e --failed --turns 1-10

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "tool", Usage: "calls of tool `NAME` (repeatable: any of them)"},
			&cli.StringFlag{Name: "larger-than", Usage: "calls whose result is larger than `SIZE` (e.g. 20KB)"},
			&cli.StringFlag{Name: "turns", Usage: "calls made in turns `RANGE` (e.g. 1-10, 5-, 3)"},
			&cli.BoolFlag{Name: "failed", Usage: "calls whose result is an error (is_error)"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunOps(s, app.OpSpec{Drop: true, DropTools: cmd.StringSlice("tool"), DropLargerThan: cmd.String("larger-than"),
					DropTurns: cmd.String("turns"), DropFailed: cmd.Bool("failed")}, destFrom(cmd))
			})
		},
	})
}

func compressCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:    "compress-old-turns",
		Aliases: []string{"compress"},
		Usage:   "shrink every turn but the last N: cut long tool output, drop copies and bookkeeping",
		UsageText: `ccsurgeon compress-old-turns SESSION [--keep-turns N] [--keep-exchanges N] [--max-result SIZE] [--target-tokens N]

The recent context stays byte-identical: the last N turns, or, when they hold
more than the last --keep-exchanges tool exchanges (default 10), those
exchanges and the final answer. Before it: tool results and tool
inputs (Write content, Edit strings) longer than SIZE are cut to head and tail
around a marker saying how much was removed; the toolUseResult copies of file
contents go; images become a short text placeholder. Bookkeeping entries the
client does not send go from every turn (progress, queue-operation,
api-request*, atis-latch, cost-state, mode, tools-used, system/turn_duration).

--target-tokens N always drops the failed-retry error entries and the
bookkeeping (the client sends neither), even when the session already fits;
then it cuts until 'info' would estimate the written result at most N
tokens, least value first: repeated old attachments, old tool output (2KB),
old thinking, old images, old tool output (500, 100 bytes), old attachments,
recent tool output, then whole old turns, left as a note that names them
(a line each for the last ones). The last prompt and its answer
are never cut; --keep-turns or --keep-exchanges, when given, keep the recent
context as it is too. It refuses only when what may not be cut exceeds N,
naming the smallest N that fits. N may be written 150k, 1.5M or 150,000.
--dry-run prints the plan.

examples:
   ccsurgeon compress 3f2a9c1e --target-tokens 150000 --dry-run
   ccsurgeon compress 3f2a9c1e --keep-turns 5 --dry-run
   ccsurgeon compress 3f2a9c1e --max-result 1KB --new

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "keep-turns", Value: 3, Usage: "leave the last `N` turns as they are (default 3)"},
			&cli.IntFlag{Name: "keep-exchanges", Usage: "but within them, keep only the last `N` tool exchanges as they are (default 10)"},
			&cli.StringFlag{Name: "max-result", Usage: "cut tool output and inputs longer than `SIZE` (default 2KB)"},
			&cli.IntFlag{Name: "target-tokens", Usage: "cut until info estimates the result at most `N` tokens (150k, 1.5M)"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunOps(s, app.OpSpec{Compress: true, KeepTurns: int(cmd.Int("keep-turns")), KeepExchanges: int(cmd.Int("keep-exchanges")),
					MaxResult: cmd.String("max-result"), TargetTokens: int(cmd.Int("target-tokens")),
					KeepRecent: cmd.IsSet("keep-turns") || cmd.IsSet("keep-exchanges")}, destFrom(cmd))
			})
		},
	})
}

func redactCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:    "redact-secrets",
		Aliases: []string{"redact"},
		// --rule and --allow take regular expressions: a comma is part of
		// one ({3,40}), not a separator of two values
		DisableSliceFlagSeparator: true,
		Usage:                     "replace API keys, tokens, passwords and private keys with placeholders",
		UsageText: `ccsurgeon redact-secrets SESSION [--rule NAME=REGEX]... [--allow REGEX]... [--check]

Scans every decoded string value of every entry of the session and its
subagent transcripts, and the files of its tool-results/ folder (large tool
outputs, scanned as text). Each secret becomes a placeholder such as
[REDACTED:github-pat:3]: the same secret the same placeholder everywhere.
A thinking block holding a secret is removed whole (its signature forbids
editing it). The report says how many of each type and where, never the
secret. User rules are also read from <config-dir>/ccsurgeon/redact-rules.txt
(lines: 'rule NAME REGEX', 'allow REGEX', '# comment').

examples:
   ccsurgeon redact 3f2a9c1e -o redacted.jsonl    # a copy safe to share
   ccsurgeon redact 3f2a9c1e --check              # exit 1 if anything is found (or a file is not read)

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "rule", Usage: "an extra rule `NAME=REGEX` (the first group, or the match, is the secret)"},
			&cli.StringSliceFlag{Name: "allow", Usage: "never redact what matches `REGEX`"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 when a secret is found or a file could not be scanned"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := checkTakesNoWrite(env, cmd); err != nil {
				return err
			}
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				spec := app.OpSpec{Redact: true, RedactRules: cmd.StringSlice("rule"), RedactAllow: cmd.StringSlice("allow")}
				if cmd.Bool("check") {
					return env.RunRedactCheck(s, spec)
				}
				return env.RunOps(s, spec, destFrom(cmd))
			})
		},
	})
}

func backupCommands(env *app.Env) []*cli.Command {
	return []*cli.Command{
		many(&cli.Command{
			Name:      "backups",
			Usage:     "list the backups of a session (time, operation, size)",
			UsageText: "ccsurgeon backups SESSION [--purge]\n\nBackups live in <config-dir>/ccsurgeon/backups/<session-id>/, one per change.\n--purge deletes them all (after redact-secrets, the backups still hold the secrets).\n\nexamples:\n   ccsurgeon backups 3f2a9c1e\n   ccsurgeon backups --purge 3f2a9c1e",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "purge", Usage: "delete every backup of the session"}},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				return eachSession(env, cmd, func(env *app.Env, s string) error {
					return env.RunBackups(s, cmd.Bool("purge"))
				})
			},
		}),
		{
			Name:  "restore",
			Usage: "put a backup back (the newest unless BACKUP names one); the current state is backed up first",
			UsageText: `ccsurgeon restore SESSION [BACKUP]

BACKUP is a name (or unique prefix) from 'ccsurgeon backups SESSION'; a
prefix that matches several is a usage error (exit 2). The current state
is backed up first, so a restore can itself be undone.

examples:
   ccsurgeon restore 3f2a9c1e
   ccsurgeon restore 3f2a9c1e 20261121T101500`,
			Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "restore even when Claude Code seems to be using the session. " + writerGuardNote}},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
					hint := "name the session to put back (its id, an id prefix or its path); 'ccsurgeon ls' lists the sessions"
					if _, err := chain.Locate(env.ConfigDir, cmd.Args().First()); err == nil {
						hint = fmt.Sprintf("give one SESSION and at most one BACKUP; 'ccsurgeon backups %s' lists the backups of the first", shellQuote(cmd.Args().First()))
					}
					return usageError{err: fmt.Errorf("restore needs SESSION and optionally BACKUP"), hint: hint}
				}
				return env.RunRestore(cmd.Args().First(), cmd.Args().Get(1), cmd.Bool("force"))
			},
		},
		{
			Name:  "diff",
			Usage: "show a line diff of two sessions or files, or of a session against its newest backup (exit 1 when they differ)",
			UsageText: `ccsurgeon diff A [B] [--ignore-uuids] [--whole-lines]

With one SESSION, diffs its newest backup against it: what the last change
did. Both files are streamed, so memory stays small whatever their size.
Lines longer than 200 bytes are shortened around their first difference
(a note says how many); --whole-lines prints them whole.

examples:
   ccsurgeon diff 3f2a9c1e                             # what the last change did
   ccsurgeon diff 3f2a9c1e ./edited.jsonl
   ccsurgeon diff 3f2a9c1e 7be01d44 --ignore-uuids   # a clone diffs empty`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "ignore-uuids", Usage: "number UUIDs by first appearance in each file, so fresh ids do not count"},
				&cli.BoolFlag{Name: "whole-lines", Usage: "print long lines whole instead of around their first difference"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
					return usageError{err: fmt.Errorf("diff needs a SESSION (against its newest backup) or two sessions or files"), cmd: cmd}
				}
				return env.RunDiff(app.DiffOptions{A: cmd.Args().Get(0), B: cmd.Args().Get(1), IgnoreUUIDs: cmd.Bool("ignore-uuids"), WholeLines: cmd.Bool("whole-lines")})
			},
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
	return many(&cli.Command{
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
		Flags: append(branchFlags(), append(newDestFlags(), forceOutputFlag())...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunClone(s, app.BranchOptions{Leaf: cmd.String("leaf"), Branch: int(cmd.Int("branch"))}, destFrom(cmd))
			})
		},
	})
}

func forkCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:    "fork-at-turn",
		Aliases: []string{"fork"},
		Usage:   "start a new session from the conversation up to the end of turn N",
		UsageText: `ccsurgeon fork-at-turn SESSION N [--branch N | --leaf UUID]

N is a turn number as listed by 'ccsurgeon turns SESSION'. The new session
holds the first N turns as they happened, with fresh ids: turn N as it
stands, answered, interrupted or still running when the file ends. Turns
before a compaction are allowed.

example:
   ccsurgeon fork 3f2a9c1e 4`,
		Flags: append(branchFlags(), append(newDestFlags(), forceOutputFlag())...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			turns := "list the turns of this folder's newest session with 'ccsurgeon turns'"
			if cmd.Args().Len() > 0 {
				turns = fmt.Sprintf("list the turns with 'ccsurgeon turns %s'", shellQuote(cmd.Args().First()))
			}
			if cmd.Args().Len() != 2 {
				return usageError{err: fmt.Errorf("fork-at-turn needs SESSION and a turn number N (1 or more)"), hint: turns}
			}
			n, err := strconv.Atoi(cmd.Args().Get(1))
			if err != nil {
				return usageError{err: fmt.Errorf("turn number %q is not a number: want a whole number, 1 or more", cmd.Args().Get(1)), hint: turns}
			}
			s := cmd.Args().First()
			return namedSession(env, env.RunFork(s, n, app.BranchOptions{Leaf: cmd.String("leaf"), Branch: int(cmd.Int("branch"))}, destFrom(cmd)), s)
		},
	}
}

func moveCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "move",
		Usage: "move a session, or every session of a project, to the project folder of another path",
		UsageText: `ccsurgeon move SESSION --to DIR [--rewrite-paths] [--dry-run] [--force]
ccsurgeon move --project OLD --to NEW [--rewrite-paths] [--dry-run] [--force]

Claude Code keeps a session in the folder of the path it ran in
(<config-dir>/projects/<slug of the path>/). After renaming or moving a
project, move puts its sessions where the client looks for them: the
transcript, subagent transcripts, tool-results/, the sessions-index.json
entry and the history.jsonl prompts, with the cwd of every entry rewritten
to the same place under the new path. Ids do not change; file-history stays.
--project moves every session of OLD and of its subfolders, and the
project's own files (memory/). Message content is left as it is unless
--rewrite-paths. The move is one transaction: backed up (undo with
'ccsurgeon restore SESSION'), atomic per file, and a move cut short by a
crash is finished or rolled back by the next 'ccsurgeon move'.

examples:
   ccsurgeon move --project ~/src/oldname --to ~/src/newname
   ccsurgeon move 3f2a9c1e --to ~/src/newname --dry-run`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "the new project path `DIR`"},
			&cli.StringFlag{Name: "project", Usage: "move every session of the project at `OLD`"},
			&cli.BoolFlag{Name: "rewrite-paths", Usage: "also rewrite the old path in tool inputs and results (the model sees the new paths)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; print what would move"},
			&cli.BoolFlag{Name: "force", Usage: "move even when Claude Code seems to be using a session"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o := app.MoveOptions{To: cmd.String("to"), Project: cmd.String("project"), RewritePaths: cmd.Bool("rewrite-paths"),
				DryRun: cmd.Bool("dry-run"), Force: cmd.Bool("force")}
			switch {
			case o.Project != "" && cmd.Args().Len() > 0:
				return usageError{err: fmt.Errorf("move takes a SESSION or --project OLD, not both"), cmd: cmd}
			case o.Project == "":
				s, err := oneSession(cmd)
				if err != nil {
					return err
				}
				o.Session = s
			}
			return env.RunMove(o)
		},
	}
}

func oneSession(cmd *cli.Command) (string, error) {
	switch cmd.Args().Len() {
	case 1:
		return cmd.Args().First(), nil
	case 0:
		return "", usageError{err: fmt.Errorf("%s needs a SESSION (an id, an id prefix or a .jsonl path)", cmd.Name)}
	}
	return "", usageError{err: fmt.Errorf("%s takes one SESSION, got %d arguments: %s", cmd.Name, cmd.Args().Len(), strings.Join(cmd.Args().Slice(), " "))}
}

func noArgs(cmd *cli.Command) error {
	if cmd.Args().Len() > 0 {
		return usageError{err: fmt.Errorf("%s takes no arguments, got %q", cmd.Name, cmd.Args().First())}
	}
	return nil
}

// helpCommand stands in for urfave's own, which takes no flag: 'help
// --help' printed "Incorrect Usage" and its usage, then failed. This one
// has --help and ccsurgeon's usage errors like every other command.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     cli.UsageCommandHelp,
		UsageText: "ccsurgeon help [COMMAND]\n\nexamples:\n   ccsurgeon help            # the commands\n   ccsurgeon help compress   # the same as 'ccsurgeon compress --help'",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			switch cmd.Args().Len() {
			case 0:
				return cli.ShowRootCommandHelp(cmd.Root())
			case 1:
				return cli.ShowCommandHelp(ctx, cmd.Root(), cmd.Args().First())
			}
			return usageError{err: fmt.Errorf("help takes one COMMAND, got %d arguments: %s", cmd.Args().Len(), strings.Join(cmd.Args().Slice(), " ")), cmd: cmd}
		},
	}
}
