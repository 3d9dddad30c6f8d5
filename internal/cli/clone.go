package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

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
