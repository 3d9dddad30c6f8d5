package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// infoCommand is 'ccsurgeon info'.
func infoCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:      "info",
		Usage:     "show the tokens a resume sends and what cuts them, then what a session holds: sizes by entry type and tool, thinking, images, turns, branches",
		UsageText: "ccsurgeon info SESSION\n\nexample:\n   ccsurgeon info 3f2a9c1e\n   ccsurgeon --json info ./session.jsonl",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunInfo(app.InfoOptions{Session: s})
			})
		},
	})
}
