package cli

import (
	"context"
	"errors"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// doctorCommand is `ccsurgeon doctor`.
func doctorCommand(env *app.Env) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "find sessions the client cannot find, would lose, or is about to delete (exit 1 if any)",
		UsageText: `ccsurgeon doctor [SESSION... | --project PATH | --all] [--fix]

One pass over the config dir (every session by default), one line per
finding: the session, what is wrong, what it costs you, and the command
that fixes it.
   stranded          filed under a folder the client does not look in for
                     the session's working directory (an old naming rule,
                     a folder renamed by hand); fix: move
   project_gone      its working directory no longer exists (a renamed or
                     moved project); names the folders it may have become
   unclear_cwd       its recorded working directory is relative or holds
                     "." or "..": not resolved, not moved; yours to place
   broken            what validate finds that loses history or makes the
                     API refuse a resume; fix: repair (what repair cannot
                     mend is said)
   due_for_deletion  older than cleanupPeriodDays (managed settings, else
                     <config-dir>/settings.json, else 30), or within 7 days
                     of it: a start of the client deletes the file
   too_big           a resume sends more than the model's context window;
                     fix: compress --target-tokens N --new, which writes
                     the fitted session as a new one (the original stays)
                     and prints the 'claude --resume' of it (not applied
                     by --fix: it cuts content)
   empty_newest      an empty <id>.jsonl (2.0.50's -p --resume leaves one) is
                     the newest file of a project: 'claude --continue'
                     there starts from nothing; names the session to resume
   not_a_file        a symlink, FIFO or folder named like a session: no
                     client lists it
   index_*           sessions-index.json (2.1.12-2.1.29) names a missing
                     file or misses a session: the client reads the files
                     anyway, nothing to do
The sessions of one gone project, of one index, or past (or near) the
cleanup period share one line.
--fix applies the fixes that lose nothing (repair, then move; each with a
backup, as those commands make) and lists what it leaves for you.
Exit 1 when anything needs attention (after --fix: anything left).

examples:
   ccsurgeon doctor
   ccsurgeon doctor --project ~/src/app --fix
   ccsurgeon --json doctor 3f2a9c1e`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every session under the config dir (the default)"},
			&cli.StringFlag{Name: "project", Usage: "the sessions of project `PATH` (as 'ls' shows it, or its folder under projects/, by name or path)"},
			&cli.BoolFlag{Name: "fix", Usage: "apply every fix that loses nothing, each with a backup"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o := app.DoctorOptions{Sessions: cmd.Args().Slice(), Project: cmd.String("project"), Fix: cmd.Bool("fix"),
				ManagedSettingsDir: doctor.ManagedSettingsDir(chain.HostOS)}
			given := 0
			for _, b := range []bool{len(o.Sessions) > 0, cmd.Bool("all"), o.Project != ""} {
				if b {
					given++
				}
			}
			if given > 1 {
				return usageError{err: errors.New("give SESSIONs, --all or --project, not more than one of them"), cmd: cmd}
			}
			return env.RunDoctor(o)
		},
	}
}
