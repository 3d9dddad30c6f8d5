package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

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
old thinking (not for a model that keeps only the last turn's thinking:
the API does not count it, so cutting it saves nothing), old images, old
tool output (500, 100 bytes), old attachments,
recent tool output, then whole old turns, left as a note that names them
(a line each for the last ones). The last prompt and its answer
are never cut; --keep-turns or --keep-exchanges, when given, keep the recent
context as it is too. It refuses only when what may not be cut exceeds N,
naming the smallest N that fits. N may be written 150k, 1.5M, 150,000 or 1.5e5.
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
