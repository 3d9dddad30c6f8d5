package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
)

func redactCommand(env *app.Env) *cli.Command {
	return many(&cli.Command{
		Name:    "redact-secrets",
		Aliases: []string{"redact"},
		// --rule and --allow take regular expressions: a comma is part of
		// one ({3,40}), not a separator of two values
		DisableSliceFlagSeparator: true,
		Usage:                     "replace API keys, tokens, passwords and private keys with placeholders",
		UsageText: `ccsurgeon redact-secrets SESSION [--rule NAME=REGEX]... [--allow REGEX]... [--check]

Scans every decoded string value of every entry of the session and its
subagent transcripts, and the files of its tool-results/ folder (large tool
outputs, scanned as text). Each secret becomes a placeholder such as
[REDACTED:github-pat:3]: the same secret the same placeholder everywhere.
A thinking block holding a secret is removed whole (its signature forbids
editing it). The report says how many of each type and where, never the
secret. User rules are also read from <config-dir>/ccsurgeon/redact-rules.txt
(lines: 'rule NAME REGEX', 'allow REGEX', '# comment').

examples:
   ccsurgeon redact 3f2a9c1e -o redacted.jsonl    # a copy safe to share
   ccsurgeon redact 3f2a9c1e --check              # exit 1 if anything is found (or a file is not read)

` + destHelp,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "rule", Usage: "an extra rule `NAME=REGEX` (the first group, or the match, is the secret)"},
			&cli.StringSliceFlag{Name: "allow", Usage: "never redact what matches `REGEX`"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 when a secret is found or a file could not be scanned"},
		}, destFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if err := checkTakesNoWrite(env, cmd); err != nil {
				return err
			}
			return eachSession(env, cmd, func(env *app.Env, s string) error {
				spec := app.OpSpec{Redact: true, RedactRules: cmd.StringSlice("rule"), RedactAllow: cmd.StringSlice("allow")}
				if cmd.Bool("check") {
					return env.RunRedactCheck(s, spec)
				}
				return env.RunOps(s, spec, destFrom(cmd))
			})
		},
	})
}

// checkTakesNoWrite refuses a write flag with --check (redact-secrets):
// --check is a scan that writes nothing, not a preview of a write as
// --dry-run and --diff are (they preview the command as given, with its
// flags), so -o, --new, --no-backup, --keep and --force would be ignored
// in silence. The hint is the command as typed without --check (whole,
// so that a quoted argument in it stays runnable).
func checkTakesNoWrite(env *app.Env, cmd *cli.Command) error {
	if !cmd.Bool("check") {
		return nil
	}
	given := ""
	for _, f := range []string{"output", "new", "no-backup", "keep", "force"} {
		if cmd.IsSet(f) {
			given = map[string]string{"output": "-o"}[f]
			if given == "" {
				given = "--" + f
			}
			break
		}
	}
	if given == "" {
		return nil
	}
	line := []string{env.Self(), cmd.Name}
	for _, a := range cmd.Args().Slice() {
		line = append(line, app.ShellQuote(a))
	}
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if name == "check" || !cmd.IsSet(name) {
			continue
		}
		flag := "--" + name
		if name == "output" {
			flag = "-o"
		}
		switch f.(type) {
		case *cli.BoolFlag:
			line = append(line, flag)
		case *cli.StringSliceFlag:
			for _, v := range cmd.StringSlice(name) {
				line = append(line, flag, app.ShellQuote(v))
			}
		default:
			line = append(line, flag, app.ShellQuote(fmt.Sprint(cmd.Value(name))))
		}
	}
	return app.UsageErrorf(strings.Join(line, " "), "--check writes nothing; it cannot take %s", given)
}
