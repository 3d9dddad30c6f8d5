package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

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
