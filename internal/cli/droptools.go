package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

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
