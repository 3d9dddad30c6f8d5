package cli

import (
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// writerGuardNote says what --force does not override, and where: only
// Linux shows which process holds a file open for writing (backup/writers_*.go).
const writerGuardNote = "Not overridden: on Linux, a session file another process holds open for writing is refused; " +
	"macOS and Windows do not show that, so there only the 5-second guard (a file modified in the last 5 s, " +
	"or since ccsurgeon read it) protects a client still writing"

// destFlags are the destination flags every writing command takes.
func destFlags() []cli.Flag {
	return append(newDestFlags(),
		&cli.BoolFlag{Name: "force", Usage: "write in place even when Claude Code seems to be using the session; with -o, replace an existing file (never a session). " + writerGuardNote},
		&cli.IntFlag{Name: "keep", Usage: "keep the `N` last made backups of the session, besides the original (default 20)"},
		&cli.BoolFlag{Name: "no-backup", Usage: "change in place without keeping a backup (after redact-secrets: no copy of the secrets is left)"},
	)
}

// newDestFlags are the destination flags of a command that writes a new
// session (clone, fork-at-turn): none of a change in place, which they
// refuse (--keep, --no-backup); --force only replaces a file -o names.
func newDestFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the result to `PATH` ('-' for stdout; PATH/ ending in a slash: a folder with the session and its subagent and tool-results files) and touch nothing else"},
		&cli.BoolFlag{Name: "new", Usage: "write the result as a new session (fresh ids) in the project folder of its working directory"},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "change nothing; print what would change"},
		&cli.BoolFlag{Name: "diff", Usage: "print a unified line diff of what would change (a preview: implies --dry-run)"},
	}
}

// forceOutputFlag is --force of a command that writes a new session.
func forceOutputFlag() cli.Flag {
	return &cli.BoolFlag{Name: "force", Usage: "with -o, replace an existing file (never a session)"}
}

func destFrom(cmd *cli.Command) app.Dest {
	return app.Dest{Output: cmd.String("output"), New: cmd.Bool("new"), DryRun: cmd.Bool("dry-run"), Diff: cmd.Bool("diff"), Force: cmd.Bool("force"), Keep: int(cmd.Int("keep")), NoBackup: cmd.Bool("no-backup")}
}

const destHelp = `Destinations (for every writing command):
   (default)     change the session in place, after backing it up
                 (undo with 'ccsurgeon restore SESSION')
   --new         write a new session, with fresh ids, in the project folder of
                 its working directory
   -o PATH       write the result to PATH ('-' for stdout), touch nothing else
                 (an existing file is replaced only with --force)
   --dry-run     change nothing; print a summary (--diff: a line diff)
   --no-backup   change in place without keeping a backup`

func branchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "leaf", Usage: "work on the branch ending at entry `UUID`"},
		&cli.IntFlag{Name: "branch", Usage: "work on branch `N` as numbered by 'turns --all'"},
	}
}
