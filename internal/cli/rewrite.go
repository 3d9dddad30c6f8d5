package cli

import (
	"context"
	"errors"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/urfave/cli/v3"
)

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
