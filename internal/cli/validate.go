package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// validateCommand is 'ccsurgeon validate'.
func validateCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:      "validate",
		Usage:     "check that sessions would resume and be accepted by the API (exit 1 if not)",
		UsageText: "ccsurgeon validate SESSION|FILE...\n\nexample:\n   ccsurgeon validate 3f2a9c1e ./other.jsonl",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			sessions, err := sessionsOf(env, cmd)
			if err != nil {
				return err
			}
			err = env.RunValidate(app.ValidateOptions{Sessions: sessions})
			if len(sessions) == 1 {
				// one session: its error is the command's, hint and all
				return namedSession(env, cmd, err, sessions[0])
			}
			return err
		},
	})
}
