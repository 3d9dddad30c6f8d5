package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

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
				turns = fmt.Sprintf("list the turns with 'ccsurgeon turns %s'", app.ShellQuote(cmd.Args().First()))
			}
			if cmd.Args().Len() != 2 {
				return usageError{err: fmt.Errorf("fork-at-turn needs SESSION and a turn number N (1 or more)"), hint: turns}
			}
			n, err := strconv.Atoi(cmd.Args().Get(1))
			if err != nil {
				return usageError{err: fmt.Errorf("turn number %q is not a number: want a whole number, 1 or more", cmd.Args().Get(1)), hint: turns}
			}
			s := cmd.Args().First()
			return namedSession(env, cmd, env.RunFork(s, n, app.BranchOptions{Leaf: cmd.String("leaf"), Branch: int(cmd.Int("branch"))}, destFrom(cmd)), s)
		},
	}
}
