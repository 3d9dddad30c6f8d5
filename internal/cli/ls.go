package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// lsCommand is 'ccsurgeon ls'.
func lsCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list sessions, newest first",
		UsageText: `ccsurgeon ls [--project PATH] [--turns] [--sort date|size] [--since DURATION|DATE] [--min-size SIZE]

ls reads the first and last 64 KB of each session (its project, first prompt,
title and last prompt), so a 1 GB session lists as fast as a small one;
--turns also counts the turns of each session, which reads whole files.
A session ccsurgeon made is marked with where it came from: "(clone of
3f2a9c1e)", "(fork of 3f2a9c1e)" ("origin" in --json). A --project that
matches nothing, or a config dir that does not exist or has no projects/
folder, is an error (exit 1).

examples:
   ccsurgeon ls --project ~/src/myapp
   ccsurgeon ls --sort size --min-size 10MB --since 1w
   ccsurgeon --json ls --turns`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project", Usage: "only sessions of project `PATH`: the path the PROJECT column shows, or a folder under projects/ (its name or path)"},
			&cli.BoolFlag{Name: "turns", Usage: "count the turns of each session (reads whole files)"},
			&cli.StringFlag{Name: "sort", Usage: "order by `WHICH`: date (newest first, the default) or size (biggest first)"},
			&cli.StringFlag{Name: "since", Usage: "only sessions modified in the last `DURATION` (30m, 2h, 3d, 1w) or since a date (2026-11-01)"},
			&cli.StringFlag{Name: "min-size", Usage: "only sessions of at least `SIZE` (e.g. 10MB)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := noArgs(cmd); err != nil {
				return err
			}
			return env.RunLs(app.LsOptions{Project: cmd.String("project"), Turns: cmd.Bool("turns"), Sort: cmd.String("sort"), Since: cmd.String("since"), MinSize: cmd.String("min-size")})
		},
	}
}
