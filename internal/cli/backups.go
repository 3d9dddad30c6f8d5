package cli

import (
	"context"
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

func backupCommands(env *app.Env) []*cli.Command {
	return []*cli.Command{
		many(&cli.Command{
			Name:      "backups",
			Usage:     "list the backups of a session (time, operation, size)",
			UsageText: "ccsurgeon backups SESSION [--purge]\n\nBackups live in <config-dir>/ccsurgeon/backups/<session-id>/, one per change.\n--purge deletes them all (after redact-secrets, the backups still hold the secrets).\n\nexamples:\n   ccsurgeon backups 3f2a9c1e\n   ccsurgeon backups --purge 3f2a9c1e",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "purge", Usage: "delete every backup of the session"}},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				return eachSession(env, cmd, func(env *app.Env, s string) error {
					return env.RunBackups(s, cmd.Bool("purge"))
				})
			},
		}),
		{
			Name:  "restore",
			Usage: "put a backup back (the newest unless BACKUP names one); the current state is backed up first",
			UsageText: `ccsurgeon restore SESSION [BACKUP]

BACKUP is a name (or unique prefix) from 'ccsurgeon backups SESSION'; a
prefix that matches several is a usage error (exit 2). The current state
is backed up first, so a restore can itself be undone.

The backup a move took undoes the whole move: the files go back to their
old folder as they were before it. A session written since the move is
refused (moving it back with 'ccsurgeon move' keeps what was written);
--undo-anyway undoes the move anyway, what was written since kept in a
backup.

examples:
   ccsurgeon restore 3f2a9c1e
   ccsurgeon restore 3f2a9c1e 20261121T101500`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "force", Usage: "restore even when Claude Code seems to be using the session. " + writerGuardNote},
				&cli.BoolFlag{Name: "undo-anyway", Usage: "undo a move even when the session was written since (what was written since is kept in a backup)"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
					hint := "name the session to put back (its id, an id prefix or its path); 'ccsurgeon ls' lists the sessions"
					if _, err := chain.Locate(env.ConfigDir, cmd.Args().First()); err == nil {
						hint = fmt.Sprintf("give one SESSION and at most one BACKUP; 'ccsurgeon backups %s' lists the backups of the first", app.ShellQuote(cmd.Args().First()))
					}
					return usageError{err: fmt.Errorf("restore needs SESSION and optionally BACKUP"), hint: hint}
				}
				return foundByListing(env, cmd.Args().First()).RunRestoreWith(cmd.Args().First(), cmd.Args().Get(1),
					app.RestoreFlags{Force: cmd.Bool("force"), UndoAnyway: cmd.Bool("undo-anyway")})
			},
		},
		{
			Name:  "diff",
			Usage: "show a line diff of two sessions or files, or of a session against its newest backup (exit 1 when they differ)",
			UsageText: `ccsurgeon diff A [B] [--ignore-uuids] [--whole-lines]

With one SESSION, diffs its newest backup against it: what the last change
did. Both files are streamed, so memory stays small whatever their size.
Lines longer than 200 bytes are shortened around their first difference
(a note says how many); --whole-lines prints them whole.

examples:
   ccsurgeon diff 3f2a9c1e                             # what the last change did
   ccsurgeon diff 3f2a9c1e ./edited.jsonl
   ccsurgeon diff 3f2a9c1e 7be01d44 --ignore-uuids   # a clone diffs empty`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "ignore-uuids", Usage: "number UUIDs by first appearance in each file, so fresh ids do not count"},
				&cli.BoolFlag{Name: "whole-lines", Usage: "print long lines whole instead of around their first difference"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() < 1 || cmd.Args().Len() > 2 {
					return usageError{err: fmt.Errorf("diff needs a SESSION (against its newest backup) or two sessions or files"), cmd: cmd}
				}
				return env.RunDiff(app.DiffOptions{A: cmd.Args().Get(0), B: cmd.Args().Get(1), IgnoreUUIDs: cmd.Bool("ignore-uuids"), WholeLines: cmd.Bool("whole-lines")})
			},
		},
	}
}
