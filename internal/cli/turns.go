package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// turnsCommand is 'ccsurgeon turns'.
func turnsCommand(env *app.Env) *cli.Command {
	return &cli.Command{
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
	}
}
