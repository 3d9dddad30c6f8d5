package cli

import (
	"context"
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

func moveCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "move",
		Usage: "move a session, or every session of a project, to the project folder of another path",
		UsageText: `ccsurgeon move SESSION --to DIR [--rewrite-paths] [--dry-run] [--force]
ccsurgeon move --project OLD --to NEW [--rewrite-paths] [--dry-run] [--force]

Claude Code keeps a session in the folder of the path it ran in
(<config-dir>/projects/<slug of the path>/). After renaming or moving a
project, move puts its sessions where the client looks for them: the
transcript, subagent transcripts, tool-results/, the sessions-index.json
entry and the history.jsonl prompts, with the cwd of every entry rewritten
to the same place under the new path. Ids do not change; file-history stays.
--project moves every session of OLD and of its subfolders, and the
project's own files (memory/). Message content is left as it is unless
--rewrite-paths. The move is one transaction: backed up (undo with
'ccsurgeon restore SESSION'), atomic per file, and a move cut short by a
crash is finished or rolled back by the next 'ccsurgeon move'.

examples:
   ccsurgeon move --project ~/src/oldname --to ~/src/newname
   ccsurgeon move 3f2a9c1e --to ~/src/newname --dry-run`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "the new project path `DIR`"},
			&cli.StringFlag{Name: "project", Usage: "move every session of the project at `OLD`"},
			&cli.BoolFlag{Name: "rewrite-paths", Usage: "also rewrite the old path in tool inputs and results (the model sees the new paths)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; print what would move"},
			&cli.BoolFlag{Name: "force", Usage: "move even when Claude Code seems to be using a session"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o := app.MoveOptions{To: cmd.String("to"), Project: cmd.String("project"), RewritePaths: cmd.Bool("rewrite-paths"),
				DryRun: cmd.Bool("dry-run"), Force: cmd.Bool("force")}
			switch {
			case o.Project != "" && cmd.Args().Len() > 0:
				return usageError{err: fmt.Errorf("move takes a SESSION or --project OLD, not both"), cmd: cmd}
			case o.Project == "":
				s, err := oneSession(cmd)
				if err != nil {
					return err
				}
				o.Session = s
			}
			return env.RunMove(o)
		},
	}
}
