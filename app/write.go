package app

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/google/uuid"
)

// Dest says where the result of an operation goes.
type Dest struct {
	Output string // -o PATH ("-" = stdout)
	New    bool   // --new: a new session in the same project folder
	DryRun bool   // change nothing, print a summary
	Diff   bool   // with DryRun: print a unified line diff
	Force  bool   // write in place even when the session looks in use
	Keep   int    // backups to keep (0 = default)
}

// WriteResult is what every writing command prints with --json.
type WriteResult struct {
	SessionID     string          `json:"session_id"`
	Path          string          `json:"path"`
	Backup        *string         `json:"backup"`
	Operation     string          `json:"operation"`
	DryRun        bool            `json:"dry_run"`
	EntriesBefore int             `json:"entries_before"`
	EntriesAfter  int             `json:"entries_after"`
	Removed       int             `json:"entries_removed"`
	Changed       int             `json:"entries_changed"`
	Added         int             `json:"entries_added"`
	BytesBefore   int64           `json:"bytes_before"`
	BytesAfter    int64           `json:"bytes_after"`
	Counts        map[string]int  `json:"counts,omitempty"`
	Notes         []string        `json:"notes,omitempty"`
	Preexisting   int             `json:"preexisting_errors"`
	Redactions    []ops.Redaction `json:"redactions,omitempty"`
	ResumeCommand string          `json:"resume_command,omitempty"`
}

// Operation builds the pipeline for an open session.
type Operation func(s *chain.Session) (ops.Pipeline, error)

// runWrite is the one path every writing command takes: load, apply the
// pipeline, render the result to a scratch folder, validate it against the
// input (the gate), then hand it to the destination.
func (env *Env) runWrite(sessionArg string, d Dest, build Operation) error {
	return env.runWriteWith(sessionArg, d, build, nil)
}

// runWriteWith is runWrite with a hook that sees the result before it is
// printed.
func (env *Env) runWriteWith(sessionArg string, d Dest, build Operation, hook func(*WriteResult)) error {
	if d.Output != "" && d.New {
		return UsageErrorf("choose one destination", "-o and --new cannot be used together")
	}
	path, err := chain.Locate(env.ConfigDir, sessionArg)
	if err != nil {
		return err
	}
	snaps, err := snapshotSession(path)
	if err != nil {
		return err
	}
	pr := env.newProgress()
	defer pr.Done()
	pr.Phase("reading", snaps[path].Size)
	s, err := chain.LoadWith(path, pr.Add)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, a := range s.Subagents {
		if _, ok := snaps[a.File.Path]; !ok {
			snaps[a.File.Path], _ = backup.TakeSnapshot(a.File.Path)
		}
	}
	p, err := build(s)
	if err != nil {
		return err
	}
	t := ops.NewTxn(s)
	if d.New {
		t.NewID = uuid.NewString()
	}
	if err := p.Apply(t); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "ccsurgeon-")
	if err != nil {
		return Errorf("cannot make a scratch folder: %v", err)
	}
	defer os.RemoveAll(scratch)
	pr.Phase(p.Name(), s.Main.Size)
	res, err := renderResult(t, scratch, pr)
	if err != nil {
		return err
	}
	before := validate.Session(s)
	after := validate.Session(res.session)
	defer res.session.Close()
	introduced := validate.Introduced(before, after)
	if len(introduced) > 0 {
		scratchToOrig := map[string]string{}
		for orig, sc := range res.files {
			scratchToOrig[sc] = orig
		}
		for _, pr := range introduced {
			if o, ok := scratchToOrig[pr.File]; ok {
				pr.File = o + " (after " + p.Name() + ")"
			}
			fmt.Fprintf(env.Err, "%s\n", pr.String())
		}
		return &chain.Error{Msg: fmt.Sprintf("%s would introduce %d error(s) into the session; nothing was written", p.Name(), len(introduced)),
			Hint: "this is a bug in ccsurgeon or an unusual session: please report it with 'ccsurgeon validate' output", Code: 1}
	}
	st := t.Stats()
	out := WriteResult{
		SessionID: s.ID, Path: s.Path, Operation: p.Name(), DryRun: d.DryRun,
		EntriesBefore: st.EntriesBefore, EntriesAfter: st.EntriesAfter, Removed: st.Removed, Changed: st.Changed, Added: st.Added,
		BytesBefore: s.Main.Size, BytesAfter: res.mainSize, Counts: t.Report.Counts, Notes: t.Report.Notes,
		Preexisting: before.Errors(), Redactions: t.Report.Redactions,
	}
	if hook != nil {
		hook(&out)
	}
	if t.NewID != "" {
		out.SessionID = t.NewID
		out.Changed = st.EntriesAfter - st.Added
	}
	switch {
	case d.DryRun:
		out.Path = s.Path
		if err := env.printDryRun(s, res, out, d.Diff); err != nil {
			return err
		}
		return nil
	case d.Output == "-":
		return copyFile(res.main, env.Out)
	case d.Output != "":
		abs, _ := filepath.Abs(d.Output)
		if abs == s.Path {
			return UsageErrorf("leave out -o to change the session in place (with a backup)", "-o names the session itself")
		}
		if err := backup.WriteTo(d.Output, copyFrom(res.main)); err != nil {
			return err
		}
		out.Path = d.Output
	case d.New:
		np, err := env.writeNew(s, t, res)
		if err != nil {
			return err
		}
		out.Path = np
		out.ResumeCommand = "claude --resume " + t.NewID
	default:
		bdir, err := env.writeInPlace(s, t, res, snaps, d, p.Name())
		if err != nil {
			return err
		}
		out.Backup = &bdir
	}
	return env.printWriteResult(out)
}

// result is a rendered result in a scratch folder.
type result struct {
	main     string // scratch path of the main transcript
	mainSize int64
	files    map[string]string // original path (main and subagents) -> scratch path, for changed files
	session  *chain.Session    // the result, loaded for validation
}

func renderResult(t *ops.Txn, scratch string, pr *progress) (*result, error) {
	s := t.S
	id := s.ID
	if t.NewID != "" {
		id = t.NewID
	}
	r := &result{files: map[string]string{}}
	r.main = filepath.Join(scratch, id+".jsonl")
	if err := renderTo(r.main, t.Render(s.Main), pr); err != nil {
		return nil, err
	}
	r.files[s.Main.Path] = r.main
	for _, a := range s.Subagents {
		if t.RemovedFiles[a.File] {
			continue
		}
		if t.NewID == "" && !txnTouches(t, a.File) {
			continue
		}
		dst := filepath.Join(scratch, id, "subagents", filepath.Base(a.File.Path))
		if a.Legacy {
			dst = filepath.Join(scratch, filepath.Base(a.File.Path))
		}
		if err := renderTo(dst, t.Render(a.File), nil); err != nil {
			return nil, err
		}
		r.files[a.File.Path] = dst
	}
	st, err := os.Stat(r.main)
	if err != nil {
		return nil, err
	}
	r.mainSize = st.Size()
	pr.Phase("checking", r.mainSize)
	loaded, err := chain.LoadWith(r.main, pr.Add)
	if err != nil {
		return nil, err
	}
	// the scratch folder lacks unchanged subagents: validate those from the original
	for _, a := range s.Subagents {
		if _, ok := r.files[a.File.Path]; !ok && !t.RemovedFiles[a.File] {
			loaded.Subagents = append(loaded.Subagents, a)
		}
	}
	r.session = loaded
	return r, nil
}

func txnTouches(t *ops.Txn, f *chain.File) bool {
	for i := range f.Entries {
		if t.Changed(f, i) {
			return true
		}
	}
	return false
}

func renderTo(path string, render func(io.Writer) error, pr *progress) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(pr.Writer(fh), 1<<20)
	if err := render(bw); err != nil {
		fh.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func copyFrom(path string) func(io.Writer) error {
	return func(w io.Writer) error { return copyFile(path, w) }
}

func copyFile(path string, w io.Writer) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	_, err = io.CopyBuffer(w, fh, make([]byte, 1<<20))
	return err
}

func snapshotSession(path string) (map[string]*backup.Snapshot, error) {
	snaps := map[string]*backup.Snapshot{}
	sn, err := backup.TakeSnapshot(path)
	if err != nil {
		return nil, err
	}
	snaps[path] = sn
	return snaps, nil
}

func (env *Env) writeInPlace(s *chain.Session, t *ops.Txn, r *result, snaps map[string]*backup.Snapshot, d Dest, op string) (string, error) {
	plan := backup.Plan{ConfigDir: env.ConfigDir, SessionID: s.ID, Op: op, ProjectDir: s.ProjectDir, Force: d.Force, Keep: d.Keep}
	for orig, scratch := range r.files {
		plan.Files = append(plan.Files, backup.FileWrite{Path: orig, Snapshot: snaps[orig], Render: copyFrom(scratch)})
	}
	for _, a := range s.Subagents {
		if t.RemovedFiles[a.File] {
			plan.Files = append(plan.Files, backup.FileWrite{Path: a.File.Path, Snapshot: snaps[a.File.Path], Remove: true})
			if a.MetaPath != "" {
				sn, _ := backup.TakeSnapshot(a.MetaPath)
				plan.Files = append(plan.Files, backup.FileWrite{Path: a.MetaPath, Snapshot: sn, Remove: true})
			}
		}
	}
	res, err := backup.Apply(plan)
	if err != nil {
		return "", err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Err, "ccsurgeon: warning: %s\n", w)
	}
	return res.BackupDir, nil
}

// writeNew writes the result as a new session beside the original, with
// its sidecars: subagent transcripts and meta files, tool-results/, and the
// file-history backups behind /rewind.
func (env *Env) writeNew(s *chain.Session, t *ops.Txn, r *result) (string, error) {
	newMain := filepath.Join(s.ProjectDir, t.NewID+".jsonl")
	if err := backup.CreateNew(newMain, copyFrom(r.main)); err != nil {
		return "", err
	}
	rm := t.Remapper()
	for _, a := range s.Subagents {
		scratch, ok := r.files[a.File.Path]
		if !ok {
			continue
		}
		base := filepath.Base(a.File.Path)
		dst := filepath.Join(s.ProjectDir, t.NewID, "subagents", base)
		if a.Legacy {
			dst = filepath.Join(s.ProjectDir, "agent-"+uuid.NewString()[:8]+"-"+strings.TrimPrefix(base, "agent-"))
		}
		if err := backup.CreateNew(dst, copyFrom(scratch)); err != nil {
			return newMain, err
		}
		if a.MetaPath != "" {
			meta, err := os.ReadFile(a.MetaPath)
			if err != nil {
				return newMain, err
			}
			if rm != nil {
				meta = rm.JSON(meta)
			}
			mdst := strings.TrimSuffix(dst, ".jsonl") + ".meta.json"
			if err := backup.CreateNew(mdst, func(w io.Writer) error { _, err := w.Write(meta); return err }); err != nil {
				return newMain, err
			}
		}
	}
	// tool-results/ and file-history/<id>/ are copied as they are
	copies := map[string]string{
		filepath.Join(s.SidecarDir(), "tool-results"):      filepath.Join(s.ProjectDir, t.NewID, "tool-results"),
		filepath.Join(env.ConfigDir, "file-history", s.ID): filepath.Join(env.ConfigDir, "file-history", t.NewID),
	}
	for src, dst := range copies {
		if err := copyTree(src, dst); err != nil {
			return newMain, err
		}
	}
	if err := enterInIndex(s, t.NewID, newMain); err != nil {
		fmt.Fprintf(env.Err, "ccsurgeon: warning: could not add the new session to sessions-index.json: %v\n", err)
	}
	return newMain, nil
}

func copyTree(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return backup.CreateNew(filepath.Join(dst, rel), copyFrom(p))
	})
}

func (env *Env) printWriteResult(out WriteResult) error {
	if env.JSON {
		return env.printJSON(out)
	}
	w := env.Out
	switch {
	case out.ResumeCommand != "":
		fmt.Fprintf(w, "new session %s\n  %s\n", out.SessionID, out.Path)
		fmt.Fprintf(w, "resume it with: %s\n", out.ResumeCommand)
	case out.Backup != nil:
		fmt.Fprintf(w, "%s: %s\n", out.Operation, out.Path)
		fmt.Fprintf(w, "backup: %s (undo with 'ccsurgeon restore %s')\n", *out.Backup, out.SessionID)
	default:
		fmt.Fprintf(w, "wrote %s\n", out.Path)
	}
	env.printSummary(out)
	return nil
}

func (env *Env) printSummary(out WriteResult) {
	w := env.Out
	fmt.Fprintf(w, "entries: %d -> %d (%d removed, %d changed, %d added)\n", out.EntriesBefore, out.EntriesAfter, out.Removed, out.Changed, out.Added)
	pct := 0.0
	if out.BytesBefore > 0 {
		pct = 100 * float64(out.BytesBefore-out.BytesAfter) / float64(out.BytesBefore)
	}
	fmt.Fprintf(w, "bytes:   %s -> %s (%.1f%% smaller)\n", HumanBytes(out.BytesBefore), HumanBytes(out.BytesAfter), pct)
	for k, v := range out.Counts {
		fmt.Fprintf(w, "  %s: %d\n", k, v)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	env.printRedactions(out.Redactions)
	if out.Preexisting > 0 {
		fmt.Fprintf(w, "note: the input already had %d validation error(s); they are not new (see 'ccsurgeon validate')\n", out.Preexisting)
	}
}

func (env *Env) printDryRun(s *chain.Session, r *result, out WriteResult, withDiff bool) error {
	if env.JSON && !withDiff {
		return env.printJSON(out)
	}
	if withDiff {
		a, err := os.ReadFile(s.Path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(r.main)
		if err != nil {
			return err
		}
		fmt.Fprint(env.Out, backup.Diff(a, b, backup.DiffOptions{NameA: s.Path, NameB: s.Path + " (after " + out.Operation + ")"}))
		if env.JSON {
			return nil
		}
	}
	fmt.Fprintf(env.Out, "dry run: %s on %s; nothing was written\n", out.Operation, s.Path)
	env.printSummary(out)
	return nil
}
