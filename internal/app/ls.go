package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"golang.org/x/sync/errgroup"
)

// SessionSummary is one row of `ls`.
type SessionSummary struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	// PathBytes is the path's bytes in standard base64, only when they
	// are not UTF-8 (JSON turns such bytes of path into U+FFFD): a
	// script opens the file by them
	PathBytes   string    `json:"path_bytes,omitempty"`
	Project     string    `json:"project"`
	Modified    time.Time `json:"modified"`
	Size        int64     `json:"size"`
	Turns       *int      `json:"turns,omitempty"` // with --turns only
	FirstPrompt string    `json:"first_prompt"`
	LastPrompt  string    `json:"last_prompt,omitempty"`
	Title       string    `json:"title,omitempty"`
	// Origin is the session this one was made from by ccsurgeon (clone,
	// fork, or an operation with --new).
	Origin *Origin `json:"origin,omitempty"`
	// ProjectMissing: the project's folder no longer exists on disk
	// (renamed or moved: see 'ccsurgeon move').
	ProjectMissing bool `json:"project_missing,omitempty"`
	// ContextTokens is what the last response of the main conversation
	// was sent, as its recorded usage says (input, cache creation and
	// cache read tokens, plus its own output): near what a resume sends.
	// 0 when no response records usage. --pick shows it.
	ContextTokens int64 `json:"-"`
	// otherTitles holds the summaries of the head window whose leafUuid
	// names no entry of that window, in file order: the entry may
	// be in the tail; if it is nowhere, the summary is another session's.
	otherTitles []otherTitle
	// aiTitle is the last ai-title entry's: the title when the session
	// has no summary or custom title (2.1.332's picker shows a custom
	// title before it, wherever either lies in the file)
	aiTitle string
}

type otherTitle struct{ leaf, title string }

// LsOptions are the options of `ls`.
type LsOptions struct {
	Project string // a project path (the cwd, as the PROJECT column shows it) or a folder name under projects/
	Turns   bool   // count turns (reads whole files)
	Sort    string // "date" (newest first, the default) or "size" (biggest first)
	Since   string // only sessions modified since: a duration back (2h, 3d, 1w) or a date
	MinSize string // only sessions of at least this SIZE
}

// How much of a session `ls` reads: the head holds the working directory
// and the first prompt, the tail the title and the last prompt. A session
// whose first prompt lies deeper than the first window (big attachments
// before it) is read further, up to headMax.
const (
	headWindow = 64 << 10
	headMax    = 1 << 20
	tailWindow = 64 << 10
)

// RunLs lists sessions newest first.
func (env *Env) RunLs(o LsOptions) error {
	filter, err := o.filter()
	if err != nil {
		return err
	}
	if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
		return err
	}
	paths, err := chain.ListSessions(env.ConfigDir)
	if err != nil {
		return err
	}
	var rows []SessionSummary
	if o.Project != "" {
		if rows, err = env.projectRows(paths, o); err != nil {
			return err
		}
	} else {
		rows = summarize(paths, o.Turns)
	}
	origins := readOrigins(env.ConfigDir)
	kept := rows[:0]
	for _, r := range rows {
		if filter(r) {
			r.Origin = origins[r.ID]
			kept = append(kept, r)
		}
	}
	rows = kept
	if o.Sort == "size" {
		sort.SliceStable(rows, func(i, j int) bool {
			if rows[i].Size != rows[j].Size {
				return rows[i].Size > rows[j].Size
			}
			return rows[i].ID < rows[j].ID
		})
	} else {
		sort.SliceStable(rows, func(i, j int) bool {
			if !rows[i].Modified.Equal(rows[j].Modified) {
				return rows[i].Modified.After(rows[j].Modified)
			}
			return rows[i].ID < rows[j].ID
		})
	}
	markMissingProjects(rows)
	if env.JSON {
		if rows == nil {
			rows = []SessionSummary{}
		}
		for i := range rows {
			if !utf8.ValidString(rows[i].Path) {
				rows[i].PathBytes = base64.StdEncoding.EncodeToString([]byte(rows[i].Path))
			}
		}
		return env.printJSON(rows)
	}
	if len(rows) == 0 {
		match := "" // "match" only when --since or --min-size left them out
		if o.Since != "" || o.MinSize != "" {
			match = " match"
		}
		fmt.Fprintf(env.Err, "no sessions under %s%s\n", chain.ProjectsDir(env.ConfigDir), match)
		return nil
	}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	if o.Turns {
		fmt.Fprintln(w, "ID\tPROJECT\tMODIFIED\tSIZE\tTURNS\tTITLE OR FIRST PROMPT")
	} else {
		fmt.Fprintln(w, "ID\tPROJECT\tMODIFIED\tSIZE\tTITLE OR FIRST PROMPT")
	}
	for _, r := range rows {
		title := r.Title
		if title == "" {
			title = r.FirstPrompt
		}
		if r.Origin != nil {
			title = r.Origin.String() + " " + title
		}
		turns := ""
		if r.Turns != nil {
			turns = fmt.Sprintf("%d\t", *r.Turns)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s%s\n", Printable(r.ID), Printable(r.Project), r.Modified.Local().Format("2006-01-02 15:04"), HumanBytes(r.Size), turns, oneLine(title, 60))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	env.printMissingProjects(rows)
	return nil
}

// wanted reports whether the project folder name is one of want, without
// regard to case where the file system folds it (chain.SameName).
func wanted(want map[string]bool, name string) bool {
	for w := range want {
		if chain.SameName(chain.HostOS, w, name) {
			return true
		}
	}
	return false
}

// projectRows summarizes the sessions of project o.Project: the folder
// under projects/ of that name or of that working directory, or else the
// sessions whose PROJECT (their first working directory) is that path.
func (env *Env) projectRows(paths []string, o LsOptions) ([]SessionSummary, error) {
	if name, ok := env.projectFolderNamed(o.Project); ok {
		// the folder under projects/ named by its path: its name
		o.Project = name
	}
	want := map[string]bool{o.Project: true, chain.ProjectSlug(o.Project): true}
	clean := filepath.Clean(o.Project)
	if abs, err := filepath.Abs(o.Project); err == nil {
		want[chain.ProjectSlug(abs)] = true
		clean = abs
	}
	var keep []string
	for _, p := range paths {
		if wanted(want, filepath.Base(filepath.Dir(p))) {
			keep = append(keep, p)
		}
	}
	if len(keep) > 0 {
		rows := summarize(keep, o.Turns)
		if filepath.IsAbs(clean) && !chain.SameName(chain.HostOS, o.Project, filepath.Base(filepath.Dir(keep[0]))) {
			// a project named by its path: its folder's sessions but those
			// the client leaves to another folder of the same slug
			kept := rows[:0]
			for _, r := range rows {
				if !chain.HiddenFrom(clean, r.Project) {
					kept = append(kept, r)
				}
			}
			rows = kept
		}
		if len(rows) > 0 {
			return rows, nil
		}
		keep = nil
	}
	var rows []SessionSummary
	shown := map[string]bool{}
	for _, r := range summarize(paths, false) {
		shown[r.Project] = true
		if chain.SameName(chain.HostOS, r.Project, o.Project) || chain.SameName(chain.HostOS, filepath.Clean(r.Project), clean) {
			keep = append(keep, r.Path)
			rows = append(rows, r)
		}
	}
	if len(keep) == 0 {
		hint := "list the projects with 'ccsurgeon ls'"
		if len(shown) > 0 && len(shown) <= 5 {
			var names []string
			for n := range shown {
				names = append(names, n)
			}
			sort.Strings(names)
			hint = "projects: " + strings.Join(names, ", ")
		}
		return nil, &Error{Msg: fmt.Sprintf("no sessions of project %q", o.Project), Hint: hint, Code: 1}
	}
	if o.Turns {
		return summarize(keep, true), nil
	}
	return rows, nil
}

// projectFolderNamed returns the name of the folder of this config dir's
// projects/ that p is the path of (what 'ls ~/.claude/projects' or a
// session's path shows), and whether it is one.
func (env *Env) projectFolderNamed(p string) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	// through a config dir that is a link too (the folder's real path):
	// backup.InProjects is the one rule
	if !backup.InProjects(env.ConfigDir, abs) {
		return "", false
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Base(abs), true
}

// filter checks the options of ls and returns the test a row must pass.
func (o LsOptions) filter() (func(SessionSummary) bool, error) {
	switch o.Sort {
	case "", "date", "size":
	default:
		return nil, UsageErrorf("--sort date (newest first) or --sort size (biggest first)", "--sort %q: want date or size", o.Sort)
	}
	var since time.Time
	if o.Since != "" {
		t, err := parseSince(o.Since, time.Now())
		if err != nil {
			return nil, UsageErrorf("examples: --since 2h, --since 3d, --since 2026-11-01", "--since %q: want a duration back (30m, 2h, 3d, 1w) or a date (2006-01-02, 2006-01-02T15:04)", o.Since)
		}
		since = t
	}
	var minSize int64
	if o.MinSize != "" {
		n, err := ParseSize("--min-size", o.MinSize)
		if err != nil {
			return nil, err
		}
		minSize = n
	}
	return func(r SessionSummary) bool {
		return r.Size >= minSize && (since.IsZero() || !r.Modified.Before(since))
	}, nil
}

// parseSince reads --since: a duration back from now (Go's, or with d for
// days and w for weeks) or a local date or time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); n != s && (unit == "d" || unit == "w") {
		k, err := strconv.Atoi(n)
		if err != nil {
			return time.Time{}, err
		}
		days := k
		if unit == "w" {
			days = 7 * k
		}
		return now.AddDate(0, 0, -days), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a duration or a date")
}

// Origin is where a session came from when ccsurgeon made it.
type Origin struct {
	Session   string `json:"session"`
	Operation string `json:"operation"`
}

// String is how ls shows it: "(clone of 3f2a9c1e)".
func (o Origin) String() string {
	what := o.Operation + " copy"
	switch o.Operation {
	case "clone", "clone+select-branch": // clone --branch/--leaf is a clone too
		what = "clone"
	case "fork-at-turn":
		what = "fork"
	}
	id := o.Session
	if len(id) > 8 {
		id = id[:8]
	}
	return fmt.Sprintf("(%s of %s)", what, id)
}

// originsFile is where ccsurgeon notes the origin of every session it
// makes: a line per new session, in its own folder, so that the session
// files themselves carry nothing the client does not write.
func originsFile(configDir string) string {
	return filepath.Join(configDir, "ccsurgeon", "origins.jsonl")
}

type originLine struct {
	Session   string `json:"session"`
	From      string `json:"from"`
	Operation string `json:"operation"`
	Time      string `json:"time"`
}

// recordOrigin notes that session id was made from session from by op.
func recordOrigin(configDir, id, from, op string) error {
	b, err := json.Marshal(originLine{Session: id, From: from, Operation: op, Time: time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	return backup.AppendOwn(configDir, originsFile(configDir), append(b, '\n'))
}

// readOrigins reads the origins ccsurgeon noted, by session id.
func readOrigins(configDir string) map[string]*Origin {
	out := map[string]*Origin{}
	b, err := chain.ReadSideFile(originsFile(configDir))
	if err != nil {
		return out
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var l originLine
		if json.Unmarshal(line, &l) == nil && l.Session != "" {
			out[l.Session] = &Origin{Session: l.From, Operation: l.Operation}
		}
	}
	return out
}

func summarize(paths []string, turns bool) []SessionSummary {
	rows := make([]SessionSummary, len(paths))
	ok := make([]bool, len(paths))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range paths {
		g.Go(func() error {
			r, err := summarizeOne(paths[i], turns)
			rows[i], ok[i] = r, err == nil
			return nil // a session that cannot be read is left out
		})
	}
	_ = g.Wait()
	var out []SessionSummary
	for i := range rows {
		if ok[i] {
			out = append(out, rows[i])
		}
	}
	return out
}

// summarizeOne describes one session. Without turns it reads the head and
// the tail of the file only, so that listing is as fast for a 1 GB
// session as for a small one; with turns it reads the whole file.
func summarizeOne(p string, turns bool) (SessionSummary, error) {
	fh, err := chain.OpenShared(p)
	if err != nil {
		return SessionSummary{}, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return SessionSummary{}, err
	}
	r := SessionSummary{ID: strings.TrimSuffix(filepath.Base(p), ".jsonl"), Path: p, Modified: st.ModTime(), Size: st.Size(), Project: filepath.Base(filepath.Dir(p))}
	if turns || st.Size() <= headWindow+tailWindow {
		f, err := chain.LoadFile(p)
		if err != nil {
			return r, err
		}
		defer f.Close()
		ts := f.ActiveTurns()
		if turns {
			n := len(ts.List)
			r.Turns = &n
		}
		describe(f, &r, true)
		if c := chain.RecordedCwd(f); c != "" {
			r.Project = c
		}
		return r.withAITitle(), nil
	}
	headCwd := ""
	for n := int64(headWindow); ; n *= 4 {
		head, err := readLines(fh, 0, min(n, st.Size()))
		if err != nil {
			return r, err
		}
		if headCwd == "" {
			headCwd = chain.HeadCwd(head)
		}
		if describe(head, &r, true) || n >= headMax || n >= st.Size() {
			break
		}
	}
	tail, err := readLines(fh, max(0, st.Size()-tailWindow), st.Size())
	if err != nil {
		return r, err
	}
	describe(tail, &r, false)
	// the project the client takes it for (chain.RecordedCwd, read from
	// the two windows)
	if c := chain.RelocatedCwd(tail); c != "" {
		r.Project = c
	} else if headCwd != "" {
		r.Project = headCwd
	} else if c := chain.RecordedCwdOf(p); c != "" { // a head line longer than the window
		r.Project = c
	}
	return r.withAITitle(), nil
}

// withAITitle is r with the client's AI-made title (2.1.332's ai-title
// entry, e.g. "⑂ PROMPT" for a /fork background session) as its title
// when it has no summary or custom title.
func (r SessionSummary) withAITitle() SessionSummary {
	if r.Title == "" {
		r.Title = r.aiTitle
	}
	return r
}

// readLines indexes the whole lines of fh between from and to: a line cut
// by either end of the window is left out (unless that end is the file's).
func readLines(fh *os.File, from, to int64) (*chain.File, error) {
	start := max(from-1, 0) // one byte before: does the window start a line?
	b := make([]byte, to-start)
	if _, err := fh.ReadAt(b, start); err != nil && err != io.EOF {
		return nil, err
	}
	if from > 0 {
		// b[0] is the byte before the window: a newline there means the
		// window starts with a whole line
		if i := bytes.IndexByte(b, '\n'); i < 0 {
			b = nil
		} else {
			b = b[i+1:]
		}
	}
	if st, err := fh.Stat(); err == nil && to < st.Size() {
		b = b[:bytes.LastIndexByte(b, '\n')+1]
	}
	return chain.LoadBytes(fh.Name(), b)
}

// describe fills in r from f, the whole session or a window of its lines
// (the head first, then the tail): the first
// prompt (the first a person typed, in file order; from the head or the
// whole file only), the title (the last summary or custom-title, else the
// last ai-title; 1.0 wrote
// summaries at the top, 2.x appends titles; a summary whose leafUuid names
// an entry of another session is that session's) and the last prompt. It
// reports whether the first prompt is known.
func describe(f *chain.File, r *SessionSummary, head bool) bool {
	if r.FirstPrompt == "" && head {
		if i, ok := f.FirstPrompt(); ok {
			r.FirstPrompt, _ = f.PromptText(i)
		}
	}
	if !head {
		// summaries of the head whose leaf is in the tail come before the
		// titles of the tail
		for _, o := range r.otherTitles {
			if _, ok := f.Graph().Lookup(o.leaf); ok {
				r.Title = o.title
			}
		}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind != chain.KindEntry {
			continue
		}
		meta := e.Type() == "summary" || e.Type() == "custom-title" || e.Type() == "last-prompt" || e.Type() == "ai-title"
		answer := e.Type() == "assistant"
		if !meta && !answer {
			continue
		}
		raw, err := f.Raw(i)
		if err != nil {
			continue
		}
		if answer {
			if n := contextTokens(raw); n > 0 {
				r.ContextTokens = n
			}
		}
		if !meta {
			continue
		}
		for _, k := range []string{"summary", "customTitle"} {
			if t := gjson.GetBytes(raw, k); t.Type == gjson.String && t.Str != "" {
				if leaf := e.LeafUUID(); k == "summary" && leaf != "" {
					// 1.0 put the summaries of earlier sessions at the top of
					// a new one: a summary is this session's title only if
					// its leafUuid names an entry of this session
					if _, ok := f.Graph().Lookup(leaf); !ok {
						r.otherTitles = append(r.otherTitles, otherTitle{leaf, t.Str})
						continue
					}
				}
				r.Title = t.Str
			}
		}
		if t := gjson.GetBytes(raw, "lastPrompt"); t.Type == gjson.String && t.Str != "" {
			r.LastPrompt = t.Str
		}
		if t := gjson.GetBytes(raw, "aiTitle"); e.Type() == "ai-title" && t.Type == gjson.String && t.Str != "" {
			r.aiTitle = t.Str
		}
	}
	return r.FirstPrompt != ""
}

// AllSessions lists every session under the config dir.
func (env *Env) AllSessions() ([]string, error) {
	if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
		return nil, err
	}
	paths, err := chain.ListSessions(env.ConfigDir)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("no sessions under %s", chain.ProjectsDir(env.ConfigDir)), Code: 1}
	}
	return paths, nil
}

// ProjectSessions lists the sessions of a project, named as ls --project
// takes it, newest first.
func (env *Env) ProjectSessions(project string) ([]string, error) {
	paths, err := env.AllSessions()
	if err != nil {
		return nil, err
	}
	rows, err := env.projectRows(paths, LsOptions{Project: project})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Modified.After(rows[j].Modified) })
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Path
	}
	return out, nil
}

// ContinueEmptyError: the file 'claude --continue' takes in the current
// folder (chain.ContinuePick) is Empty, an empty transcript newer than
// every session: the client starts from nothing there, not from Session
// (the newest session, the one the user likely means).
type ContinueEmptyError struct{ Empty, Session string }

func (e *ContinueEmptyError) Error() string {
	return fmt.Sprintf("the newest file of this folder's project is %s, an empty transcript: 'claude --continue' here takes it and starts from nothing, not from %s, the newest session", e.Empty, sessionIDOf(e.Session))
}

func sessionIDOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// ContinueSession is the session 'claude --continue' would pick in the
// current folder: the newest (last modified) of the folder's project
// (chain.ContinuePick); a ContinueEmptyError when that is an empty file.
func (env *Env) ContinueSession() (string, error) {
	wd, err := chain.ClientCwd()
	if err != nil {
		return "", err
	}
	dir := chain.ProjectDirOf(env.ConfigDir, wd)
	best := chain.NewestOf(chain.ClientSessions(env.ConfigDir, wd))
	if pick := chain.ContinuePick(env.ConfigDir, wd); best != "" && pick != best {
		// the client takes an empty transcript newer than every session
		return "", &ContinueEmptyError{Empty: pick, Session: best}
	}
	if best == "" {
		if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
			return "", err
		}
		return "", &Error{Msg: fmt.Sprintf("no session to work on: this folder's project (%s) has no sessions", dir),
			Hint: "name a SESSION (an id, an id prefix or a .jsonl path); list them with 'ccsurgeon ls'", Code: 1}
	}
	return best, nil
}

// ago says how long ago, roughly: "just now", "42 seconds ago", "5m ago",
// "3h ago", "2d ago" (a file written seconds before was "0m ago").
func ago(d time.Duration) string {
	switch {
	case d < 2*time.Second: // a clock a little behind the file's too
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%d seconds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// recordedTokens is the figure --pick shows for f (SessionSummary's
// ContextTokens): the usage the last assistant entry of the main
// conversation records, in file order.
func recordedTokens(f *chain.File) int64 {
	for i := len(f.Entries) - 1; i >= 0; i-- {
		if e := &f.Entries[i]; e.Kind != chain.KindEntry || e.Type() != "assistant" {
			continue
		}
		if raw, err := f.Raw(i); err == nil {
			if n := contextTokens(raw); n > 0 {
				return n
			}
		}
	}
	return 0
}

// contextTokens is the usage an assistant entry of the main conversation
// records: all its request was sent plus its output; 0 if none.
func contextTokens(raw []byte) int64 {
	if gjson.GetBytes(raw, "isSidechain").Bool() {
		return 0
	}
	u := gjson.GetBytes(raw, "message.usage")
	if !u.Exists() {
		return 0
	}
	var n int64
	for _, k := range []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"} {
		n += u.Get(k).Int()
	}
	return n
}

// SessionTitle is how a person recognises the session at path: its title,
// else its first prompt, on one line of at most 60 characters ("" when
// it has neither).
func SessionTitle(path string) string {
	r, err := summarizeOne(path, false)
	if err != nil {
		return ""
	}
	t := r.Title
	if t == "" {
		t = r.FirstPrompt
	}
	return oneLine(t, 60)
}
