package cli

import (
	"context"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

// repairCommand is `ccsurgeon repair SESSION`.
func repairCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:  "repair",
		Usage: "fix what can be fixed safely: torn last line, dangling parents, parent cycles, duplicate entries, unpaired tool calls",
		UsageText: `ccsurgeon repair SESSION [-o PATH | --new | --dry-run]

Fixes, through the same validation gate and backup as every write:
   - a torn final line (a write cut short) and lines that are not JSON
     are dropped (the client skips them); a whole entry written on the
     line of a write cut short is kept, the cut-off bytes before it go
   - copies of an entry (same uuid) are dropped but the last, the one the
     client reads
   - an entry whose parentUuid resolves nowhere is re-linked to the entry
     before it, so that older clients keep the history above it; an
     answer whose prompt is lost becomes part of the answer before it
     (one message, not two answers in a row, which the API refuses)
   - a parent cycle is broken at its first entry in the file
   - on the branch the client resumes, a tool_use without its tool_result
     and a tool_result without its tool_use are removed, and empty
     messages and empty text blocks
   - what Claude Code 2.0.x does not send of a sound session (validate's
     warnings progress-parent and side-branch-calls): an entry below a
     progress entry is re-linked to the entry above the progress entries
     (they stay), the results of parallel calls are lined up below the
     calls; the newest client sends the same conversation as before
A fix that would bring in a new problem is not made (a re-link that
brings history with a problem of its own onto the branch is left alone,
the others are made). --dry-run lists
the fixes ('line N: what'); what repair leaves is listed as 'not fixed:'
with the reason; a session with nothing to fix is left
alone. Exit 1 when errors stay that repair has no safe fix for (fixed
and written or not), with 'ccsurgeon: N problems left that repair has
no safe fix for' and a hint on stderr.

examples:
   ccsurgeon repair 3f2a9c1e --dry-run
   ccsurgeon repair 3f2a9c1e
   ccsurgeon --json repair ./broken.jsonl -o fixed.jsonl

` + destHelp,
		Flags: destFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				return env.RunRepair(s, destFrom(cmd))
			})
		},
	})
}
