package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"
)

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
