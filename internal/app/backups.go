package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/validate"
)

// sessionIdentity finds the id, project folder and backup key of SESSION
// for backups and restore. The session file may be gone (restore brings it
// back): a path into a project folder of <config-dir>/projects, or an id
// or id prefix that matches no file, is taken with the folder its backups
// name, but only when that is a folder of <config-dir>/projects (restore
// writes nowhere else) and only one folder's backups hold that id.
func (env *Env) sessionIdentity(arg string) (id, projectDir, key string, err error) {
	p, err := chain.Locate(env.ConfigDir, arg)
	if err == nil {
		id, projectDir = strings.TrimSuffix(filepath.Base(p), ".jsonl"), filepath.Dir(p)
		return id, projectDir, backup.KeyFor(env.ConfigDir, id, projectDir), nil
	}
	projects, _ := filepath.Abs(chain.ProjectsDir(env.ConfigDir))
	if strings.HasSuffix(arg, ".jsonl") && strings.ContainsRune(arg, '/') {
		// a deleted session named by path
		a, aerr := filepath.Abs(arg)
		id, dir := strings.TrimSuffix(filepath.Base(a), ".jsonl"), filepath.Dir(a)
		if aerr != nil || !backup.InProjects(env.ConfigDir, dir) {
			return "", "", "", err
		}
		key := backup.KeyFor(env.ConfigDir, id, dir)
		if mine, _, lerr := backup.ListOf(env.ConfigDir, key, id, dir); lerr != nil || len(mine) == 0 {
			return "", "", "", err
		}
		return id, dir, key, nil
	}
	if len(arg) < 4 || len(arg) > 36 || strings.ContainsAny(arg, `/\.`) {
		return "", "", "", err
	}
	keys := backup.Keys(env.ConfigDir, arg)
	if len(keys) > 1 {
		return "", "", "", &Error{Msg: fmt.Sprintf("session id prefix %q matches the backups of %d sessions: %s", arg, len(keys), strings.Join(keys, ", ")),
			Hint: "give more of the id", Code: 2}
	}
	if len(keys) == 0 {
		return "", "", "", err
	}
	id = keys[0]
	list, lerr := backup.List(env.ConfigDir, id)
	if lerr != nil || len(list) == 0 {
		return "", "", "", err
	}
	var folders []string
	seen := map[string]bool{}
	for _, b := range list {
		if pd := filepath.Clean(b.ProjectDir); !seen[filepath.Base(pd)] {
			seen[filepath.Base(pd)] = true
			folders = append(folders, pd)
		}
	}
	if len(folders) > 1 {
		var paths []string
		for _, f := range folders {
			paths = append(paths, filepath.Join(f, id+".jsonl"))
		}
		sort.Strings(paths)
		return "", "", "", &Error{Msg: fmt.Sprintf("the backups of session %s are of %d files in different project folders: %s", id, len(paths), strings.Join(paths, ", ")),
			Hint: "name the one to restore by its path: 'ccsurgeon restore " + paths[0] + "'", Code: 2}
	}
	pd := folders[0]
	// a project folder of the config dir however it is reached (a config
	// dir that is a link: the backups of a session named by its path name
	// its real folder)
	if !backup.InProjects(env.ConfigDir, pd) {
		return "", "", "", &Error{Msg: fmt.Sprintf("the backups of %s name a folder outside %s: %s", id, projects, pd),
			Hint: "restore writes only into the project folders of the config dir", Code: 1}
	}
	return id, pd, id, nil
}

// sessionArg is how a printed command names the session file path: its id
// when the id finds that very file, else its path (a loose file, a
// subagent transcript, a copy of an id that is in several project folders).
func (env *Env) sessionArg(id, path string) string {
	if p, err := chain.Locate(env.ConfigDir, id); err == nil && sameFile(p, path) {
		return id
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	return ShellQuote(path)
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(fa, fb)
	}
	ca, _ := filepath.Abs(a)
	cb, _ := filepath.Abs(b)
	return ca == cb
}

// PurgeJSON is what `backups --purge --json` prints.
type PurgeJSON struct {
	SessionID string   `json:"session_id"`
	Removed   []string `json:"removed"`
}

// RestoreJSON is what `restore --json` prints (but for a move's backup:
// MoveUndoJSON).
type RestoreJSON struct {
	SessionID string   `json:"session_id"`
	Restored  string   `json:"restored"`
	Backup    *string  `json:"backup"`
	Written   []string `json:"written"`
	Removed   []string `json:"removed"`
}

// DiffJSON is what `diff --json` prints (line counts).
type DiffJSON struct {
	Identical bool `json:"identical"`
	Removed   int  `json:"removed"`
	Added     int  `json:"added"`
	Changed   int  `json:"changed"`
}

// BackupJSON is one row of `backups --json`.
type BackupJSON struct {
	Name      string    `json:"name"`
	Path      string    `json:"path"`
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	Size      int64     `json:"size"`
	Files     []string  `json:"files"`
	Original  bool      `json:"original"`
	// TakenIn: the project folder the backup was taken in, when that is
	// not the session's now (taken before a move brought it here)
	TakenIn string `json:"taken_in,omitempty"`
}

// RunBackups lists the backups of a session, the last made first; with
// purge it deletes them all.
func (env *Env) RunBackups(session string, purge bool) error {
	id, projectDir, key, err := env.sessionIdentity(session)
	if err != nil {
		return err
	}
	// under the session's lock, what an interrupted run left is finished
	// or removed first (a partial backup is never listed)
	l, lerr := backup.Lock(env.ConfigDir, key, "backups")
	if lerr == nil {
		defer l.Unlock()
		if projectDir != "" {
			did, _ := backup.RecoverIn(env.sweeps, env.ConfigDir, key, id, projectDir)
			for _, d := range did {
				env.Warnf("%s", d.Line())
			}
		}
	} else if purge {
		return lerr
	}
	if purge {
		removed, err := backup.PurgeOf(env.ConfigDir, key, id, projectDir)
		if err != nil {
			return err
		}
		if env.JSON {
			return env.printJSON(PurgeJSON{id, append([]string{}, removed...)})
		}
		fmt.Fprintf(env.Out, "removed %s of %s\n", Plural(len(removed), "backup", "backups"), id)
		for _, r := range removed {
			fmt.Fprintf(env.Out, "  %s\n", r)
		}
		return nil
	}
	list, others, err := backup.ListOf(env.ConfigDir, key, id, projectDir)
	if err != nil {
		return err
	}
	rows := []BackupJSON{}
	for _, b := range list {
		r := BackupJSON{Name: b.Name, Path: b.Dir, Time: b.Time, Operation: b.Op, Size: b.Size(), Original: b.Original}
		if !backup.Belongs(b, id, projectDir) {
			r.TakenIn = b.ProjectDir
		}
		for _, f := range b.Files {
			r.Files = append(r.Files, f.Rel)
		}
		rows = append(rows, r)
	}
	if env.JSON {
		return env.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(env.Err, "no backups of %s under %s\n", filepath.Join(projectDir, id+".jsonl"), backup.BackupsRoot(env.ConfigDir))
		if len(others) > 0 {
			fmt.Fprintf(env.Err, "note: session %s has backups of another copy: 'ccsurgeon backups %s' lists them\n", id, filepath.Join(others[0].ProjectDir, id+".jsonl"))
		}
		return nil
	}
	w := tabwriter.NewWriter(env.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "BACKUP\tTIME\tOPERATION\tSIZE\tFILES")
	for _, r := range rows {
		op := r.Operation
		if r.Original {
			op += " (original)"
		}
		if r.TakenIn != "" {
			op += " (before a move, in " + filepath.Base(r.TakenIn) + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", r.Name, r.Time.Local().Format("2006-01-02 15:04:05"), op, HumanBytes(r.Size), len(r.Files))
	}
	return w.Flush()
}

// RunRestore puts a backup back (default: the last made), after backing
// up the current state so that the restore can be undone too. Only the
// session's own files are written, at the paths ccsurgeon derives; a main
// transcript that would not resume is refused unless force.
func (env *Env) RunRestore(session, which string, force bool) error {
	return env.RunRestoreWith(session, which, RestoreFlags{Force: force})
}

// RestoreFlags are restore's flags.
type RestoreFlags struct {
	Force bool // skip the live-session guard (and restore a backup that would not resume)
	// UndoAnyway: undo a move even when the session was written since
	// (what was written since is kept in the undo's backup)
	UndoAnyway bool
}

// RunRestoreWith is RunRestore with all of restore's flags.
func (env *Env) RunRestoreWith(session, which string, flags RestoreFlags) error {
	force := flags.Force
	id, projectDir, key, err := env.sessionIdentity(session)
	if err != nil {
		return err
	}
	check := func(f backup.BackupFile, src string) error {
		if !strings.HasSuffix(f.Rel, ".jsonl") {
			return nil
		}
		if err := chain.IsSessionFile(src); err != nil {
			return &Error{Msg: fmt.Sprintf("backup file %s is not a session: %v", f.Rel, err), Hint: "choose another backup with 'ccsurgeon backups'", Code: 1}
		}
		if force || f.Rel != id+".jsonl" {
			return nil
		}
		fl, err := chain.LoadFile(src)
		if err != nil {
			return err
		}
		defer fl.Close()
		var errs []validate.Problem
		for _, p := range validate.File(fl, id) {
			if p.Severity == validate.Error {
				errs = append(errs, p)
			}
		}
		if len(errs) > 0 {
			return &Error{Msg: fmt.Sprintf("the backup of %s would not resume: %s, the first: %s", f.Rel, Plural(len(errs), "validation error", "validation errors"), errs[0].Message),
				Hint: "check it with 'ccsurgeon validate " + src + "'; pass --force to restore it anyway", Code: 1}
		}
		return nil
	}
	if b, err := backup.FindOf(env.ConfigDir, key, id, projectDir, which); err == nil && b.Move != nil {
		if !backup.UndoesHere(b, id, projectDir) {
			// the backup of an earlier move (into a folder the session
			// has left since, or out of this one, to which a later move
			// brought it back): the newer move is undone first
			e := &backup.MovedSinceError{Name: b.Name, From: b.ProjectDir, To: projectDir, SessionID: id}
			if mine, _, err := backup.ListOf(env.ConfigDir, key, id, projectDir); err == nil {
				for _, m := range mine {
					if m.Move != nil {
						e.Undo = m
						break
					}
				}
			}
			return e
		}
		return env.undoMove(b, flags) // files go back to their old folder
	}
	res, b, err := backup.Restore(backup.RestoreOptions{ConfigDir: env.ConfigDir, SessionID: id, Key: key, ProjectDir: projectDir,
		Which: which, Force: force, Check: check, Named: !env.Listed})
	var nb *backup.NoBackupError
	if errors.As(err, &nb) && nb.Other == "" {
		if which != "" {
			// a BACKUP named (a path to another session's, say) for a
			// session without any: the list says there is none to name
			return &Error{Msg: err.Error() + fmt.Sprintf(" (so none named %q)", which), Hint: "list them with '" + env.Self() + " backups " + ShellQuote(session) + "'", Code: 1, Err: err}
		}
		return &Error{Msg: err.Error(), Hint: "nothing to undo: ccsurgeon backs a session up before each change in place; this one was never changed by it, or only with --no-backup, or its backups were purged", Code: 1, Err: err}
	}
	if errors.Is(err, backup.ErrNoBackup) && !errors.Is(err, backup.ErrAmbiguous) && which != "" {
		// a BACKUP no backup of this session is named: the names to
		// give are the ones its list prints
		return &Error{Msg: fmt.Sprintf("no backup of %s is named %q", filepath.Join(projectDir, id+".jsonl"), which),
			Hint: "restore takes a name (or a unique prefix of one) that '" + env.Self() + " backups " + ShellQuote(session) + "' prints", Code: 1, Err: err}
	}
	if err != nil {
		return err
	}
	if env.JSON {
		var bk *string
		if res.BackupDir != "" {
			bk = &res.BackupDir
		}
		return env.printJSON(RestoreJSON{id, b.Name, bk, append([]string{}, res.Written...), append([]string{}, res.Removed...)}) // lists, never null
	}
	fmt.Fprintf(env.Out, "restored %s from %s (%s)\n", id, b.Name, b.Op)
	for _, p := range res.Written {
		fmt.Fprintf(env.Out, "  wrote %s\n", p)
	}
	for _, p := range res.Removed {
		fmt.Fprintf(env.Out, "  removed %s\n", p)
	}
	if res.BackupDir != "" {
		fmt.Fprintf(env.Out, "the state before the restore is in %s (undo with '%s restore %s')\n", res.BackupDir, env.Self(), env.sessionArg(id, filepath.Join(projectDir, id+".jsonl")))
	}
	return nil
}

// DiffOptions are the options of `diff`.
type DiffOptions struct {
	A, B        string // B empty: A against its newest backup
	IgnoreUUIDs bool
	WholeLines  bool // print long lines whole
}

// RunDiff prints a unified line diff of two sessions or files, or of a
// session's newest backup against the session; exit 1 when they differ,
// like diff(1). It streams both files (see backup.DiffStream).
func (env *Env) RunDiff(o DiffOptions) error {
	locate := func(arg string) (string, string, error) {
		p, err := chain.Locate(env.ConfigDir, arg)
		if err != nil {
			return "", "", err
		}
		// the session id its entries carry (a clone written with -o to
		// a file of another name is still its session), else its name's
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if in := sessionIDIn(p); in != "" {
			id = in
		}
		return p, id, nil
	}
	pb, idb, err := locate(o.A)
	if err != nil {
		return err
	}
	var pa, ida string
	if o.B == "" { // the newest backup against the session as it is
		b, err := backup.FindOf(env.ConfigDir, backup.KeyFor(env.ConfigDir, idb, filepath.Dir(pb)), idb, filepath.Dir(pb), "")
		if err != nil {
			return &Error{Msg: fmt.Sprintf("no backups of session %s", idb), Hint: "name a second session or file to compare it with", Code: 1}
		}
		for _, f := range b.Files {
			if filepath.Clean(f.Path) == filepath.Clean(pb) {
				pa = filepath.Join(b.Dir, filepath.FromSlash(f.Rel))
			}
		}
		if pa == "" {
			return &Error{Msg: fmt.Sprintf("the newest backup of %s (%s) holds no copy of %s", idb, b.Name, pb), Hint: "list the backups with 'ccsurgeon backups " + env.sessionArg(idb, pb) + "'", Code: 1}
		}
		ida = idb
	} else {
		pa, ida = pb, idb
		if pb, idb, err = locate(o.B); err != nil {
			return err
		}
	}
	opts := backup.DiffOptions{NameA: pa, NameB: pb, IgnoreUUIDs: o.IgnoreUUIDs, SessionA: ida, SessionB: idb}
	if o.WholeLines {
		opts.MaxLine = -1
	}
	var w io.Writer = env.Out
	if env.JSON {
		w = nil
	}
	openA := backup.FileOpener(pa)
	if o.B == "" {
		// the backup's copy, ccsurgeon's own file: what makes it unreadable
		// is no fault of the session the user named
		inner := openA
		openA = func() (io.ReadCloser, error) {
			r, err := inner()
			if err != nil {
				return nil, &Error{Msg: fmt.Sprintf("diff: the newest backup's copy of session %s cannot be read: %v", ida, err),
					Hint: "list the backups with 'ccsurgeon backups " + env.sessionArg(ida, pb) + "'", Code: 1, Err: err}
			}
			return r, nil
		}
	}
	st, err := backup.DiffStream(openA, backup.FileOpener(pb), w, opts)
	if err != nil {
		var worded *Error
		if errors.As(err, &worded) {
			return err
		}
		return Errorf("diff: %v", err)
	}
	if env.JSON {
		if err := env.printJSON(DiffJSON{st.Empty(), st.Removed, st.Added, st.Changed}); err != nil {
			return err
		}
	}
	if st.Shortened > 0 {
		fmt.Fprintf(env.Err, "ccsurgeon: note: %s shortened around the first difference; --whole-lines shows them whole\n", Plural(st.Shortened, "long line", "long lines"))
	}
	if !st.Empty() {
		return &Error{Code: 1}
	}
	return nil
}

var sessionIDRe = regexp.MustCompile(`"sessionId":"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"`)

// sessionIDIn is the session id the file at path carries: the first
// sessionId of its first 4 MB ("" when there is none).
func sessionIDIn(path string) string {
	fh, _, err := chain.OpenSideFile(path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	b, _ := io.ReadAll(io.LimitReader(fh, 4<<20))
	if m := sessionIDRe.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}
