// Package doctor looks at every session of a config dir for what the user
// cannot see: a session the client does not find (filed under a folder it
// does not look in, or whose project is gone), history a resume would lose
// or a request the API would refuse, a session the client's cleanup is
// about to delete, one too big to resume, and the resume picker's index out
// of step with the files. It returns facts (Finding) and the fix of each as
// data; the command layer words them.
package doctor

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"golang.org/x/sync/errgroup"
)

// Kind is what is wrong.
type Kind string

// The kinds of finding.
const (
	// Stranded: the session is filed under a folder that is not the one
	// the client uses for its recorded cwd, which exists: 'claude
	// --continue' there does not see it.
	Stranded Kind = "stranded"
	// ProjectGone: the recorded cwd no longer exists (a renamed or moved
	// project, a session copied from another machine): no start of the
	// client finds the session until it is moved to the project's new
	// place, which only the user knows (Candidates are guesses).
	ProjectGone Kind = "project_gone"
	// Broken: validate finds errors: history a resume loses, a request the
	// API refuses or a file the client cannot resume, on some version.
	Broken Kind = "broken"
	// OldClient: Claude Code 2.0.x resumes the session short (validate's
	// progress-parent, side-branch-calls: history above an entry below a
	// progress entry lost, parallel calls dropped), while the client that
	// wrote it and the newest resume it whole: for information, fixed by
	// repair, which a fixing run does not apply (it needs no attention
	// from who resumes with 2.1.x).
	OldClient Kind = "old_client"
	// DueForDeletion: the file is older than the client's cleanup period
	// or will be within DueSoonDays; the client deletes it at a start.
	DueForDeletion Kind = "due_for_deletion"
	// TooBig: a resume sends more tokens than the model's context window.
	TooBig Kind = "too_big"
	// IndexMissingFile: sessions-index.json names a file that is not there.
	IndexMissingFile Kind = "index_missing_file"
	// IndexMissingSession: a session of the folder is not in its
	// sessions-index.json.
	IndexMissingSession Kind = "index_missing_session"
	// Unreadable: the session could not be read at all.
	Unreadable Kind = "unreadable"
	// EmptyNewest: an empty transcript (a client start that wrote
	// nothing: 2.0.50's -p --resume leaves one) is the newest file of a
	// project folder: 'claude --continue' (2.1.332) in the project takes
	// it and starts from nothing, not from Shadows, the newest session.
	// Not fixed: the file holds nothing, but a client that is running may
	// still write to it.
	EmptyNewest Kind = "empty_newest"
	// UnclearCwd: the recorded working directory is relative or not in
	// its clean form (a "." or ".." element): no path the client writes
	// (its cwd is absolute and clean), so which project the session
	// belongs to is not known; never resolved from the directory doctor
	// runs in, never a move target.
	UnclearCwd Kind = "unclear_cwd"
	// NotAFile: an entry of a project folder named like a session that is
	// not a regular file (a symlink, a FIFO, a folder): neither client
	// lists it (both read the folder's regular files only). A symlink to
	// a file needs attention: a session put there that no picker shows.
	NotAFile Kind = "not_a_file"
	// SidecarLink: a subagent transcript of the session is a symbolic
	// link (Target): not read, and no change of the session in place is
	// made while it is there (it refuses).
	SidecarLink Kind = "sidecar_link"
)

// FixKind is what fixes a finding.
type FixKind string

// The fixes.
const (
	// FixMove moves the session to the project folder of To (lossless).
	FixMove FixKind = "move"
	// FixRepair repairs the session in place (lossless: a backup keeps
	// the original, and what the client reads of it is kept).
	FixRepair FixKind = "repair"
	// FixChooseProject: move the session to its project's new place,
	// which the user names (Candidates are guesses).
	FixChooseProject FixKind = "choose_project"
	// FixFit shortens what a resume sends to TargetTokens: it loses
	// content, so it is the user's call.
	FixFit FixKind = "fit"
	// FixKeep: raise cleanupPeriodDays, or keep a copy elsewhere.
	FixKeep FixKind = "keep"
	// FixNone: nothing to do (the finding is for information).
	FixNone FixKind = "none"
)

// Fix is the fix of a finding, as data.
type Fix struct {
	Kind FixKind `json:"kind"`
	// Lossless: the fix loses nothing. A fixing run applies it when the
	// finding also needs attention (not OldClient's); the others are left
	// to the user.
	Lossless bool `json:"lossless"`
	// To is the project path the session belongs to (FixMove).
	To string `json:"to,omitempty"`
	// TargetTokens is the budget that fits the window (FixFit).
	TargetTokens int `json:"target_tokens,omitempty"`
}

// Finding is one thing wrong with one session (or one index entry).
type Finding struct {
	Kind      Kind   `json:"kind"`
	SessionID string `json:"session_id"`
	Path      string `json:"path"`
	// Project is the working directory the client takes the session to
	// belong to (chain.RecordedCwd); "" when no entry records one.
	Project string `json:"project,omitempty"`
	// NeedsAttention is false for what costs the user nothing today.
	NeedsAttention bool `json:"needs_attention"`

	// Stranded, ProjectGone: the folder the session is in, the one the
	// client looks in for Project, whether Project exists, and the
	// existing folders the project may have become.
	Folder         string   `json:"folder,omitempty"`
	ExpectedFolder string   `json:"expected_folder,omitempty"`
	Candidates     []string `json:"candidates"`
	// Stranded: a file of the same name in the folder the client looks in
	// (a copy): the session cannot be moved there.
	Twin string `json:"twin,omitempty"`
	// ProjectGone: the existing project the client lists the session in
	// all the same (it is filed under that project's folder); "" if none.
	ListedIn string `json:"listed_in,omitempty"`

	// Broken: validate's errors, and those repair has no safe fix for;
	// OldClient: validate's warnings of what 2.0.x does not send.
	Problems []validate.Problem `json:"problems"`
	Unfixed  []ops.Fix          `json:"unfixed"`

	// DueForDeletion: the file's modification time (what the client's
	// cleanup compares), its age and the days left before a start of
	// the client deletes it (negative: past the period already).
	Modified          *time.Time `json:"modified,omitempty"`
	AgeDays           *int       `json:"age_days,omitempty"`
	DaysLeft          *int       `json:"days_left,omitempty"`
	CleanupPeriodDays int        `json:"cleanup_period_days,omitempty"`

	// TooBig: the estimate of what a resume sends and the window.
	Tokens        int    `json:"tokens,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
	Model         string `json:"model,omitempty"`

	// Index*: the sessions-index.json at hand.
	Index string `json:"index,omitempty"`

	// Unreadable: why.
	Error string `json:"error,omitempty"`

	// EmptyNewest: the session 'claude --continue' would go on with but
	// for the empty file (its path).
	Shadows string `json:"shadows,omitempty"`

	// NotAFile: what the entry is ("symlink", "fifo", "folder", "other")
	// and, for a symlink, where it points.
	Entry  string `json:"entry,omitempty"`
	Target string `json:"target,omitempty"`
	// SidecarLink: the link (the session is Path).
	Link string `json:"link,omitempty"`

	Fix Fix `json:"fix"`
}

// Options say what to look at and against what.
type Options struct {
	ConfigDir string
	// Sessions are the main transcripts to check (chain.ListSessions or
	// the user's choice).
	Sessions []string
	// Folders are the project folders whose sessions-index.json is checked.
	Folders []string
	// Now is the time ages are counted to (time.Now if zero).
	Now time.Time
	// Cleanup is the client's cleanup period (ReadCleanup); nil: not
	// looked at (Days 0 is a period: 2.0.50 then deletes every session).
	Cleanup *Cleanup
	// DueSoonDays: a session with this many days left or fewer is named.
	DueSoonDays int
	// GOOS names things as the client on that OS (chain.HostOS if "").
	GOOS string
}

// DefaultDueSoonDays is how many days ahead a coming deletion is named.
const DefaultDueSoonDays = 7

// Check looks at every session of o and every index of o.Folders and
// returns the findings sorted by path, then kind.
func Check(o Options) []Finding {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.GOOS == "" {
		o.GOOS = chain.HostOS
	}
	folders := projectFolderNames(o.ConfigDir)
	per := make([][]Finding, len(o.Sessions))
	cwds := make([]string, len(o.Sessions))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range o.Sessions {
		g.Go(func() error {
			per[i], cwds[i] = checkSession(o, folders, o.Sessions[i])
			return nil // what cannot be read is a finding, not an error
		})
	}
	_ = g.Wait()
	var out []Finding
	var known []string
	for _, c := range cwds {
		known = append(known, c)
	}
	known = append(known, clientProjects(o.ConfigDir)...)
	known = slices.DeleteFunc(known, func(k string) bool { return !clearPath(k) }) // never resolved from where doctor runs
	guesses := map[string][]string{}                                               // the sessions of a gone project share them
	listedBy := map[string]string{}                                                // and those of a folder, where it is listed
	for _, fs := range per {
		for _, f := range fs {
			if f.Kind == ProjectGone {
				g, ok := guesses[f.Project]
				if !ok {
					g = candidates(f.Project, known)
					guesses[f.Project] = g
				}
				f.Candidates = g
				l, ok := listedBy[f.Folder]
				if !ok {
					l = listedIn(o.GOOS, f.Folder, known, folders)
					listedBy[f.Folder] = l
				}
				f.ListedIn = l
			}
			out = append(out, f)
		}
	}
	listed := map[string]bool{} // read already: readable
	for _, p := range o.Sessions {
		listed[p] = true
	}
	for _, dir := range o.Folders {
		out = append(out, checkIndex(dir)...)
		if f, ok := emptyNewest(o, folders, dir); ok {
			out = append(out, f)
		}
		out = append(out, notFiles(dir, listed)...)
	}
	Sort(out)
	return out
}

// Sort orders findings by path, then kind, then the problem's line: the
// same findings always print in the same order.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Path != fs[j].Path {
			return fs[i].Path < fs[j].Path
		}
		return fs[i].Kind < fs[j].Kind
	})
}

// projectFolderNames lists the names of the folders under projects/ (where
// the OS folds case, the folder the client's slug lands in may differ from
// the slug by case).
func projectFolderNames(configDir string) []string {
	des, _ := os.ReadDir(chain.ProjectsDir(configDir))
	var out []string
	for _, d := range des {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	return out
}

// checkSession reads one session and returns its findings and recorded cwd.
func checkSession(o Options, folders []string, path string) ([]Finding, string) {
	id := filepath.Base(path)
	id = id[:len(id)-len(filepath.Ext(id))]
	st, err := os.Stat(path)
	if err != nil {
		return []Finding{{Kind: Unreadable, SessionID: id, Path: path, NeedsAttention: true, Error: err.Error(), Fix: Fix{Kind: FixNone}}}, ""
	}
	// a file named outside <config-dir>/projects/<folder>/ is nobody's
	// project folder and no cleanup of the client reaches it
	// (through a config dir that is a link: a session named by its path
	// is its real file; backup.InProjects is the one rule)
	filed := backup.InProjects(o.ConfigDir, filepath.Dir(path))
	var out []Finding
	if f, ok := due(o, id, path, st.ModTime()); ok && filed {
		out = append(out, f)
	}
	s, err := chain.Load(path)
	if err != nil {
		return append(out, Finding{Kind: Unreadable, SessionID: id, Path: path, NeedsAttention: true, Error: err.Error(), Fix: Fix{Kind: FixNone}}), ""
	}
	defer s.Close()
	for _, l := range s.Links {
		target, _ := os.Readlink(l)
		out = append(out, Finding{Kind: SidecarLink, SessionID: id, Path: path, Link: l, Entry: "symlink", Target: target, NeedsAttention: true, Fix: Fix{Kind: FixNone}})
	}
	cwd := chain.RecordedCwd(s.Main)
	if f, ok := place(o, folders, id, path, cwd); ok && filed {
		out = append(out, f)
	}
	r := validate.Session(s)
	if f, ok := broken(s, id, r); ok {
		out = append(out, f)
	}
	if f, ok := oldClient(s, id, r); ok {
		out = append(out, f)
	}
	if f, ok := tooBig(s, id); ok {
		out = append(out, f)
	}
	for i := range out {
		out[i].Project = cwd
	}
	return out, cwd
}

// place finds a session the client does not look for where it is: filed
// under another folder than its recorded cwd's (Stranded), or whose cwd is
// gone (ProjectGone).
func place(o Options, folders []string, id, path, cwd string) (Finding, bool) {
	if cwd == "" {
		return Finding{}, false // nothing says whose it is
	}
	folder := filepath.Base(filepath.Dir(path))
	if !clearPath(cwd) {
		return Finding{Kind: UnclearCwd, SessionID: id, Path: path, Folder: folder, NeedsAttention: true, Fix: Fix{Kind: FixNone}}, true
	}
	expected := chain.ProjectFolderName(o.GOOS, cwd, folders)
	f := Finding{SessionID: id, Path: path, Folder: folder, ExpectedFolder: expected, NeedsAttention: true}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		f.Kind, f.Fix = ProjectGone, Fix{Kind: FixChooseProject}
		return f, true
	}
	if chain.FolderHoldsProject(o.GOOS, folder, cwd, folders) {
		return Finding{}, false
	}
	f.Kind, f.Fix = Stranded, Fix{Kind: FixMove, Lossless: true, To: cwd}
	twin := filepath.Join(chain.ProjectsDir(o.ConfigDir), expected, filepath.Base(path))
	if st, err := os.Lstat(twin); err == nil && st.Mode().IsRegular() {
		f.Twin, f.Fix = twin, Fix{Kind: FixNone}
	}
	return f, true
}

// clearPath reports whether p is a path the client records as a working
// directory: absolute (on some OS: "/...", "C:\\...", "\\\\server\\...")
// and with no "." or ".." element.
func clearPath(p string) bool {
	abs := strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) || chain.HasDrive(p)
	if !abs {
		return false
	}
	for _, e := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if e == "." || e == ".." {
			return false
		}
	}
	return true
}

// broken reports validate's errors, with what repair leaves unfixed (the
// repair runs on a transaction that is never written).
func broken(s *chain.Session, id string, r validate.Report) (Finding, bool) {
	if r.Valid() {
		return Finding{}, false
	}
	f := Finding{Kind: Broken, SessionID: id, Path: s.Path, NeedsAttention: true, Fix: Fix{Kind: FixRepair, Lossless: true}}
	for _, p := range r.Problems {
		if p.Severity == validate.Error {
			f.Problems = append(f.Problems, p)
		}
	}
	rep := &ops.Repair{}
	if err := rep.Apply(ops.NewTxn(s)); err == nil {
		for _, fx := range rep.Fixes {
			if !fx.Fixed {
				f.Unfixed = append(f.Unfixed, fx)
			}
		}
	}
	if rep.Changes() == 0 {
		f.Fix = Fix{Kind: FixNone} // repair has nothing it can mend
	}
	return f, true
}

// oldClient reports what Claude Code 2.0.x does not send of the session
// (validate's warnings of it, r being validate's report of s).
func oldClient(s *chain.Session, id string, r validate.Report) (Finding, bool) {
	f := Finding{Kind: OldClient, SessionID: id, Path: s.Path, Fix: Fix{Kind: FixRepair, Lossless: true}}
	for _, p := range r.Problems {
		if p.OldClientOnly() {
			f.Problems = append(f.Problems, p)
		}
	}
	return f, len(f.Problems) > 0
}

// tooBig reports a session whose resume sends more than the window, with
// the budget that fits it.
func tooBig(s *chain.Session, id string) (Finding, bool) {
	est := s.Main.ResumeTokens()
	win := chain.ContextWindow(est.Model)
	if est.Total() <= win {
		return Finding{}, false
	}
	return Finding{Kind: TooBig, SessionID: id, Path: s.Path, NeedsAttention: true, Tokens: est.Total(), ContextWindow: win, Model: est.Model,
		Fix: Fix{Kind: FixFit, TargetTokens: ops.FitTarget(win)}}, true
}

// emptyNewest finds an empty transcript that 'claude --continue' takes in
// the project of folder dir instead of its newest session: the project is
// the recorded cwd of the newest session filed at home in dir, and the
// client's pick there (chain.ContinuePick) is the empty file.
func emptyNewest(o Options, folders []string, dir string) (Finding, bool) {
	empties := chain.EmptySessionFiles(dir)
	if len(empties) == 0 {
		return Finding{}, false
	}
	sessions := chain.SessionsIn(dir)
	mtime := map[string]time.Time{}
	for _, p := range sessions {
		if st, err := os.Stat(p); err == nil {
			mtime[p] = st.ModTime()
		}
	}
	sort.SliceStable(sessions, func(i, j int) bool { return mtime[sessions[i]].After(mtime[sessions[j]]) })
	for _, s := range sessions {
		cwd := chain.RecordedCwdOf(s)
		if !clearPath(cwd) || !chain.FolderHoldsProject(o.GOOS, filepath.Base(dir), cwd, folders) {
			continue
		}
		newest := chain.NewestOf(chain.ClientSessions(o.ConfigDir, cwd))
		pick := chain.ContinuePick(o.ConfigDir, cwd)
		if newest == "" || pick == newest || filepath.Dir(pick) != dir {
			return Finding{}, false
		}
		id := strings.TrimSuffix(filepath.Base(pick), ".jsonl")
		return Finding{Kind: EmptyNewest, SessionID: id, Path: pick, Project: cwd, Folder: filepath.Base(dir),
			NeedsAttention: true, Shadows: newest, Fix: Fix{Kind: FixNone}}, true
	}
	return Finding{}, false
}

// notFiles names the entries of dir that are named like a session's main
// transcript (<name>.jsonl, not agent-*, not hidden) but are no regular
// file, and the regular ones that cannot be read (chain.SessionsIn leaves
// both out, so no other check sees them). Nothing but a regular file is
// opened: a FIFO would block.
func notFiles(dir string, listed map[string]bool) []Finding {
	var out []Finding
	for _, d := range chain.NamedLikeSessions(dir) {
		n := d.Name()
		id := strings.TrimSuffix(n, ".jsonl")
		p := filepath.Join(dir, n)
		if d.Type().IsRegular() {
			if listed[p] {
				continue
			}
			if fh, _, err := chain.OpenSideFile(p); err != nil { // never blocks on a FIFO put there since
				out = append(out, Finding{Kind: Unreadable, SessionID: id, Path: p, NeedsAttention: true, Error: err.Error(), Fix: Fix{Kind: FixNone}})
			} else {
				fh.Close()
			}
			continue
		}
		f := Finding{Kind: NotAFile, SessionID: id, Path: p, Fix: Fix{Kind: FixNone}}
		switch t := d.Type(); {
		case t&os.ModeSymlink != 0:
			f.Entry = "symlink"
			f.Target, _ = os.Readlink(p)
			st, err := os.Stat(p)
			f.NeedsAttention = err == nil && st.Mode().IsRegular()
		case t&os.ModeNamedPipe != 0:
			f.Entry = "fifo"
		case t.IsDir():
			f.Entry = "folder"
		default:
			f.Entry = "other"
		}
		out = append(out, f)
	}
	return out
}

// listedInRuns counts listedIn's runs (tests).
var listedInRuns atomic.Int64

// listedIn is the one existing project, among those the client knows,
// whose folder is folder: the client started there lists a session filed
// in it whose own working directory is gone (chain.HiddenFrom hides only
// one that exists). "" when there is none, or several (same slug).
func listedIn(goos, folder string, known, folders []string) string {
	listedInRuns.Add(1)
	found := ""
	seen := map[string]bool{}
	for _, k := range known {
		k = filepath.Clean(k)
		if seen[k] {
			continue
		}
		seen[k] = true
		if !chain.FolderHoldsProject(goos, folder, k, folders) {
			continue
		}
		if st, err := os.Stat(k); err != nil || !st.IsDir() {
			continue
		}
		if found != "" {
			return ""
		}
		found = k
	}
	return found
}
