package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/doctor"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// DoctorOptions are the options of `doctor`.
type DoctorOptions struct {
	Sessions []string // SESSIONs named; none: every session (or Project's)
	Project  string   // --project PATH
	Fix      bool     // apply every fix that loses nothing
	// ManagedSettingsDir is where the managed settings are read
	// (doctor.ManagedSettingsDir of this OS; "" in tests: none).
	ManagedSettingsDir string
}

// DoctorFinding is one finding as doctor --json prints it: the facts, the
// line printed for it and the command that fixes it (or that the user may
// run).
type DoctorFinding struct {
	doctor.Finding
	Message string `json:"message"`
	Command string `json:"command,omitempty"`
}

// DoctorFixed is a fix a --fix run applied.
type DoctorFixed struct {
	SessionID string         `json:"session_id"`
	Kind      doctor.FixKind `json:"kind"`
	From      string         `json:"from"`
	To        string         `json:"to"`
	Backup    string         `json:"backup,omitempty"`
	Error     string         `json:"error,omitempty"`
	// Command is the finding's command: run alone, it says why a fix
	// that failed did (the error with its hint)
	Command string          `json:"command,omitempty"`
	Finding doctor.Kind     `json:"finding"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// DoctorResult is what doctor --json prints.
type DoctorResult struct {
	Sessions       int             `json:"sessions"`
	Cleanup        doctor.Cleanup  `json:"cleanup"`
	Findings       []DoctorFinding `json:"findings"`
	NeedsAttention int             `json:"needs_attention"`
	Fixed          []DoctorFixed   `json:"fixed"`
	// Left are the findings a --fix run leaves for the user to decide
	Left []DoctorFinding `json:"left"`

	shared map[string]bool // sharedIDs
}

// sharedIDs are the ids (as the OS compares file names) that name a
// session file in more than one project folder: a command given such an
// id finds two sessions (ambiguous), so doctor names those by path.
func (env *Env) sharedIDs() map[string]bool {
	all, _ := chain.ListSessions(env.ConfigDir)
	n := map[string]int{}
	for _, p := range all {
		n[idKey(sessionIDOf(p))]++
	}
	out := map[string]bool{}
	for id, c := range n {
		if c > 1 {
			out[id] = true
		}
	}
	return out
}

// idKey is id as the host OS compares file names.
func idKey(id string) string {
	if chain.FoldsCase(chain.HostOS) {
		return strings.ToLower(id)
	}
	return id
}

// doctorName is how doctor's commands and lines name the session of f:
// its id when the id finds it, else its path.
func (env *Env) doctorName(f doctor.Finding, shared map[string]bool) string {
	if !chain.IsUUID(f.SessionID) || !env.filed(f.Path) || shared[idKey(f.SessionID)] {
		return f.Path
	}
	return f.SessionID
}

// RunDoctor looks at the sessions and prints a line per finding; --fix
// applies the lossless fixes. Exit 1 when anything needs attention (after
// --fix: anything left, or a fix that failed).
func (env *Env) RunDoctor(o DoctorOptions) error {
	paths, folders, err := env.doctorScope(o)
	if err != nil {
		return err
	}
	cleanup := doctor.ReadCleanup(env.ConfigDir, o.ManagedSettingsDir)
	pr := env.newProgress()
	pr.Phase("examining", 0)
	fs := doctor.Check(doctor.Options{ConfigDir: env.ConfigDir, Sessions: paths, Folders: folders, Cleanup: &cleanup, DueSoonDays: doctor.DefaultDueSoonDays})
	pr.Done()
	res := DoctorResult{Sessions: len(paths), Cleanup: cleanup, Findings: []DoctorFinding{}}
	shared := env.sharedIDs()
	res.shared = shared
	// the move of each gone project: its other findings' advice sends the
	// user to its folder only through that move
	gone := map[string]string{}
	for _, f := range fs {
		if f.Kind == doctor.ProjectGone {
			gone[f.Project] = env.wordFinding(f, cleanup, shared, nil).Command
		}
	}
	for _, f := range fs {
		df := env.wordFinding(f, cleanup, shared, gone)
		res.Findings = append(res.Findings, df)
		if f.NeedsAttention {
			res.NeedsAttention++
		}
	}
	failed := false
	if o.Fix {
		res.Fixed, failed = env.applyFixes(res.Findings)
		done := map[string]bool{}
		for _, x := range res.Fixed {
			if x.Error == "" {
				done[x.SessionID+"\x00"+string(x.Finding)] = true
			}
		}
		res.Left = []DoctorFinding{}
		for _, df := range res.Findings {
			// a repair that mended some errors leaves the rest to the user
			partly := df.Kind == doctor.Broken && len(df.Unfixed) > 0
			if df.NeedsAttention && (partly || !done[df.SessionID+"\x00"+string(df.Kind)]) {
				res.Left = append(res.Left, df)
			}
		}
	}
	if env.JSON {
		if err := env.printJSON(res); err != nil {
			return err
		}
	} else {
		env.printDoctor(res, o.Fix)
	}
	switch {
	case failed:
		return &Error{Code: 1}
	case o.Fix && len(res.Left) > 0:
		return &Error{Code: 1}
	case !o.Fix && res.NeedsAttention > 0:
		return &Error{Code: 1}
	}
	return nil
}

// doctorScope lists the sessions to look at and the project folders whose
// index is checked: the SESSIONs named (no index), --project's, or all.
func (env *Env) doctorScope(o DoctorOptions) (paths, folders []string, err error) {
	switch {
	case len(o.Sessions) > 0 && o.Project != "":
		return nil, nil, UsageErrorf("give SESSIONs or --project PATH", "doctor takes SESSIONs or --project, not both")
	case len(o.Sessions) > 0:
		for _, s := range o.Sessions {
			p, err := chain.Locate(env.ConfigDir, s)
			if err != nil {
				return nil, nil, err
			}
			paths = append(paths, p)
		}
		return paths, nil, nil
	case o.Project != "":
		if paths, err = env.ProjectSessions(o.Project); err != nil {
			return nil, nil, err
		}
		sort.Strings(paths)
	default:
		if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
			return nil, nil, err
		}
		if paths, err = chain.ListSessions(env.ConfigDir); err != nil {
			return nil, nil, err
		}
		return paths, projectFolders(env.ConfigDir), nil
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if d := filepath.Dir(p); !seen[d] {
			seen[d] = true
			folders = append(folders, d)
		}
	}
	return paths, folders, nil
}

// projectFolders lists the folders under <config-dir>/projects, sorted.
func projectFolders(configDir string) []string {
	var out []string
	des, _ := os.ReadDir(chain.ProjectsDir(configDir))
	for _, d := range des {
		if d.IsDir() { // never a link to a folder elsewhere
			out = append(out, filepath.Join(chain.ProjectsDir(configDir), d.Name()))
		}
	}
	return out
}

// applyFixes applies the lossless fixes, each session's repair before its
// move (the move takes the repaired file along), through the repair and
// move commands' own transactions and backups.
func (env *Env) applyFixes(fs []DoctorFinding) ([]DoctorFixed, bool) {
	var out []DoctorFixed
	failed := false
	order := func(k doctor.FixKind) int {
		if k == doctor.FixRepair {
			return 0
		}
		return 1
	}
	todo := []DoctorFinding{}
	for _, f := range fs {
		// a file named outside the config dir is the user's to change:
		// --fix writes only inside it
		if f.Fix.Lossless && f.NeedsAttention && env.filed(f.Path) {
			todo = append(todo, f)
		}
	}
	sort.SliceStable(todo, func(i, j int) bool {
		if todo[i].Path != todo[j].Path {
			return todo[i].Path < todo[j].Path
		}
		return order(todo[i].Fix.Kind) < order(todo[j].Fix.Kind)
	})
	for _, f := range todo {
		var buf, errb bytes.Buffer
		inner := *env
		inner.Out, inner.Err, inner.JSON, inner.Quiet, inner.Listed = &buf, &errb, true, true, true
		x := DoctorFixed{SessionID: f.SessionID, Kind: f.Fix.Kind, From: f.Path, Finding: f.Kind, Command: f.Command}
		var err error
		switch f.Fix.Kind {
		case doctor.FixRepair:
			inner.Command = "repair"
			err = inner.RunRepair(f.Path, Dest{})
			var r RepairResult
			if json.Unmarshal(buf.Bytes(), &r) == nil {
				x.To = r.Path
				if r.Backup != nil {
					x.Backup = *r.Backup
				}
			}
			// problems were left (RunRepair) after what it fixed and wrote
			if errors.Is(err, errProblemsLeft) && x.Backup != "" {
				err = nil // fixed what it could; the rest is in the finding's unfixed
			}
		case doctor.FixMove:
			inner.Command = "move"
			err = inner.RunMove(MoveOptions{Session: f.Path, To: f.Fix.To})
			var r MoveResult
			if json.Unmarshal(buf.Bytes(), &r) == nil && len(r.Sessions) == 1 {
				x.To, x.Backup = r.Sessions[0].To, r.Sessions[0].Backup
			}
		}
		if b := bytes.TrimSpace(buf.Bytes()); json.Valid(b) && len(b) > 0 {
			x.Result = b
		}
		if err != nil {
			var msg bytes.Buffer
			fmt.Fprint(&msg, err.Error())
			x.Error = strings.TrimSpace(msg.String())
			if x.Error == "" {
				x.Error = strings.TrimSpace(errb.String())
			}
			failed = true
		}
		out = append(out, x)
	}
	return out, failed
}

// filed reports whether path is a session file of a project folder of the
// config dir (<config-dir>/projects/<folder>/<name>.jsonl).
func (env *Env) filed(path string) bool {
	return backup.InProjects(env.ConfigDir, filepath.Dir(path))
}

// wordFinding says what a finding is, what it costs and what fixes it.
// gone maps a project whose folder no longer exists to the command that
// moves it (its project_gone finding's).
func (env *Env) wordFinding(f doctor.Finding, c doctor.Cleanup, shared map[string]bool, gone map[string]string) DoctorFinding {
	move, isGone := gone[f.Project]
	self := env.Self()
	id := ShellQuote(env.doctorName(f, shared))
	df := DoctorFinding{Finding: f}
	switch f.Kind {
	case doctor.Stranded:
		df.Message = fmt.Sprintf("stranded: filed under projects/%s, but the client looks for sessions of %s in projects/%s: 'claude --continue' and the picker there do not see it", f.Folder, f.Project, f.ExpectedFolder)
		if f.Twin != "" {
			df.Message += fmt.Sprintf(", and %s, a file of the same name, is there already (a copy?): compare the two and keep one; doctor moves neither", f.Twin)
		} else {
			df.Command = fmt.Sprintf("%s move %s --to %s", self, id, ShellQuote(f.Fix.To))
		}
	case doctor.ProjectGone:
		df.Message = fmt.Sprintf("project gone: %s, its working directory, no longer exists: no start of the client finds it until it is moved to the project's new place", f.Project)
		if len(f.Candidates) > 0 {
			df.Message += " (it may be " + strings.Join(f.Candidates, " or ") + ")"
		}
		if f.ListedIn != "" {
			df.Message = fmt.Sprintf("project gone: %s, its working directory, no longer exists; the client lists it in %s, whose folder it is filed under, but its recorded paths still name the old place", f.Project, f.ListedIn)
			df.Command = fmt.Sprintf("%s move --project %s --to %s", self, ShellQuote(f.Project), ShellQuote(f.ListedIn))
		} else if len(f.Candidates) == 1 {
			df.Command = fmt.Sprintf("%s move --project %s --to %s", self, ShellQuote(f.Project), ShellQuote(f.Candidates[0]))
		} else {
			df.Command = fmt.Sprintf("%s move --project %s --to %s", self, ShellQuote(f.Project), NewPathPlaceholder)
		}
	case doctor.UnclearCwd:
		df.Message = fmt.Sprintf("unclear working directory: it records %s, which is not a clean absolute path (the client records one): which project it belongs to would depend on where one stands, so doctor moves it nowhere; once you know its project, move it there with 'move SESSION --to DIR'", strconv.Quote(f.Project))
	case doctor.Broken:
		df.Message = "broken: " + brokenWords(f)
		if f.Fix.Kind == doctor.FixRepair {
			df.Command = fmt.Sprintf("%s repair %s", self, id)
		}
	case doctor.OldClient:
		df.Message = "old client: " + oldClientWords(f) + "; 2.1.x resumes it whole (nothing to do unless you resume it with 2.0.x; repair makes both send the same conversation, every entry kept)"
		df.Command = fmt.Sprintf("%s repair %s", self, id)
	case doctor.DueForDeletion:
		src := "the default"
		if c.Source != "" {
			src = c.Source
		}
		when := fmt.Sprintf("in %s", Plural(*f.DaysLeft, "day", "days"))
		if *f.DaysLeft == 0 {
			when = "within a day"
		}
		if f.CleanupPeriodDays == 0 {
			df.Message = fmt.Sprintf("due for deletion: cleanupPeriodDays is 0 (%s): 2.0.50 deletes every session at its next start (2.1.332 refuses 0 and skips its cleanup)", src)
		} else if *f.DaysLeft < 0 {
			df.Message = fmt.Sprintf("due for deletion: last written %s ago, past the cleanup period (cleanupPeriodDays %d, %s): the next start of the client deletes it", Plural(*f.AgeDays, "day", "days"), f.CleanupPeriodDays, src)
		} else {
			df.Message = fmt.Sprintf("due for deletion: last written %s ago, a start of the client deletes it %s (cleanupPeriodDays %d, %s)", Plural(*f.AgeDays, "day", "days"), when, f.CleanupPeriodDays, src)
		}
		settings := c.Source
		if settings == "" {
			settings = filepath.Join(env.ConfigDir, "settings.json")
		}
		df.Message += refusedWords(c)
		df.Message += fmt.Sprintf("; to keep it, raise cleanupPeriodDays in %s, or keep a copy outside the config dir", settings)
		// the session's own bytes under its own id (rewrite with no
		// operation to -o): a clone's new ids in a file named after the
		// old one would name two sessions once put back
		df.Command = fmt.Sprintf("%s rewrite %s -o %s", self, id, ShellQuote(keepCopyPath(env.ConfigDir, f.Path)))
	case doctor.TooBig:
		df.Message = fmt.Sprintf("too big: a resume sends ~%s tokens, over the %s-token context window of %s: the client cannot resume or compact it; fitting it loses content, so it is yours to decide: the command writes the fitted session as a new session in its project's folder, the original left as it is, and prints the new id: resume that one ('claude --resume NEW-ID' in %s)", chain.HumanTokens(f.Tokens), chain.HumanTokens(f.ContextWindow), orUnknown(f.Model), f.Project)
		if isGone {
			df.Message = strings.TrimSuffix(df.Message, fmt.Sprintf(" in %s)", f.Project)) +
				fmt.Sprintf(" in the project's new place): %s no longer exists, so move the project first ('%s'; the fitted session, made before or after, moves with it)", f.Project, move)
		}
		df.Command = fmt.Sprintf("%s compress %s --target-tokens %d --new", self, id, f.Fix.TargetTokens)
	case doctor.IndexMissingFile:
		df.Message = fmt.Sprintf("index: %s names %s, whose file is gone; the picker of 2.1.12-2.1.29 skips it (nothing to do)", f.Index, f.Path)
	case doctor.IndexMissingSession:
		df.Message = fmt.Sprintf("index: %s misses this session; the picker of 2.1.12-2.1.29 reads its file instead (nothing to do)", f.Index)
	case doctor.Unreadable:
		df.Message = "unreadable: " + f.Error
	case doctor.NotAFile:
		what := map[string]string{"symlink": "a symlink to " + f.Target, "fifo": "a FIFO", "folder": "a folder", "other": "not a regular file"}[f.Entry]
		df.Message = fmt.Sprintf("not a file: %s, named like a session: neither client lists it (2.0.50 and 2.1.332 read only the regular files of a project folder) and ccsurgeon does not read it", what)
		if f.NeedsAttention {
			df.Message += "; if the file it names is a session, put a copy of it in place of the link to have it listed (doctor does not read through a link to tell)"
		} else {
			df.Message += " (nothing lost)"
		}
	case doctor.SidecarLink:
		what, copyOf := "the subagent transcript", "file"
		if !strings.HasSuffix(f.Link, ".jsonl") {
			what, copyOf = "the folder of subagent transcripts", "folder" // <id>/ or subagents/
		}
		df.Message = fmt.Sprintf("sidecar link: %s %s is a symlink to %s: it is not read (ccsurgeon reads a session's files only through its own folders), and no change of the session in place is made while it is there; put a copy of the %s in place of the link", what, f.Link, f.Target, copyOf)
	case doctor.EmptyNewest:
		sid := sessionIDOf(f.Shadows)
		df.Message = fmt.Sprintf("empty newest: an empty transcript (a client start that wrote nothing; 2.0.50's -p --resume leaves one) is the newest file of projects/%s: 'claude --continue' in %s (2.1.332) takes it and starts from nothing, not from %s, the newest session; resume that one by its id, or remove this file once no client runs in %s", f.Folder, f.Project, sid, f.Project)
		df.Command = ResumeCmd(f.Project, sid)
		if isGone {
			df.Message = fmt.Sprintf("empty newest: an empty transcript (a client start that wrote nothing; 2.0.50's -p --resume leaves one) is the newest file of projects/%s, whose project %s no longer exists: no client starts there now, but once the project is moved ('%s') 'claude --continue' in the new place (2.1.332) may take it and start from nothing, not from %s, the newest session; remove this file before the move, or resume that one by its id there", f.Folder, f.Project, move, sid)
			df.Command = "" // no folder to cd into
		}
	}
	return df
}

// refusedWords says which settings files set a cleanupPeriodDays the
// clients refuse ("" when none).
func refusedWords(c doctor.Cleanup) string {
	if len(c.Refused) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s sets cleanupPeriodDays to a value neither client takes: 2.0.50 ignores the file, 2.1.332 skips its cleanup)", strings.Join(c.Refused, " and "))
}

// keepCopyPath is where the keep-a-copy command of a session due for
// deletion puts it: beside the config dir (~/ for ~/.claude), a folder
// that exists, outside what the client's cleanup empties, under the
// session file's own name.
func keepCopyPath(configDir, path string) string {
	dir, err := filepath.Abs(configDir)
	if err != nil {
		dir = configDir
	}
	return filepath.Join(filepath.Dir(dir), filepath.Base(path))
}

// brokenWords says what validate found and what it costs, and what repair
// cannot mend.
func brokenWords(f doctor.Finding) string {
	p := f.Problems[0]
	s := fmt.Sprintf("%s (line %d: %s): %s", Plural(len(f.Problems), "error", "errors"), p.Line, p.Code, problemCost(p.Code, p.Line))
	if len(f.Unfixed) > 0 {
		var why []string
		for _, u := range f.Unfixed {
			why = append(why, u.String())
		}
		s += "; what repair cannot mend: " + strings.Join(why, "; ")
	}
	return s
}

// oldClientWords says what Claude Code 2.0.x loses of an OldClient
// finding's session, by validate's code.
func oldClientWords(f doctor.Finding) string {
	var out []string
	for _, p := range f.Problems {
		switch p.Code {
		case validate.ProgressParent:
			out = append(out, fmt.Sprintf("2.0.50 resumes it from line %d on, below a progress entry it does not read: the history above is lost", p.Line))
		case validate.SideBranchCalls:
			out = append(out, fmt.Sprintf("2.0.50 drops the parallel tool calls whose results hang on side branches (line %d)", p.Line))
		}
	}
	return strings.Join(out, ", and ")
}

// problemCost is what a validate error costs the user, by its code.
func problemCost(code string, line int) string {
	switch code {
	case "dangling-parent":
		return fmt.Sprintf("2.0.50 resumes only what follows line %d, the history above it is lost", line)
	case "parent-cycle", "self-parent":
		return "2.0.50 hangs on resume"
	case "duplicate-uuid":
		return "the client keeps one copy of the entry and may lose the history hung below another"
	case "tool-use-without-result", "tool-result-without-use", "duplicate-tool-result", "empty-content", "empty-text-block", "consecutive-assistant":
		return "the API refuses the resumed conversation (400) on clients that send it as it is (2.0.50)"
	case "torn-final-line":
		return "'claude --resume' fails on it"
	case "invalid-json":
		return "the client skips the line"
	case "empty-file":
		return "there is nothing to resume"
	}
	return "a resume loses history or is refused"
}

// printDoctor prints a line per finding, then the fixes and what is left.
func (env *Env) printDoctor(r DoctorResult, fix bool) {
	// what needs attention first, then what is for information; findings
	// one command fixes together (the sessions of one gone project, those
	// of one index) are said once, on the line of the first of them
	groups := map[string][]DoctorFinding{}
	for _, f := range r.Findings {
		if k := groupKey(f.Finding); k != "" {
			groups[k] = append(groups[k], f)
		}
	}
	lines := 0 // that need attention
	for _, attention := range []bool{true, false} {
		for _, f := range r.Findings {
			if f.NeedsAttention != attention {
				continue
			}
			if g := groups[groupKey(f.Finding)]; len(g) > 1 {
				if g[0].SessionID == f.SessionID && g[0].Path == f.Path {
					fmt.Fprintln(env.Out, Printable(env.groupLine(g, r.Cleanup)))
					if attention {
						lines++
					}
				}
				continue
			}
			line := fmt.Sprintf("%s: %s", env.doctorName(f.Finding, r.shared), f.Message)
			if f.Command != "" {
				line += "; fix: " + f.Command
			}
			fmt.Fprintln(env.Out, Printable(line))
			if attention {
				lines++
			}
		}
	}
	for _, x := range r.Fixed {
		if x.Error != "" {
			fmt.Fprintln(env.Out, Printable(fmt.Sprintf("not fixed: %s (%s): %s; hint: to see why: %s", x.SessionID, x.Kind, x.Error, x.Command)))
			continue
		}
		switch x.Kind {
		case doctor.FixMove:
			fmt.Fprintf(env.Out, "fixed: %s moved to %s (undo: %s restore %s)\n", x.SessionID, x.To, env.Self(), x.SessionID)
		case doctor.FixRepair:
			fmt.Fprintf(env.Out, "fixed: %s repaired (undo: %s restore %s)\n", x.SessionID, env.Self(), x.SessionID)
		}
	}
	if fix && len(r.Left) > 0 {
		fmt.Fprintf(env.Out, "left for you to decide: %s (their commands are above)\n", Plural(len(r.Left), "finding", "findings"))
	}
	if !env.Quiet {
		status := "nothing needs attention"
		switch {
		case fix:
			failed := 0
			for _, x := range r.Fixed {
				if x.Error != "" {
					failed++
				}
			}
			status = fmt.Sprintf("%d fixed, ", len(r.Fixed)-failed)
			if failed > 0 {
				status += fmt.Sprintf("%d not fixed, ", failed)
			}
			status += Plural(len(r.Left), "finding", "findings") + " left for you to decide"
		case r.NeedsAttention > 0:
			sessions := map[string]bool{}
			for _, f := range r.Findings {
				if f.NeedsAttention {
					sessions[f.Path] = true
				}
			}
			verb := "needs"
			if len(sessions) > 1 {
				verb = "need"
			}
			status = fmt.Sprintf("%s on %s %s attention, in %s", Plural(r.NeedsAttention, "finding", "findings"), Plural(len(sessions), "session", "sessions"), verb, Plural(lines, "line", "lines"))
		}
		fmt.Fprintf(env.Err, "ccsurgeon: %s examined, %s\n", Plural(r.Sessions, "session", "sessions"), status)
	}
}

// groupKey names the findings that one command fixes (or one sentence
// says) together: the sessions of one gone project, the sessions one
// index misses, the files one index names that are gone; "" for the rest.
func groupKey(f doctor.Finding) string {
	switch f.Kind {
	case doctor.ProjectGone:
		return string(f.Kind) + "\x00" + f.Project + "\x00" + f.ListedIn
	case doctor.IndexMissingSession, doctor.IndexMissingFile:
		return string(f.Kind) + "\x00" + f.Index
	case doctor.OldClient:
		return string(f.Kind)
	case doctor.DueForDeletion:
		if *f.DaysLeft < 0 {
			return string(f.Kind) + "\x00past"
		}
		return string(f.Kind) + "\x00soon"
	}
	return ""
}

// groupLine says a group of findings (groupKey) on one line: what they
// share, every session's id, and the one command.
func (env *Env) groupLine(g []DoctorFinding, c doctor.Cleanup) string {
	var ids []string
	for _, f := range g {
		ids = append(ids, f.SessionID)
	}
	list := strings.Join(ids, ", ")
	f := g[0]
	var line string
	switch f.Kind {
	case doctor.ProjectGone:
		line = fmt.Sprintf("%s: project gone: %d sessions record it as their working directory, which no longer exists (%s): no start of the client finds them until they are moved to the project's new place", f.Project, len(g), list)
		if len(f.Candidates) > 0 {
			line += " (it may be " + strings.Join(f.Candidates, " or ") + ")"
		}
		if f.ListedIn != "" {
			line = fmt.Sprintf("%s: project gone: %d sessions record it as their working directory, which no longer exists (%s); the client lists them in %s, whose folder they are filed under, but their recorded paths still name the old place", f.Project, len(g), list, f.ListedIn)
		}
	case doctor.DueForDeletion:
		settings, src := c.Source, c.Source
		if settings == "" {
			settings, src = filepath.Join(env.ConfigDir, "settings.json"), "the default"
		}
		if f.CleanupPeriodDays == 0 {
			line = fmt.Sprintf("%s: due for deletion: cleanupPeriodDays is 0 (%s): 2.0.50 deletes every session at its next start, these %d: %s (2.1.332 refuses 0 and skips its cleanup)", settings, src, len(g), list)
		} else if *f.DaysLeft < 0 {
			line = fmt.Sprintf("%s: due for deletion: %d sessions past the cleanup period (cleanupPeriodDays %d, %s): %s: the next start of the client deletes them", settings, len(g), f.CleanupPeriodDays, src, list)
		} else {
			most := 0
			for _, x := range g {
				most = max(most, *x.DaysLeft)
			}
			line = fmt.Sprintf("%s: due for deletion: %d sessions reach the cleanup period within %s (cleanupPeriodDays %d, %s): %s: a start of the client then deletes them", settings, len(g), Plural(most, "day", "days"), f.CleanupPeriodDays, src, list)
		}
		line += refusedWords(c)
		line += fmt.Sprintf("; to keep them, raise cleanupPeriodDays in %s, or keep copies outside the config dir (each session's command is in --json)", settings)
		return line
	case doctor.IndexMissingSession:
		line = fmt.Sprintf("%s: index: misses %d sessions of its folder (%s); the picker of 2.1.12-2.1.29 reads their files instead (nothing to do)", f.Index, len(g), list)
	case doctor.IndexMissingFile:
		line = fmt.Sprintf("%s: index: names %d sessions whose file is gone (%s); the picker of 2.1.12-2.1.29 skips them (nothing to do)", f.Index, len(g), list)
	case doctor.OldClient:
		line = fmt.Sprintf("old client: 2.0.50 resumes %d sessions short that 2.1.x resumes whole (%s): history above an entry below a progress entry lost, or parallel tool calls dropped (each session's lines are in --json); nothing to do unless you resume them with 2.0.x; repair makes both send the same conversation, every entry kept", len(g), list)
		ids := make([]string, 0, len(g))
		for _, x := range g {
			ids = append(ids, strings.TrimPrefix(x.Command, env.Self()+" repair ")) // the name wordFinding gave
		}
		line += fmt.Sprintf("; fix: %s repair %s", env.Self(), strings.Join(ids, " "))
		return line
	}
	if f.Command != "" {
		line += "; fix: " + f.Command
	}
	return line
}
