package cli

// Many sessions at once: a command that takes SESSION takes several, or
// --all, or --project PATH, or none (the newest session of the current
// folder's project, as 'claude --continue' picks it). Each session runs as
// the command would run alone, with its own guard, backup and exit code;
// two at a time (one per core), reported in the order given, then a total.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/urfave/cli/v3"
	"golang.org/x/sync/errgroup"
)

// manyKey marks, in a command's Metadata, that it takes --all, --project
// and --pick; pickKey that it takes --pick only (turns, whose --all means
// every branch).
const (
	manyKey = "many-sessions"
	pickKey = "pick-session"
)

// many gives a command that takes SESSION the flags that name many.
func many(c *cli.Command) *cli.Command {
	c.Flags = append(c.Flags,
		&cli.BoolFlag{Name: "all", Usage: "every session under the config dir"},
		&cli.StringFlag{Name: "project", Usage: "every session of project `PATH` (as 'ls' shows it, or its folder under projects/, by name or path)"},
		pickFlag(),
	)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata[manyKey] = true
	// a command that only reads (no -o: info, validate, turns) is told
	// without the words of a change
	if hasFlag(c, "output") || c.Name == "backups" {
		c.UsageText += `

Many sessions: give several, or --all, or --project PATH; each is done as
if alone (a change: its own guard and backup), two at a time, reported in
order under '==> SESSION <==', then the total; exit 1 if any failed. With
no SESSION: the newest session of this folder's project (as 'claude
--continue' picks it; a change in place asks first, y/N, and refuses off
a terminal); --pick lists them (id, age, size, tokens, title)
to choose one with the arrow keys.`
	} else {
		c.UsageText += `

Many sessions: give several, or --all, or --project PATH; each is read as
if alone, two at a time, reported in order under '==> SESSION <==', then
the total; exit 1 if any failed. With no SESSION: the newest session of
this folder's project (as 'claude --continue' picks it); --pick lists them
(id, age, size, tokens, title) to choose one with the arrow keys.`
	}
	return c
}

// sessionsOf lists the sessions a command names.
func sessionsOf(env *app.Env, cmd *cli.Command) ([]string, error) {
	args := cmd.Args().Slice()
	all, project, pick := false, "", false
	if cmd.Metadata[manyKey] == true {
		all, project, pick = cmd.Bool("all"), cmd.String("project"), cmd.Bool("pick")
	} else if cmd.Metadata[pickKey] == true {
		pick = cmd.Bool("pick")
	}
	given := 0
	for _, b := range []bool{len(args) > 0, all, project != "", pick} {
		if b {
			given++
		}
	}
	if given > 1 {
		return nil, usageError{err: fmt.Errorf("give SESSIONs, --all, --project or --pick, not more than one of them"), cmd: cmd}
	}
	switch {
	case pick:
		s, err := env.PickSession()
		if err != nil {
			return nil, err
		}
		return []string{s}, nil
	case all:
		return env.AllSessions()
	case project != "":
		return env.ProjectSessions(project)
	case len(args) > 1 && cmd.String("output") == "": // -o refuses several as given
		return distinctSessions(env, args), nil
	case len(args) > 0:
		return args, nil
	}
	s, err := env.ContinueSession()
	var empty *app.ContinueEmptyError
	if errors.As(err, &empty) {
		// say so, and name the session the user likely meant
		return nil, &app.Error{Msg: err.Error(), Hint: commandNaming(env, cmd, strings.TrimSuffix(filepath.Base(empty.Session), ".jsonl"), empty.Session), Code: 1}
	}
	if err != nil {
		return nil, err
	}
	if changesInPlace(cmd) {
		// the newest session may not be the one meant: name it, ask
		if err := confirmNewest(env, cmd, s); err != nil {
			return nil, err
		}
		return []string{s}, nil
	}
	if !env.Quiet {
		fmt.Fprintf(env.Err, "ccsurgeon: using %s, the newest session of this folder's project\n", strings.TrimSuffix(s[strings.LastIndexByte(s, '/')+1:], ".jsonl"))
	}
	return []string{s}, nil
}

// foundByListing is env for the session arg names: an id or a prefix is
// found by listing the config dir, as --all finds one, so its file is
// written only inside the config dir; a path names the file itself.
func foundByListing(env *app.Env, arg string) *app.Env {
	if env.Listed || chain.NamesAFile(arg) {
		return env
	}
	listed := *env
	listed.Listed = true
	return &listed
}

// eachSession runs fn on every session the command names: alone, as
// before, when it names one; else each into its own buffers, printed in
// order as soon as it and those before it are done.
func eachSession(env *app.Env, cmd *cli.Command, fn func(env *app.Env, session string) error) error {
	do := fn
	fn = func(env *app.Env, s string) error { return namedSession(env, cmd, do(foundByListing(env, s), s), s) }
	sessions, err := sessionsOf(env, cmd)
	if err != nil {
		return err
	}
	if len(sessions) > 1 && cmd.String("output") != "" {
		return usageError{err: fmt.Errorf("-o names one file, but %d sessions are given", len(sessions)), hint: "use --new, --dry-run or in place for several sessions"}
	}
	if cmd.Args().Len() == 0 {
		// listed, not named: written only inside the config dir
		listed := *env
		listed.Listed = true
		env = &listed
	}
	if len(sessions) == 1 && cmd.Args().Len() <= 1 && !(cmd.Metadata[manyKey] == true && (cmd.Bool("all") || cmd.String("project") != "")) {
		return fn(env, sessions[0])
	}
	type result struct {
		out, errb bytes.Buffer
		err       error
		done      chan struct{}
	}
	res := make([]*result, len(sessions))
	for i := range res {
		res[i] = &result{done: make(chan struct{})}
	}
	// every core works on a session; the results are printed in order as
	// each one is done
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	go func() {
		for i := range sessions {
			g.Go(func() error {
				r := res[i]
				sub := *env
				sub.Out, sub.Err, sub.Quiet = &r.out, &r.errb, true
				r.err = runRecovered(func() error { return fn(&sub, sessions[i]) })
				close(r.done)
				return nil // each session's error is its result's
			})
		}
	}()
	type entry struct {
		Session  string          `json:"session"`
		ExitCode int             `json:"exit_code"`
		Error    string          `json:"error,omitempty"`
		Result   json.RawMessage `json:"result,omitempty"`
	}
	var entries []entry
	ok, failed, worst := 0, 0, 0
	for i, r := range res {
		<-r.done
		var errText bytes.Buffer
		code := reportErrorAs(&errText, r.err, env.Self())
		if code == 0 {
			ok++
		} else {
			failed++
			worst = max(worst, code)
		}
		if env.JSON {
			e := entry{Session: sessions[i], ExitCode: code, Error: strings.TrimSpace(errText.String())}
			if b := bytes.TrimSpace(r.out.Bytes()); json.Valid(b) && len(b) > 0 {
				e.Result = b
			}
			entries = append(entries, e)
			io.Copy(env.Err, &r.errb)
			continue
		}
		fmt.Fprintf(env.Out, "==> %s <==\n", label(sessions[i]))
		io.Copy(env.Out, &r.out)
		io.Copy(env.Err, &r.errb)
		io.Copy(env.Err, prefixLines(&errText, label(sessions[i])))
	}
	if env.JSON {
		if err := app.PrintJSON(env.Out, struct {
			Sessions []entry `json:"sessions"`
			OK       int     `json:"ok"`
			Failed   int     `json:"failed"`
		}{entries, ok, failed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Err, "%s: %d %s", app.Plural(len(sessions), "session", "sessions"), ok, okWord(cmd))
		if failed > 0 {
			fmt.Fprintf(env.Err, ", %d %s", failed, failWord(cmd))
		}
		fmt.Fprintln(env.Err)
	}
	if failed > 0 {
		return &app.Error{Code: worst}
	}
	return nil
}

// okWord and failWord name the outcome of one session in the total.
func okWord(cmd *cli.Command) string {
	if cmd.Name == "validate" {
		return "valid"
	}
	return "ok"
}

func failWord(cmd *cli.Command) string {
	switch {
	case cmd.Name == "validate":
		return "invalid"
	case cmd.Name == "redact-secrets" && cmd.Bool("check"):
		return "with secrets"
	}
	return "failed"
}

// runRecovered runs fn, turning a panic into an internal error for that
// session alone.
func runRecovered(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError{r}
		}
	}()
	return fn()
}

type internalError struct{ v any }

func (e internalError) Error() string    { return fmt.Sprintf("internal error: %v", e.v) }
func (e internalError) ExitCode() int    { return 3 }
func (e internalError) HintText() string { return "please report this with the command you ran" }

// label is how a SESSION argument is named in the output of several: as
// given, but quoted when it is blank or holds a control character (a
// newline would split the line it names).
func label(arg string) string {
	if strings.TrimSpace(arg) == "" || strings.ContainsFunc(arg, unicode.IsControl) {
		return strconv.Quote(arg)
	}
	return arg
}

// prefixLines puts the session's name after "ccsurgeon: " on each line.
func prefixLines(r io.Reader, name string) io.Reader {
	b, _ := io.ReadAll(r)
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "ccsurgeon: "); ok {
			line = "ccsurgeon: " + name + ": " + rest
		}
		out.WriteString(line)
	}
	return &out
}

// changesInPlace reports whether the command, as given, would change the
// session it works on (rather than read it, preview a change or write the
// result elsewhere).
func changesInPlace(cmd *cli.Command) bool {
	if cmd.Name == "backups" {
		return cmd.Bool("purge")
	}
	if !hasFlag(cmd, "output") || cmd.Name == "clone" || cmd.Name == "fork-at-turn" {
		return false // reads, or writes a new session
	}
	if cmd.Name == "redact-secrets" && cmd.Bool("check") {
		return false
	}
	return !cmd.Bool("dry-run") && !cmd.Bool("diff") && cmd.String("output") == "" && !cmd.Bool("new")
}

func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// argsKey is where run keeps the command line in the root's Metadata, for
// hints that repeat it.
const argsKey = "args"

// commandNaming is the command line as it was typed, with the session
// (by id, or by path when the id names another file) after the command's
// name, quoted for a POSIX shell: what to run to mean it.
func commandNaming(env *app.Env, cmd *cli.Command, id, path string) string {
	name := id
	if p, err := chain.Locate(env.ConfigDir, id); err != nil || p != path {
		name = path
	}
	args, _ := cmd.Root().Metadata[argsKey].([]string)
	out := []string{"ccsurgeon"}
	placed := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !placed && (strings.HasPrefix(a, "--config-dir=") || strings.HasPrefix(a, "-config-dir=")) {
			// the hint's printer names the config dir (as --config-dir
			// DIR): kept, it would be given twice
			continue
		}
		out = append(out, app.ShellQuote(a))
		switch {
		case placed:
		case a == "--config-dir" || a == "-config-dir":
			if i+1 < len(args) {
				i++
				out = append(out, app.ShellQuote(args[i]))
			}
		case !strings.HasPrefix(a, "-"): // the command's name
			out = append(out, app.ShellQuote(name))
			placed = true
		}
	}
	if !placed {
		out = append(out, cmd.Name, app.ShellQuote(name))
	}
	return strings.Join(out, " ")
}

// quotedSessionCmdRe is a command quoted in a hint that names SESSION.
var quotedSessionCmdRe = regexp.MustCompile(`'ccsurgeon [^']*\bSESSION\b[^']*'`)

// namedSession puts the session the command worked on, as the user can
// name it, in place of SESSION in the commands an error's hint quotes
// ("list them with 'ccsurgeon turns SESSION'"): a hint is run as printed.
func namedSession(env *app.Env, cmd *cli.Command, err error, session string) error {
	err = speak(err)
	if err == nil {
		return nil
	}
	if hint, ok := folderSessionsHint(cmd, session); ok {
		code := 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		return &app.Error{Msg: err.Error(), Hint: hint, Code: code, Err: err}
	}
	var ce *app.Error
	if !errors.As(err, &ce) || !quotedSessionCmdRe.MatchString(ce.Hint) {
		return err
	}
	name := session
	if app.ShellQuote(name) != name {
		id := strings.TrimSuffix(filepath.Base(session), ".jsonl")
		if p, lerr := chain.Locate(env.ConfigDir, id); lerr == nil && sameFile(p, session) {
			name = id
		} else if abs, aerr := filepath.Abs(session); aerr == nil && app.ShellQuote(abs) == abs {
			name = abs
		} else {
			return err // no way to write it inside the quotes
		}
	}
	ce.Hint = quotedSessionCmdRe.ReplaceAllStringFunc(ce.Hint, func(c string) string {
		return regexp.MustCompile(`\bSESSION\b`).ReplaceAllLiteralString(c, name)
	})
	return err
}

// folderSessionsHint is the hint for a SESSION that is a folder holding
// sessions (a share folder -o DIR/ wrote, a project folder): the command
// line as typed with the session's path in place of the folder, or, when
// it holds several, their names and the command with the first. ok is
// false for what is no folder, or one without a session.
func folderSessionsHint(cmd *cli.Command, session string) (string, bool) {
	if cmd == nil {
		return "", false
	}
	if fi, err := os.Stat(session); err != nil || !fi.IsDir() {
		return "", false
	}
	paths := chain.SessionsIn(session)
	if len(paths) == 0 {
		return "", false
	}
	slices.Sort(paths)
	// the path as the user wrote the folder, not as SessionsIn joined it
	first := filepath.Join(session, filepath.Base(paths[0]))
	line := "'" + commandReplacing(cmd, session, first) + "'"
	if len(paths) == 1 {
		return "the session in it: " + line, true
	}
	names := make([]string, 0, 3)
	for _, p := range paths[:min(len(paths), 3)] {
		names = append(names, filepath.Base(p))
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if len(paths) > 3 {
		list = strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return fmt.Sprintf("it holds %d sessions, %s: name one, such as %s", len(paths), list, line), true
}

// commandReplacing is the command line as the user typed it with the
// argument old (a SESSION) replaced by new, quoted for the shell, but its
// --config-dir: the hint's printer names the config dir as every hint
// does.
func commandReplacing(cmd *cli.Command, old, new string) string {
	args, _ := cmd.Root().Metadata[argsKey].([]string)
	out := []string{"ccsurgeon"}
	done := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--config-dir" || a == "-config-dir":
			i++
			continue
		case strings.HasPrefix(a, "--config-dir=") || strings.HasPrefix(a, "-config-dir="):
			continue
		case a == old && !done:
			a, done = new, true
		}
		out = append(out, app.ShellQuote(a))
	}
	return strings.Join(out, " ")
}

// distinctSessions is args without those naming a session an earlier one
// names (an id and its prefix, a path written otherwise, a hard link: the
// same file, as the file system tells), each left out named on stderr:
// done twice at once, a change failed on its own lock and a reader
// counted the session twice. An arg that names no session is kept (its
// run says why).
func distinctSessions(env *app.Env, args []string) []string {
	var out []string
	var files []os.FileInfo // out's files, nil where none was found
	for _, a := range args {
		var st os.FileInfo
		if p, err := chain.Locate(env.ConfigDir, a); err == nil {
			st, _ = os.Stat(p)
		}
		dup := -1
		for i, f := range files {
			if st != nil && f != nil && os.SameFile(f, st) {
				dup = i
				break
			}
		}
		if dup >= 0 {
			if a == out[dup] {
				env.Warnf("%s is given twice: done once", a)
			} else {
				env.Warnf("%s names the same session as %s: done once", a, out[dup])
			}
			continue
		}
		out, files = append(out, a), append(files, st)
	}
	return out
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
