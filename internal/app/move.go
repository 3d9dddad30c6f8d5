package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/google/uuid"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// MoveOptions are the options of `move`.
type MoveOptions struct {
	Session      string // SESSION: move one session (and its sidecars)
	Project      string // OLD: move every session of the project at OLD
	To           string // DIR / NEW: the project path the sessions belong to after the move
	RewritePaths bool   // also rewrite the old path in tool inputs and results
	DryRun       bool
	Force        bool
}

// MoveResult is what `move --json` prints.
type MoveResult struct {
	Operation      string            `json:"operation"`
	DryRun         bool              `json:"dry_run"`
	From           string            `json:"from"`
	To             string            `json:"to"`
	Sessions       []MovedSession    `json:"sessions"`
	ProjectFiles   []MovedFile       `json:"project_files"`
	HistoryPrompts int               `json:"history_prompts"`
	IndexEntries   int               `json:"index_entries"`
	PathRewrites   []ops.PathChange  `json:"path_rewrites"`
	Recovered      []string          `json:"recovered"`
	Notes          []string          `json:"notes"`
	Backups        map[string]string `json:"backups"`
}

// MoveUndoJSON is what `restore --json` prints when the backup it puts
// back is a move's: the whole move undone.
type MoveUndoJSON struct {
	Restored string            `json:"restored"`
	Sessions []string          `json:"sessions"`
	Files    int               `json:"files"`
	Backups  map[string]string `json:"backups"`
	// ChangedSinceMove: the transcripts written since the move (undone
	// with --undo-anyway: what was written since is in Backups)
	ChangedSinceMove []string `json:"changed_since_move"`
}

// MovedSession is one session of a move.
type MovedSession struct {
	SessionID     string `json:"session_id"`
	From          string `json:"from"` // main transcript before
	To            string `json:"to"`   // and after
	Project       string `json:"project"`
	Files         int    `json:"files"` // files moved, the transcript included
	FieldsChanged int    `json:"path_fields_rewritten"`
	ResumeCommand string `json:"resume_command"`
	Backup        string `json:"backup,omitempty"`
}

// MovedFile is a project file (memory/, …) that moves with its project.
type MovedFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// moveRecord is saved with every backup of a move: what restore needs to
// undo the whole move in one command.
type moveRecord struct {
	// MoveID names the move: each session's backup carries its own
	// record (its files, and the project's own), all with this id; a
	// record without one (older versions) is the whole move's, the same
	// in every backup
	MoveID   string         `json:"move_id,omitempty"`
	From     string         `json:"from"`
	To       string         `json:"to"`
	Project  bool           `json:"project"`
	Sessions []string       `json:"sessions"`
	Files    []backup.Moved `json:"files"`
	// Rewritten are transcripts rewritten where they are (a new path with
	// the same slug as the old one)
	Rewritten []string `json:"rewritten"`
	// Dirs are the empty folders of the project that moved with it
	Dirs []backup.Moved `json:"dirs,omitempty"`
}

// sessionMove is one session to move.
type sessionMove struct {
	path, id      string
	from, to      string // its project path before and after
	oldDir, dstDr string // its project folder before and after
}

// NewPathPlaceholder stands for a project's new place in the move
// commands ls and doctor print when they cannot guess it; move refuses it
// as a --to.
const NewPathPlaceholder = "NEW-PATH"

// RunMove moves one session, or every session of a project, to the
// project folder of another path.
func (env *Env) RunMove(o MoveOptions) error {
	out := MoveResult{Operation: "move", DryRun: o.DryRun, Sessions: []MovedSession{}, ProjectFiles: []MovedFile{}}
	if !o.DryRun {
		// one move at a time: the recovery below would take a running
		// move's journal for a killed one's
		lock, err := backup.LockMoves(env.ConfigDir)
		if err != nil {
			return err
		}
		defer lock.Unlock()
		rec, err := backup.RecoverMoves(env.ConfigDir)
		for _, r := range rec {
			env.Sayf("%s", r)
		}
		out.Recovered = rec
		if err != nil {
			return Errorf("an interrupted move could not be finished: %v", err)
		}
	}
	if o.To == "" {
		return UsageErrorf("give the new place with --to DIR", "move needs --to")
	}
	if o.To == NewPathPlaceholder {
		// ls's and doctor's command pasted as printed: it would move the
		// sessions into the project "./NEW-PATH", which no client runs in
		here, _ := os.Getwd()
		return UsageErrorf("such as this one: --to "+ShellQuote(here),
			"--to %s is the placeholder 'ccsurgeon ls' and doctor print: give the folder the project is in now", o.To)
	}
	if isWindowsPathHere(o.To) {
		// it would move the sessions to a project of the current folder
		// no client runs in ("./C:\Users\ana\proj"); --project takes
		// one: a session made on Windows records such a directory
		example, _ := os.Getwd()
		return UsageErrorf("give the project's folder as this system writes it, such as "+ShellQuote(example),
			"--to %s is a Windows path: here '\\' is part of a file name and a path starts at '/'", o.To)
	}
	if err := tildeLeftAsTyped("--to", o.To); err != nil {
		return err
	}
	to, err := absClean(o.To)
	if err == nil {
		// the client names a project by the real path of its folder
		// (realpath of its cwd): a --to reached through a symlink (on
		// macOS, anything under /tmp or /var) is that folder's real path
		if real, rerr := filepath.EvalSymlinks(to); rerr == nil {
			to = real
		}
	}
	if err != nil {
		return err
	}
	var moves []sessionMove
	var from string
	switch {
	case o.Session != "" && o.Project != "":
		return UsageErrorf("give a SESSION or --project OLD", "move takes a SESSION or --project, not both")
	case o.Session != "":
		p, err := chain.Locate(env.ConfigDir, o.Session)
		if err != nil {
			return err
		}
		if p, err = env.insideProjects(p); err != nil {
			return err
		}
		from = projectPathOf(p)
		if from == "" {
			return Errorf("cannot tell which project %s belongs to: no entry has a cwd", p)
		}
		moves = []sessionMove{{path: p, id: strings.TrimSuffix(filepath.Base(p), ".jsonl"), from: from, to: to, oldDir: filepath.Dir(p)}}
	case o.Project != "":
		if from, err = absClean(o.Project); err != nil {
			return err
		}
		if moves, err = env.projectSessions(from, to); err != nil {
			return err
		}
	default:
		return UsageErrorf("give a SESSION or --project OLD", "move needs a SESSION or --project OLD")
	}
	// a session of to filed under another folder (an old naming rule, a
	// folder renamed by hand: what doctor calls stranded) moves to to's
	// folder with its paths as they are
	stranded := o.Session != "" && len(moves) == 1 && !chain.SameName(chain.HostOS, moves[0].oldDir, chain.ProjectDirOf(env.ConfigDir, to))
	if from == to && !stranded {
		return UsageErrorf("give the project's new path", "%s is already the project path", to)
	}
	if under(to, from) {
		return UsageErrorf("move the project elsewhere", "%s is inside %s", to, from)
	}
	out.From, out.To = from, to
	for i := range moves {
		moves[i].dstDr = chain.ProjectDirOf(env.ConfigDir, moves[i].to)
	}
	if o.Project != "" && len(moves) == 0 && len(env.projectFolders(from)) == 0 {
		if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
			return err
		}
		return &Error{Msg: fmt.Sprintf("no sessions of %s under %s", from, chain.ProjectsDir(env.ConfigDir)),
			Hint: "'ccsurgeon ls' lists the projects, with those whose folder is gone", Code: 1}
	}
	if o.Project != "" && len(moves) == 0 {
		if err := env.nothingToMove(o, from, to); err != nil {
			return err
		}
	}
	if _, err := os.Stat(to); err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("%s does not exist (yet): the client resumes the sessions from there once it does", to))
	}
	return env.runMove(o, from, to, moves, &out)
}

// nothingToMove explains a --project move that matched no session although
// the project's folder is there: its sessions record another cwd (copied
// from another machine, or moved by hand), so they are that project's, not
// from's. The hint is the move of the project they record.
func (env *Env) nothingToMove(o MoveOptions, from, to string) error {
	for _, dir := range env.projectFolders(from) {
		var cwds []string
		count := map[string]int{}
		n := 0
		for _, f := range chain.SessionsIn(dir) {
			n++
			if p := projectPathOf(f); p != "" {
				if count[p] == 0 {
					cwds = append(cwds, p)
				}
				count[p]++
			}
		}
		if n == 0 {
			continue
		}
		if len(cwds) == 0 {
			return &Error{Msg: fmt.Sprintf("no session of %s to move: its folder %s holds %s, but no entry records a working directory", from, dir, Plural(n, "session", "sessions")),
				Hint: fmt.Sprintf("list them with 'ccsurgeon --config-dir %s ls --project %s', then move each by its id with --to %s", ShellQuote(env.ConfigDir), ShellQuote(dir), ShellQuote(to)), Code: 1}
		}
		sort.SliceStable(cwds, func(i, j int) bool { return count[cwds[i]] > count[cwds[j]] })
		which := "another working directory: " + cwds[0]
		if len(cwds) > 1 {
			which = "other working directories: " + strings.Join(cwds, ", ")
		}
		hint := []string{"ccsurgeon", "--config-dir", ShellQuote(env.ConfigDir), "move", "--project", ShellQuote(cwds[0]), "--to", ShellQuote(to)}
		for _, f := range []struct {
			on   bool
			flag string
		}{{o.RewritePaths, "--rewrite-paths"}, {o.DryRun, "--dry-run"}, {o.Force, "--force"}} {
			if f.on {
				hint = append(hint, f.flag)
			}
		}
		return &Error{Msg: fmt.Sprintf("no session of %s to move: its folder %s holds %s, whose entries record %s (copied from another machine?)", from, dir, Plural(n, "session", "sessions"), which),
			Hint: strings.Join(hint, " "), Code: 1}
	}
	return nil
}

func (env *Env) runMove(o MoveOptions, from, to string, moves []sessionMove, out *MoveResult) error {
	plan := backup.MovePlan{ConfigDir: env.ConfigDir, Force: o.Force, Sweeps: env.sweeps}
	rec := moveRecord{From: from, To: to, Project: o.Project != ""}
	moved := map[string]bool{}
	var gates []func() error
	for _, m := range moves {
		ms, files, edits, gate, sess, err := env.planSession(m, from, to, o.RewritePaths, o.DryRun, out)
		if err != nil {
			return err
		}
		defer sess.Close()
		plan.Files = append(plan.Files, files...)
		plan.Edits = append(plan.Edits, edits...)
		plan.Sessions = append(plan.Sessions, ms)
		gates = append(gates, gate)
		rec.Sessions = append(rec.Sessions, m.id)
		moved[m.id] = true
	}
	if o.Project != "" {
		for _, dir := range env.projectFolders(from) {
			files, empty, err := ownFiles(dir, moved)
			if err != nil {
				return err
			}
			path := folderProjectPath(dir, from)
			dst := chain.ProjectDirOf(env.ConfigDir, to+strings.TrimPrefix(path, from))
			if chain.SameName(chain.HostOS, dst, dir) {
				continue // same slug: the folder stays
			}
			for _, f := range files {
				rel, _ := filepath.Rel(dir, f)
				mf := backup.MoveFile{From: f, To: filepath.Join(dst, rel)}
				plan.Files = append(plan.Files, mf)
				out.ProjectFiles = append(out.ProjectFiles, MovedFile{From: mf.From, To: mf.To})
			}
			for _, d := range empty {
				rel, _ := filepath.Rel(dir, d)
				md := backup.Moved{From: d, To: filepath.Join(dst, rel)}
				plan.Dirs = append(plan.Dirs, md)
				rec.Dirs = append(rec.Dirs, md)
				sep := string(filepath.Separator)
				out.ProjectFiles = append(out.ProjectFiles, MovedFile{From: md.From + sep, To: md.To + sep})
			}
		}
	}
	edits, nHist, nIdx, err := env.sharedEdits(moves, from, to, o.Project != "")
	if err != nil {
		return err
	}
	plan.Edits = append(plan.Edits, edits...)
	out.HistoryPrompts, out.IndexEntries = nHist, nIdx
	for _, f := range plan.Files {
		rec.Files = append(rec.Files, backup.Moved{From: f.From, To: f.To})
	}
	for _, e := range plan.Edits {
		if strings.HasSuffix(e.Path, ".jsonl") && e.Path != filepath.Join(env.ConfigDir, "history.jsonl") {
			rec.Rewritten = append(rec.Rewritten, e.Path)
		}
	}
	// what the move itself refuses (two files to one place, a file already
	// there, a symlink on the way), the dry run refuses too
	if err := backup.CheckMove(plan); err != nil {
		return err
	}
	// the gate: every rewritten transcript is validated against its input
	// before anything is written (and again as it is written)
	for _, g := range gates {
		if err := g(); err != nil {
			return err
		}
	}
	if o.DryRun {
		return env.printMove(*out)
	}
	rec.MoveID = uuid.NewString()
	if plan.Records, err = rec.records(plan.Sessions); err != nil {
		return err
	}
	res, err := backup.Move(plan)
	if err != nil {
		return err
	}
	for i := range out.Sessions {
		out.Sessions[i].Backup = res.BackupOf[out.Sessions[i].From]
	}
	out.Backups = res.Backups
	out.Notes = append(out.Notes, res.Warnings...)
	return env.printMove(*out)
}

// planSession loads one session, relocates it through the gate and lists
// its files' moves.
// A session whose new project path has the same slug as its old one stays
// in its folder: its transcripts are rewritten in place.
func (env *Env) planSession(m sessionMove, from, to string, rewrite, dryRun bool, out *MoveResult) (ms backup.MoveSession, files []backup.MoveFile, edits []backup.MoveEdit, gate func() error, s *chain.Session, err error) {
	ms = backup.MoveSession{ID: m.id, ProjectDir: m.oldDir}
	mainSnap, err := backup.TakeSnapshot(m.path)
	if err != nil {
		return
	}
	var mainHash *backup.FileHash
	if !dryRun {
		// the backup's checksum of the transcript, read while it is
		// indexed and its paths counted (on one core before the
		// write, it was half a second of a move of 935 MB)
		mainHash = backup.HashAhead(m.path)
	}
	pr := env.newProgress()
	defer pr.Done()
	if s, err = chain.LoadWith(m.path, pr.Add); err != nil {
		return
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	op := &ops.Relocate{From: from, To: to, RewritePaths: rewrite}
	t := ops.NewTxn(s)
	pipe := ops.Pipeline{op}
	if from == to { // a stranded session put in place: no path changes
		pipe = nil
	}
	if err = pipe.Apply(t); err != nil {
		return
	}
	j := &job{env: env, t: t, op: "move", pr: pr, sizes: map[*chain.File]int64{}, uncounted: true}
	rendered := map[string]*chain.File{}
	for _, f := range s.Files() {
		rendered[f.Path] = f
	}
	add := func(src string) error {
		snap := mainSnap
		if src != m.path {
			if snap, err = backup.TakeSnapshot(src); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(m.oldDir, src)
		dst := filepath.Join(m.dstDr, rel)
		ms.Files = append(ms.Files, src)
		f := rendered[src]
		if chain.SameName(chain.HostOS, m.oldDir, m.dstDr) {
			if f != nil && t.Touches(f) {
				edits = append(edits, backup.MoveEdit{Path: src, Snapshot: snap, Render: j.render(f, dst), KeepTime: true})
			}
			return nil
		}
		mf := backup.MoveFile{From: src, To: dst, Snapshot: snap}
		if f != nil {
			mf.Render = j.render(f, dst)
		}
		if src == m.path {
			mf.Hash = mainHash
		}
		files = append(files, mf)
		return nil
	}
	for _, a := range s.Subagents {
		if a.Legacy {
			if err = add(a.File.Path); err != nil {
				return
			}
		}
	}
	side := s.SidecarDir()
	if st, lerr := os.Lstat(side); lerr == nil && st.IsDir() {
		err = filepath.WalkDir(side, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if backup.IsMoveTemp(d.Name()) {
				return nil
			}
			return add(p)
		})
		if err != nil {
			return
		}
	}
	if err = add(s.Path); err != nil { // the transcript last: a session is where its transcript is
		return
	}
	row := MovedSession{SessionID: m.id, From: m.path, To: filepath.Join(m.dstDr, m.id+".jsonl"), Project: m.to,
		Files: len(ms.Files), FieldsChanged: t.Report.Counts[ops.CountPathsRewritten],
		ResumeCommand: ResumeCmd(m.to, m.id)}
	out.Sessions = append(out.Sessions, row)
	out.PathRewrites = append(out.PathRewrites, op.Changes...)
	gate = func() error {
		for _, f := range s.Files() {
			if !dryRun && j.cannotFailGate(f) {
				// its write finds what a render here would (a read
				// that fails), before the point of no return: rendered
				// here too, each line of a session of a million small
				// entries was rewritten twice (a third of a move's CPU)
				continue
			}
			if err := j.render(f, f.Path+" (after move)")(io.Discard); err != nil {
				return j.explain(err, m.id)
			}
		}
		return nil
	}
	return ms, files, edits, gate, s, nil
}

// projectSessions finds the sessions whose project path is from or a
// folder under it, in every project folder.
func (env *Env) projectSessions(from, to string) ([]sessionMove, error) {
	paths, err := chain.ListSessions(env.ConfigDir)
	if err != nil {
		return nil, err
	}
	var out []sessionMove
	for _, p := range paths {
		path := projectPathOf(p)
		if path == "" && chain.SameName(chain.HostOS, filepath.Base(filepath.Dir(p)), chain.ProjectSlug(from)) {
			path = from
		}
		if path == "" || !(path == from || under(path, from)) {
			continue
		}
		if p, err = env.insideProjects(p); err != nil {
			return nil, err
		}
		out = append(out, sessionMove{path: p, id: strings.TrimSuffix(filepath.Base(p), ".jsonl"),
			from: path, to: to + strings.TrimPrefix(path, from), oldDir: filepath.Dir(p)})
	}
	return out, nil
}

// projectFolders are the project folders of from and of its subfolders.
func (env *Env) projectFolders(from string) []string {
	root := chain.ProjectsDir(env.ConfigDir)
	des, _ := os.ReadDir(root)
	var out []string
	for _, d := range des {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, d.Name())
		if p := folderProjectPath(dir, from); p == from || under(p, from) {
			out = append(out, dir)
		}
	}
	return out
}

// folderProjectPath is the project path of a project folder: that of its
// sessions, else its index's originalPath; from for the folder of from
// itself.
func folderProjectPath(dir, from string) string {
	if chain.SameName(chain.HostOS, filepath.Base(dir), chain.ProjectSlug(from)) {
		return from
	}
	for _, f := range chain.SessionsIn(dir) {
		if p := projectPathOf(f); p != "" && chain.SameName(chain.HostOS, chain.ProjectSlug(p), filepath.Base(dir)) {
			return p
		}
	}
	if b, err := chain.ReadSideFile(filepath.Join(dir, "sessions-index.json")); err == nil {
		if p := gjson.GetBytes(b, "originalPath").Str; p != "" {
			return p
		}
	}
	return ""
}

// ownFiles are the files of a project folder that belong to no session
// (memory/, …): not a transcript, not a session's folder, not a subagent
// transcript of a moved session, not the index (which is rewritten); and
// its folders of that kind that hold nothing (empty, outermost first: a
// memory/ the client made before it wrote a note), which move too.
func ownFiles(dir string, moved map[string]bool) (out, empty []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && (moved[top] || isSessionDir(dir, top)):
			return filepath.SkipDir
		case d.IsDir():
			if d.Type()&fs.ModeSymlink == 0 {
				if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
					empty = append(empty, p)
				}
			}
			return nil
		case rel == "sessions-index.json", backup.IsMoveTemp(d.Name()):
			return nil
		case !strings.Contains(rel, string(filepath.Separator)) && strings.HasSuffix(rel, ".jsonl"):
			id := strings.TrimSuffix(rel, ".jsonl")
			if moved[id] || !strings.HasPrefix(id, "agent-") || legacyOfMoved(p, moved) {
				return nil
			}
		}
		out = append(out, p)
		return nil
	})
	return out, empty, err
}

func isSessionDir(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name+".jsonl"))
	return err == nil
}

func legacyOfMoved(p string, moved map[string]bool) bool {
	b := make([]byte, 64<<10)
	fh, err := chain.OpenShared(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	n, _ := fh.Read(b)
	for _, line := range bytes.Split(b[:n], []byte("\n")) {
		if id := gjson.GetBytes(line, "sessionId").Str; id != "" {
			return moved[id]
		}
	}
	return false
}

// projectPathOf is the project path a session belongs to: the client's
// recorded cwd (chain.RecordedCwdOf: after /cd the relocatedCwd, not the
// cwd of the turns before it), cleaned; "" when none is recorded.
func projectPathOf(path string) string {
	if c := chain.RecordedCwdOf(path); c != "" {
		return filepath.Clean(c)
	}
	return ""
}

// sharedEdits rewrites history.jsonl (the project of the moved sessions'
// prompts; for a project move, of every prompt of the project) and moves
// the sessions' entries between sessions-index.json files.
func (env *Env) sharedEdits(moves []sessionMove, from, to string, project bool) ([]backup.MoveEdit, int, int, error) {
	var edits []backup.MoveEdit
	ids := map[string]*sessionMove{}
	for i := range moves {
		ids[moves[i].id] = &moves[i]
	}
	hist := filepath.Join(env.ConfigDir, "history.jsonl")
	nHist := 0
	if st, err := os.Lstat(hist); err == nil && !st.Mode().IsRegular() {
		kind := "not a regular file"
		if st.Mode()&os.ModeSymlink != 0 {
			kind = "a symlink"
		}
		env.Warnf("%s is %s: left as it is, its prompts keep the old path", hist, kind)
	} else if err == nil {
		f, err := chain.LoadFile(hist)
		if err != nil {
			return nil, 0, 0, err
		}
		ed := chain.NewEdits()
		for i := range f.Entries {
			if f.Entries[i].Kind != chain.KindEntry {
				continue
			}
			raw, err := f.Raw(i)
			if err != nil {
				f.Close()
				return nil, 0, 0, err
			}
			p := gjson.GetBytes(raw, "project")
			sid := gjson.GetBytes(raw, "sessionId").Str
			if p.Type != gjson.String || !(p.Str == from || under(p.Str, from)) || !(project || ids[sid] != nil) {
				continue
			}
			nr, err := sjson.SetRawBytes(raw, "project", ops.EncodeString(to+strings.TrimPrefix(p.Str, from)))
			if err != nil {
				f.Close()
				return nil, 0, 0, err
			}
			ed.Get(i).Raw = nr
			nHist++
		}
		if nHist > 0 {
			snap, err := backup.TakeSnapshot(hist)
			if err != nil {
				f.Close()
				return nil, 0, 0, err
			}
			edits = append(edits, backup.MoveEdit{Path: hist, Snapshot: snap, Render: func(w io.Writer) error {
				defer f.Close()
				_, err := f.Write(w, ed, nil)
				return err
			}})
		} else {
			f.Close()
		}
	}
	idxEdits, nIdx, err := indexEdits(moves, from, to)
	return append(edits, idxEdits...), nHist, nIdx, err
}

// indexEdits takes the moved sessions' entries out of the old folders'
// sessions-index.json and puts them, with their new paths, in the new
// folders' (made where the old one had an index).
func indexEdits(moves []sessionMove, from, to string) ([]backup.MoveEdit, int, error) {
	type index struct {
		doc     []byte
		snap    *backup.Snapshot
		removed map[string]bool
		added   [][]byte
		path    string
	}
	idx := map[string]*index{}
	load := func(dir string) (*index, error) {
		if x, ok := idx[dir]; ok {
			return x, nil
		}
		x := &index{path: filepath.Join(dir, "sessions-index.json"), removed: map[string]bool{}}
		if b, err := chain.ReadSideFile(x.path); err == nil && gjson.ValidBytes(b) && gjson.GetBytes(b, "entries").IsArray() {
			x.doc = b
			var err error
			if x.snap, err = backup.TakeSnapshot(x.path); err != nil {
				return nil, err
			}
		}
		idx[dir] = x
		return x, nil
	}
	n := 0
	for _, m := range moves {
		src, err := load(m.oldDir)
		if err != nil {
			return nil, 0, err
		}
		dst, err := load(m.dstDr)
		if err != nil {
			return nil, 0, err
		}
		if src.doc == nil {
			continue
		}
		var entry []byte
		gjson.GetBytes(src.doc, "entries").ForEach(func(_, e gjson.Result) bool {
			if e.Get("sessionId").Str == m.id {
				entry = []byte(e.Raw)
				return false
			}
			return true
		})
		if entry == nil {
			continue
		}
		src.removed[m.id] = true
		entry, _ = sjson.SetRawBytes(entry, "fullPath", ops.EncodeString(filepath.Join(m.dstDr, m.id+".jsonl")))
		if pp := gjson.GetBytes(entry, "projectPath").Str; pp == from || under(pp, from) {
			entry, _ = sjson.SetRawBytes(entry, "projectPath", ops.EncodeString(to+strings.TrimPrefix(pp, from)))
		}
		if dst.doc == nil {
			dst.doc = []byte(`{"version":1,"entries":[],"originalPath":` + string(ops.EncodeString(m.to)) + `}`)
		}
		dst.added = append(dst.added, entry)
		n++
	}
	var edits []backup.MoveEdit
	dirs := make([]string, 0, len(idx))
	for d := range idx {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		x := idx[d]
		if len(x.removed) == 0 && len(x.added) == 0 {
			continue
		}
		var kept [][]byte
		gjson.GetBytes(x.doc, "entries").ForEach(func(_, e gjson.Result) bool {
			if !x.removed[e.Get("sessionId").Str] {
				kept = append(kept, []byte(e.Raw))
			}
			return true
		})
		kept = append(kept, x.added...)
		if len(kept) == 0 && x.snap != nil {
			edits = append(edits, backup.MoveEdit{Path: x.path, Snapshot: x.snap, Remove: true})
			continue
		}
		doc, err := sjson.SetRawBytes(x.doc, "entries", append(append([]byte("["), bytes.Join(kept, []byte(","))...), ']'))
		if err != nil {
			return nil, 0, err
		}
		edits = append(edits, backup.MoveEdit{Path: x.path, Snapshot: x.snap, Render: func(w io.Writer) error { _, err := w.Write(doc); return err }})
	}
	return edits, n, nil
}

func (env *Env) printMove(out MoveResult) error {
	if env.JSON {
		return env.printJSON(out)
	}
	w := env.Out
	verb := "moved"
	if out.DryRun {
		verb = "would move"
	}
	if out.From == out.To && len(out.Sessions) == 1 {
		// a stranded session put in place: its project stays, its folder changes
		s := out.Sessions[0]
		fmt.Fprintf(w, "%s 1 session of %s from folder %s to %s\n", verb, out.From, filepath.Dir(s.From), filepath.Dir(s.To))
	} else {
		fmt.Fprintf(w, "%s %s from %s to %s\n", verb, Plural(len(out.Sessions), "session", "sessions"), out.From, out.To)
	}
	for _, s := range out.Sessions {
		fmt.Fprintf(w, "  %s  %s, %s rewritten\n    %s\n    -> %s\n", s.SessionID, Plural(s.Files, "file", "files"), Plural(s.FieldsChanged, "path field", "path fields"), s.From, s.To)
	}
	if len(out.ProjectFiles) > 0 {
		fmt.Fprintf(w, "%s %s (memory and the like)\n", verb, Plural(len(out.ProjectFiles), "project file", "project files"))
		for _, f := range out.ProjectFiles {
			fmt.Fprintf(w, "  %s -> %s\n", f.From, f.To)
		}
	}
	fmt.Fprintf(w, "history.jsonl: %s now under the new path; sessions-index.json: %s moved\n", Plural(out.HistoryPrompts, "prompt", "prompts"), Plural(out.IndexEntries, "entry", "entries"))
	for _, c := range out.PathRewrites {
		fmt.Fprintf(w, "rewrote %s\n", c)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if out.DryRun {
		fmt.Fprintln(w, "dry run: nothing was written")
		return nil
	}
	if len(out.Sessions) > 0 {
		fmt.Fprintf(w, "resume with: %s\n", out.Sessions[len(out.Sessions)-1].ResumeCommand)
		fmt.Fprintf(w, "undo with: %s restore %s\n", env.Self(), env.sessionArg(out.Sessions[0].SessionID, out.Sessions[0].To))
	}
	return nil
}

// tildeLeftAsTyped refuses a path flag's value whose first element starts
// with '~' and is no folder here: the shell expands '~' only at the start
// of a word, so `--to=~/src/new` (or a quoted '~/src/new') arrives as
// typed, and as a relative path it would name a project of the current
// folder ("./~/src/new") that no client runs in. A folder really named so
// here is taken as it is.
func tildeLeftAsTyped(flag, p string) error {
	if !strings.HasPrefix(p, "~") {
		return nil
	}
	first, _, _ := strings.Cut(filepath.ToSlash(p), "/")
	if st, err := os.Stat(first); err == nil && st.IsDir() {
		return nil
	}
	hint := "give " + flag + " and the path as two words, " + flag + " " + p + " (the shell expands '~' there), or the path in full"
	if home, err := os.UserHomeDir(); err == nil && first == "~" {
		hint += ": " + flag + " " + ShellQuote(filepath.Join(home, strings.TrimPrefix(p, "~")))
	}
	return UsageErrorf(hint, "%s %s starts with '~', which the shell left as it is (it expands it only at the start of a word): it would name a folder '%s' of the current folder", flag, p, first)
}

func absClean(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", Errorf("bad path %s: %v", p, err)
	}
	return filepath.Clean(a), nil
}

// under reports whether p is inside dir (not dir itself).
// Paths use the OS's separator, and where the file system folds case
// (macOS, Windows) so does the comparison.
func under(p, dir string) bool {
	sep := string(filepath.Separator)
	return chain.HasPrefixFor(chain.HostOS, p, strings.TrimSuffix(dir, sep)+sep)
}

// insideProjects refuses a session file outside <config-dir>/projects: a
// move writes only there. It returns p as a path of the config dir as
// named: a session named by its path is found by its real path, and where
// the config dir is a link (~/.claude linked into a dotfiles repository)
// that one string names it under the link's target, the move's new files
// under the link, and the two would be taken for two places (the session's
// own file found at a destination of the same folder, the move refused as
// leaving the config dir).
func (env *Env) insideProjects(p string) (string, error) {
	root, err := filepath.Abs(chain.ProjectsDir(env.ConfigDir))
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	switch d := filepath.Dir(filepath.Dir(p)); d {
	case root:
		return p, nil
	case real:
		return filepath.Join(root, filepath.Base(filepath.Dir(p)), filepath.Base(p)), nil
	}
	return "", &Error{Msg: fmt.Sprintf("%s is not a session of %s", p, root), Hint: "move works on the sessions of the config dir; pass --config-dir", Code: 1}
}

// undoMove puts back every file of the move that took backup b, in one
// transaction that is itself a move (so it can be undone too): the
// sessions' files from their backups, the project's own files as they
// are now, history.jsonl and sessions-index.json edited back.
func (env *Env) undoMove(b backup.Backup, flags RestoreFlags) error {
	force := flags.Force
	var rec moveRecord
	if err := json.Unmarshal(b.Move, &rec); err != nil {
		return Errorf("backup %s: bad move record: %v", b.Name, err)
	}
	lock, err := backup.LockMoves(env.ConfigDir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if rec, err := backup.RecoverMoves(env.ConfigDir); err != nil {
		return Errorf("an interrupted move could not be finished: %v", err)
	} else {
		for _, r := range rec {
			env.Sayf("%s", r)
		}
	}
	saved := map[string]string{} // old path -> its copy in a backup
	var sessions []backup.MoveSession
	var moves []sessionMove
	// the backup this move took of each session; a record with an id
	// holds that session's files only: the move's are all of theirs
	mines := make([]backup.Backup, len(rec.Sessions))
	whole := rec
	if rec.MoveID != "" {
		whole.Files, whole.Rewritten = nil, nil
	}
	seenFile, seenPath := map[backup.Moved]bool{}, map[string]bool{}
	// (two copies of one session in two of the project's folders are two
	// sessions of the move, each with its own backup among the key's)
	taken := map[string]bool{}
	for k, id := range rec.Sessions {
		list, err := backup.List(env.ConfigDir, id)
		if err != nil {
			return err
		}
		var mine *backup.Backup
		for i := range list {
			if !taken[list[i].Dir] && sameMove(list[i].Move, b.Move, rec.MoveID) {
				mine = &list[i]
				taken[mine.Dir] = true
				break
			}
		}
		if mine == nil {
			return Errorf("the backup of session %s taken by this move is gone; nothing was changed", id)
		}
		mines[k] = *mine
		if rec.MoveID != "" {
			var r moveRecord
			if err := json.Unmarshal(mine.Move, &r); err != nil {
				return Errorf("backup %s: bad move record: %v", mine.Name, err)
			}
			for _, f := range r.Files {
				if !seenFile[f] {
					seenFile[f] = true
					whole.Files = append(whole.Files, f)
				}
			}
			for _, p := range r.Rewritten {
				if !seenPath[p] {
					seenPath[p] = true
					whole.Rewritten = append(whole.Rewritten, p)
				}
			}
		}
	}
	rec = whole
	for k, id := range rec.Sessions {
		mine := &mines[k]
		own := map[string]bool{} // this session's files (saved holds every session's)
		for _, f := range mine.Files {
			saved[f.Path] = filepath.Join(mine.Dir, filepath.FromSlash(f.Rel))
			own[f.Path] = true
		}
		ms := backup.MoveSession{ID: id}
		for _, f := range rec.Files {
			if own[f.From] {
				ms.Files = append(ms.Files, f.To)
			}
		}
		oldMain := filepath.Join(mine.ProjectDir, id+".jsonl")
		newMain := oldMain
		for _, f := range rec.Files {
			if f.From == oldMain {
				newMain = f.To
			}
		}
		ms.ProjectDir = filepath.Dir(newMain)
		sessions = append(sessions, ms)
		moves = append(moves, sessionMove{id: id, path: newMain, oldDir: ms.ProjectDir, dstDr: mine.ProjectDir,
			from: rec.To, to: rec.From})
	}
	// a transcript written since the move (the client resumed the
	// session there: more lines than the move wrote, which kept their
	// count): the undo puts back the copy from before the move, and what
	// was written since would be only in the undo's own backup
	// (written by the client, or changed by a command: its time is
	// after the move's, which kept the old file's, or its lines are not
	// as many as the move wrote); a transcript rewritten where it is (a
	// new path of the same slug) as well
	var changed []string
	buf := make([]byte, 256<<10) // the line counts' reads
	since := func(now, saved string) {
		if saved == "" || !strings.HasSuffix(now, ".jsonl") {
			return
		}
		st, err := os.Lstat(now)
		if err != nil {
			return
		}
		// its time: the move gave it the old file's, which the saved
		// copy (a second name of the old file) keeps; a time after the
		// move's that is not that one is a write since (a file dated
		// ahead of this clock, untouched, keeps the old file's time)
		written := st.ModTime().After(b.Made)
		if sv, err := os.Lstat(saved); err == nil && sv.ModTime().Equal(st.ModTime()) {
			written = false
		}
		n, err1 := sideFileLines(now, buf)
		m, err2 := sideFileLines(saved, buf)
		if written || err1 == nil && err2 == nil && n != m {
			changed = append(changed, now)
		}
	}
	for _, f := range rec.Files {
		since(f.To, saved[f.From])
	}
	for _, p := range rec.Rewritten {
		since(p, saved[p])
	}
	// a change by ccsurgeon since (it keeps the file's time, and a
	// redaction its lines) left a backup of this copy newer than the
	// move's (a later move's, or its undo's, changed no content of its
	// own; another copy of the session in another folder is not this one)
	for k, m := range moves {
		now, _, err := backup.ListOf(env.ConfigDir, backup.KeyFor(env.ConfigDir, m.id, m.oldDir), m.id, m.oldDir)
		if err != nil {
			return err
		}
		for _, o := range now {
			if o.Move == nil && o.Made.After(mines[k].Made) && !slices.Contains(changed, m.path) {
				changed = append(changed, m.path)
			}
		}
	}
	if len(changed) > 0 && !flags.UndoAnyway {
		// the hint is one command, whole (a path in it may need quotes):
		// the move back, which keeps what was written; the undo anyway
		// is named in the words
		// (named by its path: another copy of the session may share its id)
		hint := "ccsurgeon move " + ShellQuote(moves[0].path) + " --to " + ShellQuote(rec.From)
		if rec.Project {
			hint = "ccsurgeon move --project " + ShellQuote(rec.To) + " --to " + ShellQuote(rec.From)
		}
		if rec.From == rec.To { // a stranded session's folder move: no path to move back to
			hint = "ccsurgeon restore " + ShellQuote(moves[0].path) + " " + b.Name + " --undo-anyway"
		}
		return &Error{Msg: fmt.Sprintf("%s changed since the move (%s): undoing it would put back the copy from before the move, what was written since kept only in a backup ('restore --undo-anyway' does that); moving it back keeps it",
			Plural(len(changed), "file", "files"), changed[0]), Hint: hint, Code: 1}
	}

	plan := backup.MovePlan{ConfigDir: env.ConfigDir, Sessions: sessions, Force: force, Sweeps: env.sweeps}
	back := moveRecord{From: rec.To, To: rec.From, Project: rec.Project, Sessions: rec.Sessions}
	for _, d := range rec.Dirs {
		plan.Dirs = append(plan.Dirs, backup.Moved{From: d.To, To: d.From})
		back.Dirs = append(back.Dirs, backup.Moved{From: d.To, To: d.From})
	}
	for _, f := range rec.Files {
		mf := backup.MoveFile{From: f.To, To: f.From}
		if src := saved[f.From]; src != "" {
			mf.Render = backup.CopyBeneath(env.ConfigDir, src) // a saved copy, in the backups
		}
		plan.Files = append(plan.Files, mf)
		back.Files = append(back.Files, backup.Moved{From: f.To, To: f.From})
	}
	for _, p := range rec.Rewritten {
		snap, err := backup.TakeSnapshot(p)
		if err != nil {
			return err
		}
		if src := saved[p]; src != "" {
			plan.Edits = append(plan.Edits, backup.MoveEdit{Path: p, Snapshot: snap, Render: backup.CopyBeneath(env.ConfigDir, src), KeepTime: true})
			back.Rewritten = append(back.Rewritten, p)
			for i := range sessions {
				if under(p, sessions[i].ProjectDir) {
					sessions[i].Files = append(sessions[i].Files, p)
				}
			}
		}
	}
	edits, _, _, err := env.sharedEdits(moves, rec.To, rec.From, rec.Project)
	if err != nil {
		return err
	}
	plan.Edits = append(plan.Edits, edits...)
	back.MoveID = uuid.NewString()
	if plan.Records, err = back.records(plan.Sessions); err != nil {
		return err
	}
	res, err := backup.Move(plan)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		// the backup of each session a file written since belongs to (two
		// copies of a session have one each); a file no session's, every
		// backup of the undo
		owner := map[string]string{} // a session's file -> its transcript
		for _, ms := range sessions {
			for _, f := range ms.Files {
				owner[f] = filepath.Join(ms.ProjectDir, ms.ID+".jsonl")
			}
		}
		var kept []string
		keep := func(d string) {
			if d != "" && !slices.Contains(kept, d) {
				kept = append(kept, d)
			}
		}
		for _, p := range changed {
			if d := res.BackupOf[owner[p]]; d != "" {
				keep(d)
				continue
			}
			for _, d := range res.BackupOf {
				keep(d)
			}
		}
		sort.Strings(kept)
		env.Warnf("%s changed since the move: what was written since the move is kept in backup %s", Plural(len(changed), "file", "files"), strings.Join(kept, ", "))
	}
	if env.JSON {
		return env.printJSON(MoveUndoJSON{b.Name, rec.Sessions, len(plan.Files), res.Backups, append([]string{}, changed...)})
	}
	if rec.From == rec.To && len(moves) == 1 {
		// a stranded session's move: the folders changed, not the project
		m := moves[0]
		fmt.Fprintf(env.Out, "undid the move of 1 session of %s from folder %s to %s: %s back in %s\n", rec.From, m.dstDr, m.oldDir, Plural(len(plan.Files), "file", "files"), m.dstDr)
	} else {
		fmt.Fprintf(env.Out, "undid the move %s -> %s: %s, %s back in their old folder\n", rec.From, rec.To, Plural(len(rec.Sessions), "session", "sessions"), Plural(len(plan.Files), "file", "files"))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Out, "note: %s\n", w)
	}
	return nil
}

// sideFileLines counts the lines of the file at path (a regular file
// only, never waiting on a named pipe), reading into buf.
func sideFileLines(path string, buf []byte) (int, error) {
	fh, _, err := chain.OpenSideFile(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	n := 0
	for {
		k, err := fh.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// markMissingProjects flags the sessions of `ls` whose project folder no
// longer exists on disk.
func markMissingProjects(rows []SessionSummary) {
	gone := map[string]bool{}
	for i := range rows {
		p := rows[i].Project
		if !filepath.IsAbs(p) {
			continue // the cwd is unknown: only the folder name is
		}
		missing, ok := gone[p]
		if !ok {
			_, err := os.Stat(p)
			missing = os.IsNotExist(err)
			gone[p] = missing
		}
		rows[i].ProjectMissing = missing
	}
}

// printMissingProjects ends `ls` with the projects whose folder is gone and
// the command that moves their sessions.
func (env *Env) printMissingProjects(rows []SessionSummary) {
	n := map[string]int{}
	var order []string
	for _, r := range rows {
		if r.ProjectMissing {
			if n[r.Project] == 0 {
				order = append(order, r.Project)
			}
			n[r.Project]++
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(env.Out, "\nprojects whose folder no longer exists (renamed or moved?):")
	for _, p := range order {
		fmt.Fprintf(env.Out, "  %s (%s): %s move --project %s --to %s\n", Printable(p), Plural(n[p], "session", "sessions"), env.Self(), ShellQuote(p), NewPathPlaceholder)
	}
}

// records gives each session of a move its record: the move's facts and,
// of its files, the session's own (From among the session's files) and
// those of no session (the project's own: memory/), so that each backup
// names what undoing the move needs of that session, not every file of the
// move (a move of a project's 276 sessions wrote each a manifest naming
// all 552 files: 37 MB, growing with the square of the sessions).
func (rec moveRecord) records(sessions []backup.MoveSession) (map[string]json.RawMessage, error) {
	owner := map[string]string{}
	for _, s := range sessions {
		for _, f := range s.Files {
			owner[f] = s.ID
		}
	}
	out := map[string]json.RawMessage{}
	for _, s := range sessions {
		r := rec
		r.Files, r.Rewritten = []backup.Moved{}, []string{}
		for _, f := range rec.Files {
			if o, ok := owner[f.From]; !ok || o == s.ID {
				r.Files = append(r.Files, f)
			}
		}
		for _, p := range rec.Rewritten {
			if o, ok := owner[p]; !ok || o == s.ID {
				r.Rewritten = append(r.Rewritten, p)
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[s.ID] = b
	}
	return out, nil
}

// sameMove reports whether the move records a and b are of one move: the
// same id (id, b's), or, for records of older versions (no id), the same
// bytes.
func sameMove(a, b json.RawMessage, id string) bool {
	if id == "" {
		return bytes.Equal(a, b)
	}
	var r struct {
		MoveID string `json:"move_id"`
	}
	return json.Unmarshal(a, &r) == nil && r.MoveID == id
}
