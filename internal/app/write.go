package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/google/uuid"
	"github.com/tidwall/gjson"
	"golang.org/x/sync/errgroup"
)

// Dest says where the result of an operation goes.
type Dest struct {
	Output string // -o PATH ("-" = stdout)
	New    bool   // --new: a new session in the same project folder
	DryRun bool   // change nothing, print a summary
	Diff   bool   // with DryRun: print a unified line diff
	Force  bool   // write in place even when the session looks in use; -o: replace an existing file
	Keep   int    // backups to keep (0 = default)
	// NoBackup changes the session in place without keeping a copy of
	// what it was (after redact-secrets: no copy of the secrets is left).
	NoBackup bool
	// FreshIDs gives the result a new session id and fresh uuids, as a
	// clone does (implied by New).
	FreshIDs bool
}

// WriteResult is what every writing command prints with --json.
type WriteResult struct {
	SessionID     string                    `json:"session_id"`
	Path          string                    `json:"path"`
	Backup        *string                   `json:"backup"`
	Operation     string                    `json:"operation"`
	DryRun        bool                      `json:"dry_run"`
	EntriesBefore int                       `json:"entries_before"`
	EntriesAfter  int                       `json:"entries_after"`
	Removed       int                       `json:"entries_removed"`
	Changed       int                       `json:"entries_changed"`
	Added         int                       `json:"entries_added"`
	BytesBefore   int64                     `json:"bytes_before"`
	BytesAfter    int64                     `json:"bytes_after"`
	Counts        map[string]int            `json:"counts"`
	CountDetails  map[string]map[string]int `json:"count_details"`
	Notes         []string                  `json:"notes"`
	Preexisting   int                       `json:"preexisting_errors"`
	// Redactions: the secrets redact-secrets found. A result being printed
	// streams them from the log instead (a session can hold millions).
	Redactions    []RedactionJSON `json:"redactions"`
	ResumeCommand string          `json:"resume_command,omitempty"`
	// ResumeTokens: estimated tokens a resume sends, before and after
	// (compress-old-turns and --target-tokens).
	ResumeTokens *ops.TokenReport `json:"resume_tokens,omitempty"`
	// NothingToChange: the operations found nothing to do, so nothing was
	// written (SessionID and Path are the input's); with -o, the output
	// is an identical copy of the session (Path is the output's).
	NothingToChange bool `json:"nothing_to_change,omitempty"`
	// SidecarSecretsNotWritten: with -o, the secrets of the session's
	// tool-results/ files, which -o does not write (they are still there).
	SidecarSecretsNotWritten int `json:"sidecar_secrets_not_written,omitempty"`

	redactions *ops.RedactionLog // printed as "redactions"
	// sidecarSecrets: the secrets found in the tool-results files
	sidecarSecrets int
	// otherFileSecrets: the secrets found in the files beside the main
	// transcript (subagent transcripts, tool-results files)
	otherFileSecrets int
	// notScanned: the files the operation could not read (named in notes)
	notScanned int
	// linksNotRead: the subagent transcripts that are symbolic links
	// (chain.Session.Links), left unread and named in warnings
	linksNotRead int
	// notWritten: the files whose secrets the result does not hold (-o
	// FILE): their redactions are listed as not written
	notWritten map[string]bool
	// shareFolder: written with -o DIR/ (the session keeps its id)
	shareFolder bool
	// newID: SessionID is a new session's (clone, fork, --new), not the
	// input's
	newID bool
	// check: the result of redact-secrets --check, a scan that writes
	// nothing (printed as one, not as a preview)
	check bool
}

// RedactionJSON is a secret of the "redactions" list: where it was and
// its placeholder, and, with -o FILE, NotWritten when the file that holds
// it is not in the output (a subagent transcript, a tool-results file:
// the secret is still there, unredacted). The list printed is streamed
// by redactionEncoder, which writes these keys.
type RedactionJSON struct {
	ops.Redaction
	NotWritten bool `json:"not_written,omitempty"`
}

// Operation builds the pipeline for an open session.
type Operation func(s *chain.Session) (ops.Pipeline, error)

// runWrite is the one path every writing command takes: load, apply the
// pipeline, then write the result to its destination through the gate:
// every file of the result is indexed as it is written and validated
// against the input before the write is committed (renamed into place, or
// printed). A result with a problem the input did not have writes nothing.
func (env *Env) runWrite(sessionArg string, d Dest, build Operation) error {
	return env.runWriteWith(sessionArg, d, build, nil)
}

// prepareWrite checks the destination's flags and finds the session:
// what every writing command does before it reads the session.
func (env *Env) prepareWrite(sessionArg string, d Dest) (string, Dest, error) {
	if d.Output != "" && d.New {
		return "", d, UsageErrorf("choose one destination", "-o and --new cannot be used together")
	}
	if d.NoBackup && d.Keep != 0 {
		return "", d, UsageErrorf("give one of them", "--keep keeps backups and --no-backup keeps none")
	}
	if d.NoBackup || d.Keep != 0 {
		flag := map[bool]string{true: "--no-backup", false: "--keep"}[d.NoBackup]
		switch {
		case d.Output != "":
			return "", d, UsageErrorf("leave it out: -o changes nothing of the session, so it takes no backup", "%s is for a change in place, not -o", flag)
		case d.New || d.FreshIDs:
			return "", d, UsageErrorf("leave it out: a new session changes nothing of the original, so it takes no backup", "%s is for a change in place, not a new session", flag)
		}
	}
	if d.Diff && env.JSON {
		return "", d, UsageErrorf("leave out --json, or use --dry-run for a summary in JSON", "--diff prints a line diff, not JSON")
	}
	if d.Diff {
		d.DryRun = true // --diff previews: it never writes
	}
	if err := refuseWindowsOutput(d.Output); err != nil {
		return "", d, err
	}
	if err := env.refuseOutputInProjects(d); err != nil {
		return "", d, err
	}
	path, err := chain.Locate(env.ConfigDir, sessionArg)
	if err != nil {
		return path, d, err
	}
	if d.Output == "-" && !d.DryRun && env.stdoutIsSession(path) {
		return path, d, UsageErrorf("redirect standard output to another file, or leave out -o to change the session in place (with a backup)",
			"standard output is the session's own file %s: -o - would write the session into itself", path)
	}
	return path, d, outputRefusedEarly(d, path)
}

// outputRefusedEarly refuses, before the session is read and worked on, a
// -o that the write would refuse at its end (so that a refusal costs no
// load, no cut, no --target-tokens loop): a folder that does not exist, a
// file of the session itself, another session's transcript, an existing
// file without --force, a share folder that holds the session's files.
// It is checkOutput, with the id chain.Load gives the session (its file's
// name) and its subagent transcripts as listed; checkOutput and the write
// check again once the session is loaded, as the file system may change in
// between.
func outputRefusedEarly(d Dest, path string) error {
	if d.Output == "" || d.Output == "-" {
		return nil
	}
	// id: the session's, "" for a copy named otherwise (orig.jsonl), whose
	// id is what its entries record, checked once it is read (a share
	// folder holds it under that id: writeFolder checks the folder then)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if !chain.IsUUID(id) {
		id = ""
	}
	subs := chain.SubagentFiles(path)
	files := []string{path}
	for _, a := range subs {
		files = append(files, a.Path)
	}
	if err := checkOutput(d, files, id); err != nil {
		return err
	}
	switch {
	case d.DryRun:
		return nil
	case isFolderDest(d.Output):
		if d.FreshIDs || id == "" {
			return nil // a new id, or one not read yet: writeFolder checks
		}
		dir := filepath.Clean(d.Output)
		if st, err := os.Stat(dir); err != nil {
			return nil // made by the write
		} else if !st.IsDir() {
			return notAFolderError(dir)
		}
		paths := []string{filepath.Join(dir, id+".jsonl"), filepath.Join(dir, id)}
		for _, a := range subs {
			if a.Legacy {
				paths = append(paths, filepath.Join(dir, filepath.Base(a.Path)))
			}
		}
		return shareFolderTaken(dir, id, paths)
	}
	return backup.CheckWriteTo(d.Output, d.Force)
}

// notAFolderError: -o DIR/ names a node that is not a folder.
func notAFolderError(dir string) error {
	return Errorf("cannot write the session into %s: it is not a folder", dir)
}

// shareFolderTaken refuses a share folder dir (-o DIR/) where one of
// paths, the session's files there, is taken: nothing in it is replaced,
// --force or not.
func shareFolderTaken(dir, id string, paths []string) error {
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return &Error{Msg: fmt.Sprintf("cannot write the session into %s: %s already exists; nothing was written", dir, p),
				Hint: "name an empty folder, or a new one ending in '/' (e.g. -o " + filepath.Join(filepath.Dir(dir), id[:min(8, len(id))]+"-share") + "/)", Code: 1}
		}
	}
	return nil
}

// sidecarLinks deals with the subagent transcripts of s that are symbolic
// links (never read: their bytes are another file's): a change in place
// refuses them (the session would be changed without them), any other
// run names each as not read (copies: not copied).
func (env *Env) sidecarLinks(s *chain.Session, inPlace, copies bool) error {
	switch {
	case len(s.Links) == 0:
	case inPlace:
		target, _ := os.Readlink(s.Links[0])
		return &backup.SymlinkError{Path: s.Links[0], Target: target}
	case copies:
		var left []error
		if err := linkedFolderRefusal(s.Links); err != nil {
			return err
		}
		for _, l := range s.Links {
			left = append(left, &backup.NotAFileError{Path: l, Kind: backup.NodeKind(os.ModeSymlink)})
		}
		env.warnSkipped(left)
	default:
		env.warnLinksNotRead(s)
	}
	return nil
}

// linkedFolderRefusal refuses a copy of a session whose <id>/ or
// subagents/ folder is a link (listed among its links by
// chain.SubagentFiles, a folder where the others are transcripts): the
// copy would be made without what it holds, which is never read
// through. The words are those of a read.
func linkedFolderRefusal(links []string) error {
	for _, l := range links {
		if !strings.HasSuffix(l, ".jsonl") {
			target, _ := os.Readlink(l)
			return &backup.SymlinkError{Path: l, Target: target, Read: true}
		}
	}
	return nil
}

// warnLinksNotRead names each subagent transcript of s that is a symbolic
// link, left unread, on standard error.
func (env *Env) warnLinksNotRead(s *chain.Session) {
	for _, l := range s.Links {
		env.Warnf("not read: %s is a symbolic link, not a regular file", l)
	}
}

// runWriteWith is runWrite with a hook that sees the result before it is
// printed.
func (env *Env) runWriteWith(sessionArg string, d Dest, build Operation, hook func(*WriteResult)) error {
	path, d, err := env.prepareWrite(sessionArg, d)
	if err != nil {
		return err
	}
	inPlace := !d.DryRun && d.Output == "" && !d.New && !d.FreshIDs
	var lock *backup.SessionLock
	if inPlace {
		// one ccsurgeon writer per session, from before it is read; what
		// a killed run left is finished or removed first
		if lock, err = env.lockSession(path); err != nil {
			return err
		}
		defer lock.Unlock()
	}
	snaps := map[string]*backup.Snapshot{}
	if snaps[path], err = backup.TakeSnapshot(path); err != nil {
		return err
	}
	pr := env.newProgress()
	defer pr.Done()
	pr.Phase("reading", snaps[path].Size)
	backup.Step("write-session-read") // (tests: what comes before is no work on the session)
	s, err := chain.LoadWith(path, pr.Add)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := env.sidecarLinks(s, inPlace, d.New || d.FreshIDs || isFolderDest(d.Output)); err != nil {
		return err
	}
	for _, a := range s.Subagents {
		if snaps[a.File.Path], err = backup.TakeSnapshot(a.File.Path); err != nil {
			return err
		}
	}
	p, err := build(s)
	if err != nil {
		return err
	}
	pr.Phase(p.Name(), 0)
	newID := ""
	if d.New || d.FreshIDs {
		newID = uuid.NewString()
	}
	var txns []*ops.Txn
	defer func() {
		for _, t := range txns {
			t.Report.Redactions.Close()
		}
	}()
	t, err := ops.FitWithin(s, p, func() *ops.Txn {
		t := ops.NewTxn(s)
		t.NewID = newID
		txns = append(txns, t)
		return t
	})
	if err != nil {
		return err
	}
	var files []string
	for _, f := range s.Files() {
		files = append(files, f.Path)
	}
	if err := checkOutput(d, files, s.Main.SessionID()); err != nil {
		return err
	}
	identical := len(p) > 0 && !d.FreshIDs && !t.ChangesAnything()
	if identical && (d.Output == "" || d.DryRun) {
		// a selector that selected nothing: no backup, no new session
		// (-o still writes its output: an identical copy, below)
		pr.Done()
		res := WriteResult{SessionID: s.Main.SessionID(), Path: s.Path, Operation: p.Name(), DryRun: d.DryRun,
			EntriesBefore: len(s.Main.Entries), EntriesAfter: len(s.Main.Entries), BytesBefore: s.Main.Size, BytesAfter: s.Main.Size,
			Notes: noteWords(t.Report.Notes), NothingToChange: true, redactions: &t.Report.Redactions, sidecarSecrets: sidecarSecrets(t), otherFileSecrets: otherFileSecrets(t), notScanned: len(t.Report.NotScanned), linksNotRead: len(s.Links)}
		if hook != nil {
			hook(&res) // redact --check must see secrets it could not replace
		}
		return env.summaryTo(d).printNothingToChange(res)
	}
	j := &job{env: env, t: t, op: p.Name(), pr: pr, sizes: map[*chain.File]int64{}, lock: lock}
	st := t.Stats()
	out := WriteResult{
		SessionID: s.Main.SessionID(), Path: s.Path, Operation: p.Name(), DryRun: d.DryRun,
		EntriesBefore: st.EntriesBefore, EntriesAfter: st.EntriesAfter, Removed: st.Removed, Changed: st.Changed, Added: st.Added,
		BytesBefore: s.Main.Size, Counts: t.Report.Counts, CountDetails: t.Report.CountDetails, Notes: noteWords(t.Report.Notes), redactions: &t.Report.Redactions,
		ResumeTokens: t.Report.Tokens, sidecarSecrets: sidecarSecrets(t), otherFileSecrets: otherFileSecrets(t), notScanned: len(t.Report.NotScanned), linksNotRead: len(s.Links),
	}
	if t.NewID != "" {
		out.SessionID, out.newID = t.NewID, true
		if d.DryRun {
			out.SessionID = "" // minted when it is written: a dry run prints the same each run
		}
		out.Changed = st.EntriesAfter - st.Added
	}
	out.NothingToChange = identical
	switch {
	case d.DryRun:
		err = j.dryRun(d.Diff)
	case d.Output == "-":
		err = j.toStdout()
		out.Path = "-"
		if note, n := onlyMainWritten(t, &out, "stdout"); n > 0 {
			if !env.JSON { // else the summary on stderr says it
				env.Warnf("%s", note)
			}
		}
	case isFolderDest(d.Output):
		out.Path, err = j.writeFolder(d.Output, d.Force)
		out.ResumeCommand = ResumeCmd("", out.SessionID)
		out.Notes = append(out.Notes, fmt.Sprintf("%s is a project folder: to resume the session, put it under a config dir's projects/ as the folder of the working directory (here %s) and run '%s'",
			filepath.Clean(d.Output), filepath.Base(s.ProjectDir), out.ResumeCommand))
		out.shareFolder = true
	case d.Output != "":
		err = backup.WriteTo(d.Output, d.Force, j.render(s.Main, d.Output))
		out.Path = d.Output
		if n := len(j.resultFiles()) - 1 - changedAgentsWithSecrets(t); n > 0 {
			out.Notes = append(out.Notes, "-o writes the main transcript only: "+Plural(n, "changed subagent transcript was", "changed subagent transcripts were")+" not written (use -o DIR/ or --new to get them too)")
		}
		onlyMainWritten(t, &out, d.Output)
	case d.New:
		out.Path, err = j.writeNew()
		out.ResumeCommand, out.Notes = resumeCommand(out.Path, t.NewID, out.Notes)
	default:
		var res backup.Result
		if res, err = j.writeInPlace(snaps, d); err == nil {
			if res.BackupDir != "" {
				out.Backup = &res.BackupDir
			}
			out.Notes = append(out.Notes, res.Notes...)
			if len(res.Pruned) > 0 {
				var names []string
				for _, p := range res.Pruned {
					names = append(names, filepath.Base(p))
				}
				out.Notes = append(out.Notes, fmt.Sprintf("removed %s: %s (kept: the %d last made, the original, within %s)",
					Plural(len(res.Pruned), "old backup", "old backups"), strings.Join(names, ", "), keepOf(d.Keep), HumanBytes(backup.DefaultBudget)))
			}
			if t.Report.Redactions.Len() > 0 {
				out.Notes = append(out.Notes, env.redactBackupNote(s, lock.Key()))
			}
		}
	}
	if err != nil {
		pr.Done()
		return j.explain(err, sessionArg)
	}
	pr.Done() // the bar goes before the summary is printed
	out.BytesAfter = j.sizes[s.Main]
	out.Preexisting = j.preexisting + j.unwrittenErrors()
	if hook != nil {
		hook(&out)
	}
	if d.Output == "-" && !d.DryRun { // stdout holds the session
		if env.JSON { // the summary asked for goes to stderr
			return env.summaryTo(d).printWriteResult(out)
		}
		if identical {
			fmt.Fprintf(env.Err, "%s: no change; wrote an identical copy to stdout\n", out.Operation)
		}
		return nil
	}
	if d.DryRun { // nothing is written: -o - or not, the preview goes to stdout
		return env.printDryRun(s, j.diff, out)
	}
	return env.printWriteResult(out)
}

// checkOutput checks the destination -o before anything is written: its
// folder exists, and a file it names is none of the session's own files
// (files) nor another session's transcript.
func checkOutput(d Dest, files []string, id string) error {
	if isFolderDest(d.Output) {
		if dir := filepath.Dir(filepath.Clean(d.Output)); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return noFolderError(d.Output, dir)
			}
		}
		return nil
	}
	if d.Output == "" || d.Output == "-" {
		return nil
	}
	if dir := filepath.Dir(d.Output); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return noFolderError(d.Output, dir)
		}
	}
	if st, err := os.Stat(d.Output); err == nil {
		for _, p := range files {
			if fst, err := os.Stat(p); err == nil && os.SameFile(st, fst) {
				return UsageErrorf("leave out -o to change the session in place (with a backup)", "-o names a file of the session itself: %s", p)
			}
		}
		if id == "" { // not known yet (outputRefusedEarly): checked again once it is
			return nil
		}
		if err := refuseSessionOutput(d.Output, st, id); err != nil {
			return err
		}
	}
	return nil
}

// job writes the files of one result through the gate.
type job struct {
	env         *Env
	t           *ops.Txn
	op          string
	pr          *progress
	lock        *backup.SessionLock   // held for an in-place write
	mu          sync.Mutex            // guards the three below: files are written in parallel
	sizes       map[*chain.File]int64 // bytes written per file
	introduced  []validate.Problem
	had         []validate.Problem // the input's own errors, in the files with introduced ones
	preexisting int
	// uncounted: the command reports no count of the input's errors
	// (move), so a file whose result cannot fail the gate is not checked
	uncounted bool
	diff      []byte        // dry run with --diff: the rendered main file
	rendered  []*chain.File // the input files whose errors preexisting counts
}

// errGate marks a write stopped by the validation gate.
var errGate = &Error{Code: 1}

// explain turns a gate refusal into the user's error, after the problems.
// On a session that already had errors, the operation met them (a tool
// call whose result is missing, next to a call it removes, say): those
// are named, and the way out is to repair the session first. Only on a
// sound session is a new error a bug of ccsurgeon's.
func (j *job) explain(err error, sessionArg string) error {
	if len(j.introduced) == 0 {
		return err
	}
	for _, pr := range j.introduced {
		fmt.Fprintf(j.env.Err, "%s\n", pr.String())
	}
	if len(j.had) > 0 {
		for _, pr := range j.had {
			fmt.Fprintf(j.env.Err, "%s (already in the session)\n", pr.String())
		}
		return &Error{Msg: fmt.Sprintf("%s would turn the session's own %s into %s; nothing was written",
			j.op, Plural(len(j.had), "error", "errors"), Plural(len(j.introduced), "new error", "new errors")),
			Hint: fmt.Sprintf("repair the session first: ccsurgeon repair %s, then run %s again", ShellQuote(sessionArg), j.op), Code: 1}
	}
	return &Error{Msg: fmt.Sprintf("%s would introduce %s into the session; nothing was written", j.op, Plural(len(j.introduced), "error", "errors")),
		Hint: "this is a bug in ccsurgeon or an unusual session: please report it with 'ccsurgeon validate' output", Code: 1}
}

// cannotFailGate reports whether file f of the result has f's problems and
// no other, whatever its bytes: a clone of f (ops.Txn.OnlyRenames), a
// move's result whose only change is paths in fields the index does not
// read (ops.Txn.KeepsIndex), or f byte for byte (ops.Txn.WritesAsIs). Its
// render is not indexed again to be checked, and a write of it needs no
// render beforehand to know that it passes.
func (j *job) cannotFailGate(f *chain.File) bool {
	t := j.t
	return t.OnlyRenames(f) || t.KeepsIndex(f) || t.WritesAsIs(f)
}

// render returns the function that writes file f of the result (named
// name in messages). The bytes are indexed as they stream by; once all are
// written the result is validated against the input file, and a problem
// the input did not have fails the render, so that nothing is committed.
func (j *job) render(f *chain.File, name string) func(io.Writer) error {
	return func(dst io.Writer) error {
		t := j.t
		if f == t.S.Main {
			j.pr.Phase("checking", 0)
		}
		sid, newSID := "", ""
		if f == t.S.Main {
			sid, newSID = t.S.ID, t.S.ID
			if t.NewID != "" {
				newSID = t.NewID
			}
		}
		// the input's problems are found while the output is written
		// (the check is serial: it held up the write on one core), and
		// its graph goes as soon as they are: on a big session the graph
		// and the output's whole index would not fit in half the file's
		// size, and the check ends while the first part of the output is
		// indexed. The write reads f's lines and entries, never its graph.
		var before validate.Report
		checked := make(chan struct{})
		go func() {
			defer close(checked)
			if j.uncounted && j.cannotFailGate(f) {
				// nothing to compare the result with, nothing to count
				// (a second of CPU of a move of a million entries)
				return
			}
			before = validate.Report{Problems: validate.File(f, sid)}
			f.ForgetGraph()
		}()
		waited := false
		waitChecked := func() {
			if !waited {
				<-checked
				waited = true
			}
		}
		defer waitChecked() // f is not the check's once render returns
		if f == t.S.Main {
			j.pr.Phase("writing", 0) // the output's size is not known before it is written
		}
		if j.cannotFailGate(f) {
			// a clone of f: the same lines with the identifiers renamed
			// by a permutation (ops.Txn.OnlyRenames) has f's problems and
			// no other, so it is not indexed again to be checked (on a
			// chain of small entries that second index was a third of
			// the work and held as much memory as the first);
			// TestCloneHasItsOriginalsProblems holds the output to it.
			// So does a move's result whose only change is paths in
			// fields the index does not read (ops.Txn.KeepsIndex), and a
			// result that is f byte for byte (ops.Txn.WritesAsIs: a
			// strip-thinking of a session without thinking)
			cw := &chain.CountWriter{W: j.pr.Writer(dst)}
			if err := t.Render(f)(cw); err != nil {
				return err
			}
			waitChecked()
			j.mu.Lock()
			defer j.mu.Unlock()
			j.sizes[f] = cw.N
			j.preexisting += before.Errors()
			j.rendered = append(j.rendered, f)
			return nil
		}
		cw := &chain.CountWriter{W: j.pr.Writer(dst)}
		var sink io.Writer = cw
		if dst == io.Discard {
			// a dry run keeps nothing: the unchanged lines are not even
			// read (their entries are the input's), the size is the index's
			sink = io.Discard
		}
		iw := chain.NewIndexWriter(name, sink, t.LinesAfter(f))
		err := t.Render(f)(iw)
		idx, idxErr := iw.Close()
		if err != nil {
			return err
		}
		if idxErr != nil {
			return idxErr
		}
		j.mu.Lock()
		j.sizes[f] = cw.N
		if sink == io.Discard {
			j.sizes[f] = idx.Size
		}
		j.mu.Unlock()
		idx.Sidechain = f.Sidechain
		after := validate.Report{Problems: validate.File(idx, newSID)}
		waitChecked()
		j.mu.Lock()
		defer j.mu.Unlock()
		j.preexisting += before.Errors()
		j.rendered = append(j.rendered, f)
		if bad := validate.Introduced(before, after); len(bad) > 0 {
			j.introduced = append(j.introduced, bad...)
			for _, p := range before.Problems {
				if p.Severity == validate.Error {
					j.had = append(j.had, p)
				}
			}
			return errGate
		}
		return nil
	}
}

// unwrittenErrors counts the validation errors of the input files the
// destination did not write (render counts those of the files it writes),
// so that the pre-existing count is the whole input session's, whatever
// the destination.
func (j *job) unwrittenErrors() int {
	written := map[*chain.File]bool{}
	for _, f := range j.rendered {
		written[f] = true
	}
	n := 0
	for _, f := range j.t.S.Files() {
		if written[f] {
			continue
		}
		sid := ""
		if f == j.t.S.Main {
			sid = j.t.S.ID
		}
		r := validate.Report{Problems: validate.File(f, sid)}
		n += r.Errors()
	}
	return n
}

// resultFiles are the files of the session that the result writes: the
// main transcript and the subagent transcripts that changed (all of them
// for a new session).
func (j *job) resultFiles() []*chain.File {
	t := j.t
	out := []*chain.File{}
	for _, a := range t.S.Subagents {
		if t.RemovedFiles[a.File] || (t.NewID == "" && !t.Touches(a.File)) {
			continue
		}
		out = append(out, a.File)
	}
	return append(out, t.S.Main) // the main file last: it decides the session
}

func (j *job) dryRun(withDiff bool) error {
	for _, f := range j.resultFiles() {
		var w io.Writer = io.Discard
		var buf bytes.Buffer
		if withDiff && f == j.t.S.Main {
			w = &buf
		}
		if err := j.render(f, f.Path+" (after "+j.op+")")(w); err != nil {
			return err
		}
		if buf.Len() > 0 {
			j.diff = buf.Bytes()
		}
	}
	return nil
}

// writeSubagent writes a subagent transcript of a new session to dst (by
// render), with its meta.json (at meta, "" for none) next to it; made
// (when not nil) is told each file once it is made.
func writeSubagent(render func(io.Writer) error, meta, dst string, rm *ops.Remapper, ds *backup.DirSync, made *madeList) error {
	if err := ds.CreateNew(dst, render); err != nil {
		return err
	}
	made.add(dst)
	if meta == "" {
		return nil
	}
	b, err := chain.ReadSideFile(meta)
	if err != nil {
		return err
	}
	if rm != nil {
		b = rm.JSON(b)
	}
	mdst := strings.TrimSuffix(dst, ".jsonl") + ".meta.json"
	if err := ds.CreateNew(mdst, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	made.add(mdst)
	return nil
}

// madeList is what a creation has made, for the clean-up of a failure,
// which removes those paths and only those: a path is added once it is
// made (a file that was there, or appeared meanwhile, never is); a folder
// goes only once empty (the files the creation wrote in it go first,
// backup.DirSync's RemoveMade: what another process put there stays).
// Safe for concurrent use; a nil list records nothing.
type madeList struct {
	mu    sync.Mutex
	paths []string
}

func (m *madeList) add(p string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.paths = append(m.paths, p)
	m.mu.Unlock()
}

// removeAll removes what was made, the last made first (a folder only
// when empty).
func (m *madeList) removeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := len(m.paths) - 1; k >= 0; k-- {
		os.Remove(m.paths[k])
	}
}

// tasks runs functions a few at a time and keeps the first error; once one
// failed, the rest are not started. Wait is called once, at the end.
type tasks struct {
	g      *errgroup.Group
	failed context.Context // done once a function failed
}

func newTasks(n int) *tasks {
	g, failed := errgroup.WithContext(context.Background())
	g.SetLimit(n)
	return &tasks{g: g, failed: failed}
}

// Go runs fn when a slot is free, unless a function failed.
func (t *tasks) Go(fn func() error) {
	if t.failed.Err() != nil {
		return
	}
	t.g.Go(func() error {
		if t.failed.Err() != nil {
			return nil
		}
		return fn()
	})
}

// Wait waits for the started functions and returns the first error.
func (t *tasks) Wait() error { return t.g.Wait() }

// toStdout renders to a scratch file first: nothing reaches stdout unless
// the result passes the gate.
func (j *job) toStdout() error {
	tmp, err := os.CreateTemp("", "ccsurgeon-*.jsonl")
	if err != nil {
		return Errorf("cannot make a scratch file: %v", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := j.render(j.t.S.Main, "-")(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = io.CopyBuffer(RawOut(j.env.Out), tmp, make([]byte, 1<<20))
	return err
}

// onlyMainWritten makes the result of a write of the main transcript
// alone (-o FILE, -o -) say what it wrote: the secrets counted are those
// of the main transcript; the files of the session that hold the others
// (subagent transcripts, tool-results files) are named in a note and
// their secrets counted as not written. It returns the note.
func onlyMainWritten(t *ops.Txn, out *WriteResult, dest string) (string, int) {
	var files []string
	n := 0
	for p, byRule := range t.Report.SecretsByFile {
		if p == t.S.Main.Path {
			continue
		}
		files = append(files, p)
		for rule, k := range byRule {
			n += k
			out.Counts[ops.CountSecrets] -= k
			if det := out.CountDetails[ops.CountSecrets]; det != nil {
				if det[rule] -= k; det[rule] <= 0 {
					delete(det, rule)
				}
			}
		}
	}
	if n == 0 {
		return "", 0
	}
	if out.Counts[ops.CountSecrets] <= 0 {
		delete(out.Counts, ops.CountSecrets)
		delete(out.CountDetails, ops.CountSecrets)
	}
	delete(out.Counts, ops.CountSidecarsRedacted)
	sort.Strings(files)
	shown := files
	if len(shown) > 5 {
		shown = shown[:5]
	}
	list := strings.Join(shown, ", ")
	if len(files) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	what := Plural(len(files), "file of the session was", "files of the session were")
	if len(files) == len(t.Sidecars) {
		what = Plural(len(files), "tool-results file was", "tool-results files were")
	}
	note := fmt.Sprintf("-o writes the main transcript only: %s not written and still %s %s, not in %s: %s; write the whole session redacted with -o DIR/ (a folder), redact it in place, or use --new",
		what, map[bool]string{true: "holds", false: "hold"}[len(files) == 1], Plural(n, "secret", "secrets"), dest, list)
	out.Notes = append(out.Notes, note)
	out.SidecarSecretsNotWritten = n
	out.notWritten = map[string]bool{}
	for _, f := range files {
		out.notWritten[f] = true
	}
	return note, n
}

// changedAgentsWithSecrets counts the subagent transcripts that changed
// only by holding secrets (onlyMainWritten names them).
func changedAgentsWithSecrets(t *ops.Txn) int {
	n := 0
	for _, a := range t.S.Subagents {
		if t.Report.SecretsByFile[a.File.Path] != nil && t.Touches(a.File) {
			n++
		}
	}
	return n
}

// sidecarSecrets counts the secrets replaced in the tool-results files.
func sidecarSecrets(t *ops.Txn) int {
	n := 0
	for _, sc := range t.Sidecars {
		n += sc.Secrets
	}
	return n
}

// otherFileSecrets counts the secrets found in the session's files
// beside its main transcript (subagent transcripts, tool-results files):
// those -o FILE does not write.
func otherFileSecrets(t *ops.Txn) int {
	n := 0
	for p, byRule := range t.Report.SecretsByFile {
		if p == t.S.Main.Path {
			continue
		}
		for _, k := range byRule {
			n += k
		}
	}
	return n
}

// summaryTo is the Env a summary of a write to d is printed with: with
// -o - stdout holds the session (or nothing), so the summary goes to stderr.
func (env *Env) summaryTo(d Dest) *Env {
	if d.Output != "-" || d.DryRun {
		return env
	}
	e := *env
	e.Out = env.Err
	return &e
}

func (env *Env) printNothingToChange(out WriteResult) error {
	if env.JSON {
		return env.printResultJSON(out)
	}
	switch {
	case out.check && out.redactions.Len() == 0 && out.notScanned == 0:
		fmt.Fprintf(env.Out, "%s --check: no secrets found in %s; nothing was written\n", out.Operation, out.Path)
	case out.check:
		fmt.Fprintf(env.Out, "%s --check on %s: nothing to change; nothing was written\n", out.Operation, out.Path)
	case out.DryRun:
		fmt.Fprintf(env.Out, "dry run: %s on %s: nothing to change; nothing was written\n", out.Operation, out.Path)
	default:
		fmt.Fprintf(env.Out, "%s: nothing to change in %s; nothing was written\n", out.Operation, out.Path)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(env.Out, "note: %s\n", n)
	}
	return nil
}

func (j *job) writeInPlace(snaps map[string]*backup.Snapshot, d Dest) (backup.Result, error) {
	s, t := j.t.S, j.t
	plan := backup.Plan{ConfigDir: j.env.ConfigDir, SessionID: s.ID, Key: j.lock.Key(), Op: j.op, ProjectDir: s.ProjectDir,
		Force: d.Force, Keep: d.Keep, NoBackup: d.NoBackup, Lock: j.lock, Named: !j.env.Listed}
	for _, sc := range t.Sidecars {
		plan.Files = append(plan.Files, backup.FileWrite{Path: sc.Path, Snapshot: &backup.Snapshot{Path: sc.Path, Size: sc.Size, ModTime: sc.ModTime}, Render: writeBytes(sc.Data)})
	}
	for _, f := range j.resultFiles() {
		plan.Files = append(plan.Files, backup.FileWrite{Path: f.Path, Snapshot: snaps[f.Path], Render: j.render(f, f.Path+" (after "+j.op+")")})
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
		return res, err
	}
	for _, w := range res.Warnings {
		j.env.Warnf("%s", w)
	}
	return res, nil
}

// lockSession takes the one-writer lock of the session at path and
// finishes or removes what an interrupted run on it left behind.
func (env *Env) lockSession(path string) (*backup.SessionLock, error) {
	id, dir := strings.TrimSuffix(filepath.Base(path), ".jsonl"), filepath.Dir(path)
	key := backup.KeyFor(env.ConfigDir, id, dir)
	op := env.Command
	if op == "" {
		op = "change"
	}
	if err := backup.CheckSessionID(id); err != nil {
		return nil, err // what the file is named says more than where its backups would go
	}
	l, err := backup.Lock(env.ConfigDir, key, op)
	if err != nil {
		return nil, err
	}
	did, err := backup.RecoverIn(env.sweeps, env.ConfigDir, key, id, dir)
	for _, d := range did {
		env.Warnf("%s", d.Line())
	}
	if err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

func keepOf(keep int) int {
	if keep == 0 {
		return backup.DefaultKeep
	}
	return keep
}

// redactBackupNote says where copies of the redacted secrets are left:
// every backup of the session (with --no-backup, those of earlier runs).
func (env *Env) redactBackupNote(s *chain.Session, key string) string {
	list, _ := backup.List(env.ConfigDir, key)
	if len(list) == 0 {
		return "no backup holds the secrets (none was kept)"
	}
	purge := "ccsurgeon backups --purge " + s.ID
	if key != s.ID {
		purge = "ccsurgeon backups --purge " + s.Path
	}
	which := fmt.Sprintf("the %d backups of this session still hold", len(list))
	if len(list) == 1 {
		which = "the backup of this session still holds"
	}
	return fmt.Sprintf("%s the secrets (in %s): remove them with '%s', or pass --no-backup to keep no copy",
		which, filepath.Dir(list[0].Dir), purge)
}

// writeNew writes the result as a new session beside the original, with
// its sidecars: subagent transcripts and meta files, tool-results/, and the
// file-history backups behind /rewind. On failure what it created goes.
func (j *job) writeNew() (path string, err error) {
	s, t := j.t.S, j.t
	plan := newSession{
		from: s.ID, sidecarDir: s.SidecarDir(), newID: t.NewID, op: j.op, rm: t.Remapper(),
		projectDir: j.newProjectDir, main: func(dst string) func(io.Writer) error { return j.render(s.Main, dst) },
		firstPrompt: func() (string, bool) { return firstPrompt(s.Main) },
		changed:     map[string][]byte{},
	}
	for _, f := range j.resultFiles() {
		if f == s.Main {
			continue
		}
		for _, a := range s.Subagents {
			if a.File == f {
				plan.subagents = append(plan.subagents, newSubagent{path: f.Path, meta: a.MetaPath, legacy: a.Legacy,
					render: func(dst string) func(io.Writer) error { return j.render(f, dst) }})
			}
		}
	}
	for _, sc := range t.Sidecars {
		plan.changed[sc.Path] = sc.Data
	}
	return j.env.writeNewSession(plan)
}

// newSession is what writeNewSession writes: a new session made from the
// session from (its sidecars in sidecarDir) by the operation op.
type newSession struct {
	from, sidecarDir, newID, op string
	rm                          *ops.Remapper // renames the subagents' meta files
	// projectDir is the folder the new session goes in
	projectDir func() (string, error)
	// main renders the main transcript written at dst
	main      func(dst string) func(io.Writer) error
	subagents []newSubagent
	// changed: tool-results files whose bytes the result changes (by path)
	changed map[string][]byte
	// firstPrompt is the text of the first prompt (for sessions-index.json)
	firstPrompt func() (string, bool)
}

// folderLike gives a folder of the new session (in the project folder
// dir, config dir cfg) the folder it stands for, whose mode it gets: its
// original's (<id>/ and the folders below it, file-history/<id>/ when cfg
// is given), and for a new project folder the config dir's projects/ (its
// parent).
func (ns newSession) folderLike(cfg, dir string) func(p string) os.FileInfo {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	pairs := [][2]string{{abs(filepath.Join(dir, ns.newID)), abs(ns.sidecarDir)}}
	if cfg != "" { // (a share folder has no file-history/)
		pairs = append(pairs, [2]string{filepath.Join(cfg, "file-history", ns.newID), abs(filepath.Join(cfg, "file-history", ns.from))})
	}
	dir = abs(dir)
	return func(p string) os.FileInfo {
		p = abs(p)
		old := ""
		for _, m := range pairs {
			if rel, err := filepath.Rel(m[0], p); err == nil && (rel == "." || filepath.IsLocal(rel)) {
				old = filepath.Join(m[1], rel)
			}
		}
		if p == dir {
			return backup.ParentFolderOf(p)
		}
		if fi, err := os.Lstat(old); old != "" && err == nil && fi.IsDir() {
			return fi
		}
		return nil
	}
}

// newSubagent is a subagent transcript of a new session.
type newSubagent struct {
	path, meta string
	legacy     bool
	render     func(dst string) func(io.Writer) error
}

// writeNewSession writes a new session with its sidecars: subagent
// transcripts and meta files, tool-results/, and the file-history backups
// behind /rewind. On failure what it created goes.
func (env *Env) writeNewSession(ns newSession) (path string, err error) {
	var created madeList
	// the new files are made durable together (backup.DirSync), the main
	// transcript last, once every other file is on disk
	ds := &backup.DirSync{}
	var nf *backup.NewFiles
	defer func() {
		if err != nil {
			ds.RemoveMade() // after the background steps: none may come after
			if nf != nil {
				nf.RemoveMarkers()
			}
			created.removeAll()
		}
		// the folders stay marked as being written until a failed attempt
		// has removed them: released first, another creation's sweep (clone
		// --all runs two at a time, and a fast clone that meets unknown ids
		// starts again) took them for an interrupted run's in between,
		// removed them and warned of one
		if nf != nil {
			nf.Release()
		}
	}()
	if err := chain.CheckConfigDir(env.ConfigDir); err != nil {
		return "", err // a folder without projects/ is made no config dir
	}
	// where the new session's origin is noted: refused before anything is
	// written if a link would lead the note elsewhere
	if err := backup.CheckOwn(env.ConfigDir, originsFile(env.ConfigDir)); err != nil {
		return "", err
	}
	dir, err := ns.projectDir()
	if err != nil {
		return "", err
	}
	if backup.InProjects(env.ConfigDir, dir) {
		// spelled from the config dir as it was given (a session named by
		// its path is resolved, also through a config dir that is a
		// link): its folders are made from the config dir down
		dir = filepath.Join(env.ConfigDir, "projects", filepath.Base(dir))
		if a, err := filepath.Abs(dir); err == nil {
			dir = a
		}
	}
	for _, w := range backup.SweepProjectIn(env.sweeps, env.ConfigDir, dir) {
		env.Warnf("an earlier run was interrupted: %s", w)
	}
	newMain := filepath.Join(dir, ns.newID+".jsonl")
	sidecar := filepath.Join(dir, ns.newID)
	// the new files go into the config dir: no folder on the way may be a
	// symlink (it would lead them anywhere), and every folder is made
	// from the config dir down, following no link (one swapped for a link
	// after this check is refused)
	cfg, err := filepath.Abs(env.ConfigDir)
	if err != nil {
		return "", err
	}
	ds.Base = cfg
	for _, p := range []string{filepath.Join(sidecar, "subagents", "x"), filepath.Join(cfg, "file-history", ns.newID, "x")} {
		if err := backup.RefuseSymlinks(cfg, p); err != nil {
			return "", err
		}
		if err := backup.InsideConfigDir(cfg, p); err != nil {
			return "", err // whatever way the folder was reached
		}
	}
	// every path the new session takes must be free: the clean-up of a
	// failed attempt removes them, and must never remove what it did not make
	fileHistory := filepath.Join(env.ConfigDir, "file-history", ns.newID)
	for _, p := range []string{newMain, sidecar, fileHistory} {
		if _, err := os.Lstat(p); err == nil {
			return "", Errorf("%s already exists", p)
		}
	}
	// the new session's own folders: every folder below them is made by
	// the writer, never reached through a link planted after this check
	ds.Roots = []string{sidecar, fileHistory}
	ds.Like = ns.folderLike(cfg, dir)
	// every folder of the new session is marked until its main transcript
	// is in place: the next run removes what a killed one left
	nf = backup.BeginNew(cfg, newMain)
	nf.Like = ds.Like
	// Everything the main transcript refers to is written four files at a
	// time, their fsyncs in the background (DirSync); the main transcript
	// is linked into place last, once they are all on disk. Every file is
	// new: a crash (power lost) before that leaves no main transcript, and
	// what was written goes at the next run (the folders are marked);
	// after it, the whole session.
	work := newTasks(4)
	var written []string // the transcripts made, for the live guard
	var skipped []error  // what the copies left out (not regular files, our own names)
	defer func() { env.warnSkipped(skipped) }()
	// tool-results/ and file-history/<id>/ are copied as they are, but
	// for the tool-results files the result changes (redact-secrets)
	// into the folder the sweep looks at (the sidecar folder, not its
	// tool-results/: a killed run's copy was never swept)
	copies := []struct{ src, dst, own string }{
		{filepath.Join(ns.sidecarDir, "tool-results"), filepath.Join(sidecar, "tool-results"), sidecar},
		{filepath.Join(env.ConfigDir, "file-history", ns.from), fileHistory, fileHistory},
	}
	marked := map[string]bool{}
	mark := func(folder string) error {
		if marked[folder] {
			return nil
		}
		if err := nf.Folder(folder); err != nil {
			return err
		}
		created.add(folder) // made by Folder: never before
		marked[folder] = true
		return nil
	}
	// The new session's folders are made and marked before the main
	// transcript is begun: their marks' fsyncs (four) then do not wait
	// behind its writeback, which the first of them did for up to 0.47 s
	// under load, and the sidecars, whose fsyncs end the write, start at
	// once (BENCHMARKS.md 2026-11-27 sidecars2). The same folders as
	// queue marks, for the same reasons.
	for _, a := range ns.subagents {
		if !a.legacy && backup.NodeAt(a.path) == nil {
			if err := mark(sidecar); err != nil {
				return "", err
			}
			break
		}
	}
	for _, c := range copies {
		if st, err := os.Stat(c.src); err == nil && st.IsDir() {
			if err := mark(c.own); err != nil {
				return "", err
			}
		}
	}
	queue := func() error {
		for _, a := range ns.subagents {
			// a subagent transcript that is a link is left out, as a link
			// in tool-results/: its bytes are another file's
			if na := backup.NodeAt(a.path); na != nil {
				skipped = append(skipped, na)
				continue
			}
			base := filepath.Base(a.path)
			dst := filepath.Join(sidecar, "subagents", base)
			if a.legacy {
				// a random name beside the main transcript: one whose
				// transcript or meta file is taken is passed over, so
				// that neither the clean-up of a failure nor the next
				// run's sweep removes a file this run did not make
				for {
					dst = filepath.Join(dir, backup.NewLegacyAgentName(base))
					if !pathTaken(dst) && !pathTaken(strings.TrimSuffix(dst, ".jsonl")+".meta.json") {
						break
					}
				}
				if err := nf.File(dst); err != nil {
					return err
				}
				if err := nf.File(strings.TrimSuffix(dst, ".jsonl") + ".meta.json"); err != nil {
					return err
				}
			} else if err := mark(sidecar); err != nil {
				return err
			}
			written = append(written, dst)
			made := &created
			if !a.legacy {
				made = nil // in the sidecar folder, listed whole
			}
			work.Go(func() error { return writeSubagent(a.render(dst), a.meta, dst, ns.rm, ds, made) })
		}
		for _, c := range copies {
			if st, err := os.Stat(c.src); err != nil || !st.IsDir() {
				continue
			}
			if err := mark(c.own); err != nil {
				return err
			}
			left, err := copyTree(c.src, c.dst, ds, work, ns.changed)
			skipped = append(skipped, left...)
			if err != nil {
				return err
			}
		}
		return nil
	}
	// The main transcript is rendered at the same time (on this file
	// system a create waits on the folder's lock and its inode search, not
	// on a core), and linked once every other file is on disk.
	// (the main transcript is not listed: Last leaves nothing at its path
	// on a failure, and a file that appeared there is not this run's)
	queued := make(chan struct{})
	var queueErr error
	mainErr := make(chan error, 1)
	go func() {
		mainErr <- ds.Last(newMain, ns.main(newMain), func() error {
			<-queued
			werr := work.Wait()
			if queueErr != nil {
				return queueErr
			}
			if werr == nil {
				backup.Step("new-after-sidecars")
			}
			return werr
		})
	}()
	queueErr = queue()
	close(queued)
	if err := <-mainErr; err != nil {
		// the main transcript may fail before the copies end (a full
		// disk): they are waited for, or one would make its folder again
		// after the clean-up removed it
		_ = work.Wait()
		return "", err
	}
	// ccsurgeon's own write: the next command may change the new session
	// at once, without the live guard taking it for Claude Code's
	backup.RecordWritten(env.ConfigDir, backup.KeyFor(env.ConfigDir, ns.newID, dir), append(written, newMain))
	if err := recordOrigin(env.ConfigDir, ns.newID, ns.from, ns.op); err != nil {
		env.Warnf("could not note where the new session came from: %v", err)
	}
	nf.Done()
	if err := enterInIndex(ns.from, ns.firstPrompt, dir, ns.newID, newMain); err != nil {
		env.Warnf("could not add the new session to sessions-index.json: %v", err)
	}
	return newMain, nil
}

// newProjectDir is where a new session goes: the project folder of the
// config dir that the client looks in for the session's working directory
// (<config-dir>/projects/<slug of its cwd>/), so that 'claude --resume'
// finds it; the original's folder when that is one of the config dir's.
func (j *job) newProjectDir() (string, error) {
	s := j.t.S
	projects, err := filepath.Abs(chain.ProjectsDir(j.env.ConfigDir))
	if err != nil {
		return "", err
	}
	if pd, ok := j.env.ownProjectDir(s.ProjectDir); ok {
		return pd, nil
	}
	// the project the client takes it for (after /cd, the new one), else
	// the first cwd further on
	if cwd := chain.RecordedCwd(s.Main); filepath.IsAbs(cwd) {
		return filepath.Join(projects, filepath.Base(chain.ProjectDirOf(j.env.ConfigDir, cwd))), nil
	}
	for i := range s.Main.Entries {
		raw, err := s.Main.Raw(i)
		if err != nil {
			continue
		}
		if cwd := gjson.GetBytes(raw, "cwd"); cwd.Type == gjson.String && filepath.IsAbs(cwd.Str) {
			return filepath.Join(projects, filepath.Base(chain.ProjectDirOf(j.env.ConfigDir, cwd.Str))), nil
		}
	}
	return "", &Error{Msg: fmt.Sprintf("cannot tell which project %s belongs to: no entry names its working directory (cwd)", s.Path),
		Hint: "write the result to a file with -o PATH instead", Code: 1}
}

// ownProjectDir returns the absolute path of projectDir when it is a folder
// of the config dir's projects (seen through symlinks): a new session made
// from a session there goes beside it.
func (env *Env) ownProjectDir(projectDir string) (string, bool) {
	if pd, err := filepath.Abs(projectDir); err == nil && backup.InProjects(env.ConfigDir, pd) {
		return pd, true
	}
	return "", false
}

// writeBytes renders b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// copyTree copies the files under src to dst (as new files, through ds),
// each as one of the tasks; a file that changed (by its path under src)
// gets its new bytes instead. A node that is not a regular file (a link,
// a named pipe, a device) is not read through: it would copy the bytes of
// a file outside the config dir, or wait forever. It is left out, and
// named in the list returned.
func copyTree(src, dst string, ds *backup.DirSync, work *tasks, changed map[string][]byte) (skipped []error, err error) {
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return nil, nil
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if kind := backup.NodeKind(d.Type()); kind != "" {
			skipped = append(skipped, &backup.NotAFileError{Path: p, Kind: kind})
			return nil
		}
		if backup.IsOwnName(d.Name()) {
			// ccsurgeon's bookkeeping, not the session's: in the new
			// session a mark would be taken for its own
			skipped = append(skipped, &backup.OwnNameError{Path: p})
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		render := backup.CopyBeneath(src, p) // a folder below src swapped for a link is not followed
		if b, ok := changed[p]; ok {
			render = writeBytes(b)
		}
		work.Go(func() error { return ds.CreateNew(filepath.Join(dst, rel), render) })
		return nil
	})
	return skipped, err
}

// warnSkipped says which nodes a copy left out (copyTree).
func (env *Env) warnSkipped(skipped []error) {
	for _, err := range skipped {
		var na *backup.NotAFileError
		var own *backup.OwnNameError
		switch {
		case errors.As(err, &na):
			env.Warnf("not copied: %s is %s, not a regular file", na.Path, na.Kind)
		case errors.As(err, &own):
			env.Warnf("not copied: %s bears the name of a ccsurgeon bookkeeping file, not a file of the session", own.Path)
		}
	}
}

func (env *Env) printWriteResult(out WriteResult) error {
	if env.JSON {
		return env.printResultJSON(out)
	}
	w := env.Out
	switch {
	case out.shareFolder:
		fmt.Fprintf(w, "wrote session %s with its files to %s\n", out.SessionID, filepath.Dir(out.Path))
	case out.ResumeCommand != "":
		fmt.Fprintf(w, "new session %s\n  %s\n", out.SessionID, out.Path)
		fmt.Fprintf(w, "resume it with: %s\n", out.ResumeCommand)
	case out.Backup != nil:
		fmt.Fprintf(w, "%s: %s\n", out.Operation, out.Path)
		undo := env.sessionArg(out.SessionID, out.Path)
		if out.Preexisting > 0 {
			undo = "--force " + undo // the input would not resume: restore refuses it without --force
		}
		fmt.Fprintf(w, "backup: %s (undo with '%s restore %s')\n", *out.Backup, env.Self(), undo)
	case out.NothingToChange: // -o: an identical copy
		fmt.Fprintf(w, "%s: no change; wrote an identical copy to %s\n", out.Operation, out.Path)
		for _, n := range out.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		return nil
	default:
		fmt.Fprintf(w, "wrote %s\n", out.Path)
		if out.newID && out.SessionID != "" && filepath.Base(out.Path) != out.SessionID+".jsonl" {
			// the client finds a session by its file's name
			fmt.Fprintf(w, "session %s: to resume it, put it in a project folder as %s.jsonl\n", out.SessionID, out.SessionID)
		}
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
	if tk := out.ResumeTokens; tk != nil {
		fmt.Fprintf(w, "tokens on resume (estimate): %s -> %s (%.1f%% fewer; %.0f%% of the %s-token context window)", chain.HumanTokens(tk.Before), chain.HumanTokens(tk.After),
			100*float64(tk.Before-tk.After)/float64(max(tk.Before, 1)), 100*float64(tk.After)/float64(max(tk.ContextWindow, 1)), chain.HumanTokens(tk.ContextWindow))
		if tk.Target > 0 {
			fmt.Fprintf(w, "; target %s", chain.HumanTokens(tk.Target))
		}
		fmt.Fprintln(w)
	}
	for _, line := range countLines(out.Counts, out.CountDetails) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	env.printRedactions(out.redactions, out.notWritten, out.SidecarSecretsNotWritten, out.Path)
	if out.Preexisting > 0 {
		fmt.Fprintf(w, "note: the input already had %s; %s not new (see 'ccsurgeon validate')\n", Plural(out.Preexisting, "validation error", "validation errors"), map[bool]string{true: "it is", false: "they are"}[out.Preexisting == 1])
	}
}

func (env *Env) printDryRun(s *chain.Session, after []byte, out WriteResult) error {
	if env.JSON && after == nil {
		return env.printResultJSON(out)
	}
	if after != nil {
		fh, err := chain.OpenShared(s.Path)
		if err != nil {
			return err
		}
		before, err := io.ReadAll(fh)
		fh.Close()
		if err != nil {
			return err
		}
		fmt.Fprint(env.Out, backup.Diff(before, after, backup.DiffOptions{NameA: s.Path, NameB: s.Path + " (after " + out.Operation + ")"}))
		if env.JSON {
			return nil
		}
	}
	if out.check {
		fmt.Fprintf(env.Out, "%s --check on %s: nothing was written\n", out.Operation, s.Path)
	} else {
		fmt.Fprintf(env.Out, "dry run: %s on %s; nothing was written\n", out.Operation, s.Path)
	}
	env.printSummary(out)
	return nil
}

// countLines are the text summary's count lines, in the order of
// ops.CountKinds (a count no kind names comes last, by key), each with
// its breakdown sorted by name: the same lines in the same order every run.
func countLines(counts map[string]int, details map[string]map[string]int) []string {
	var out []string
	line := func(key, label string) {
		s := fmt.Sprintf("%s: %d", label, counts[key])
		if d := details[key]; len(d) > 0 {
			names := make([]string, 0, len(d))
			for n := range d {
				names = append(names, n)
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for k, n := range names {
				parts[k] = fmt.Sprintf("%s %d", n, d[n])
			}
			s += " (" + strings.Join(parts, ", ") + ")"
		}
		out = append(out, s)
	}
	known := map[string]bool{}
	for _, c := range ops.CountKinds {
		known[c.Key] = true
		if _, ok := counts[c.Key]; ok {
			line(c.Key, c.Label)
		}
	}
	var rest []string
	for k := range counts {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		line(k, strings.ReplaceAll(k, "_", " "))
	}
	return out
}

// printResultJSON prints a write result as one JSON object, the secrets
// of redact-secrets streamed from their log into "redactions" (right after
// "preexisting_errors", where the field is) one at a time.
func (env *Env) printResultJSON(out WriteResult) error {
	if out.redactions.Len() == 0 {
		return env.printJSON(out)
	}
	if err := out.redactions.Err(); err != nil {
		return err
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	out.Redactions = nil
	if err := enc.Encode(emptyNotNull(out)); err != nil {
		return err
	}
	// the secrets go in place of the empty list printed for them
	b := head.Bytes()
	const key = "\n  \"redactions\": []"
	k := bytes.Index(b, []byte(key))
	if k < 0 {
		return fmt.Errorf("internal: no redactions in the result")
	}
	eol := k + len(key)
	w := bufio.NewWriterSize(env.Out, 1<<16)
	w.Write(b[:k])
	w.WriteString("\n  \"redactions\": [")
	err := out.redactions.WriteEach(w, func() func([]byte, int, *ops.RedactionRec) []byte {
		re := redactionEncoder{notWritten: out.notWritten}
		return func(b []byte, k int, r *ops.RedactionRec) []byte {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			return re.encode(b, r)
		}
	})
	if err != nil {
		return err
	}
	w.WriteString("\n  ]")
	w.Write(b[eol:])
	return w.Flush()
}

// redactionEncoder writes a secret of the list as json.Marshal of its
// ops.Redaction does (one line a secret, in the indented object), without
// reflection, with the few names of files, fields and rules encoded once
// (kept by their number in the list, so that no record hashes a string)
// and the placeholder and fingerprint made in place: a session dense with
// secrets lists millions of them.
type redactionEncoder struct {
	byNum []encodedName
	// notWritten: the files -o FILE does not write, whose secrets are
	// marked "not_written" (asked once per file number)
	notWritten map[string]bool
	nwByNum    map[uint32]fileNotWritten
	// byRule: by the rule's number, the bytes of a record between its
	// line number and its placeholder's number, for the field they were
	// last made with (a list's records differ in line, number and
	// fingerprint; their file, field and rule repeat)
	byRule []encodedMid
}

// encodedMid is what a record prints from the end of its line number to
// its placeholder's number, for one field and rule.
type encodedMid struct {
	field, rule string
	// mid: up to the placeholder's opening quote; ph: with the
	// placeholder up to its number (when the rule's name is plain)
	mid, ph string
	plain   bool
}

// fileNotWritten is a file of the list and whether -o FILE writes it.
type fileNotWritten struct {
	file string
	nw   bool
}

// isNotWritten reports whether r's file is one -o FILE does not write.
func (e *redactionEncoder) isNotWritten(r *ops.RedactionRec) bool {
	if len(e.notWritten) == 0 {
		return false
	}
	if e.nwByNum == nil {
		e.nwByNum = map[uint32]fileNotWritten{}
	}
	// the string kept under the number is compared, as name does: a
	// record made by hand may number its file otherwise
	if c, ok := e.nwByNum[r.FileNum]; ok && c.file == r.File {
		return c.nw
	}
	nw := e.notWritten[r.File]
	e.nwByNum[r.FileNum] = fileNotWritten{r.File, nw}
	return nw
}

// encodedName is a name of the list as JSON: raw the name, quoted its
// JSON string, plain whether the two differ only by the quotes; head, of
// a file's name, a record's first bytes up to its line number (made when
// first asked for).
type encodedName struct {
	raw, quoted string
	plain       bool
	head        string
}

const (
	recordHead  = "{\"file\":"
	recordLine  = ",\"line\":"
	recordField = ",\"field\":"
	recordRule  = ",\"rule\":"
	recordPh    = ",\"placeholder\":"
)

// mid returns the bytes of r between its line number and its
// placeholder (encodedMid), made once per rule and field.
func (e *redactionEncoder) mid(r *ops.RedactionRec) *encodedMid {
	n := r.RuleNum
	if int(n) < len(e.byRule) {
		if c := &e.byRule[n]; c.mid != "" && c.rule == r.Rule && c.field == r.Field {
			return c
		}
	}
	// (the field's words are taken before the rule is asked for: under
	// one number, the second name replaces the first)
	field := e.name(r.FieldNum, r.Field).quoted
	rule := e.name(r.RuleNum, r.Rule)
	m := encodedMid{field: r.Field, rule: r.Rule, plain: rule.plain,
		mid: recordField + field + recordRule + rule.quoted + recordPh}
	if rule.plain {
		// a rule's name without characters to escape: nor has its
		// placeholder, made in place
		m.ph = m.mid + "\"[REDACTED:" + r.Rule + ":"
	}
	if n >= maxCachedName {
		return &m
	}
	if int(n) >= len(e.byRule) {
		e.byRule = append(e.byRule, make([]encodedMid, int(n)+1-len(e.byRule))...)
	}
	e.byRule[n] = m
	return &e.byRule[n]
}

// maxCachedName bounds the numbers whose names are kept: a list names a
// few files, fields and rules; a number past it is encoded each time.
const maxCachedName = 1 << 16

// name returns the JSON of s, the list's name number n. A record whose
// number does not match its string (made by hand) is still encoded right:
// the string kept under the number is compared first (equal pointers, in
// the list's records: one comparison of lengths and addresses).
func (e *redactionEncoder) name(n uint32, s string) *encodedName {
	if int(n) < len(e.byNum) {
		if c := &e.byNum[n]; c.quoted != "" && c.raw == s {
			return c
		}
	} else if n < maxCachedName {
		e.byNum = append(e.byNum, make([]encodedName, int(n)+1-len(e.byNum))...)
	} else {
		q := jsonString(s)
		return &encodedName{raw: s, quoted: q, plain: len(q) == len(s)+2}
	}
	q := jsonString(s)
	e.byNum[n] = encodedName{raw: s, quoted: q, plain: len(q) == len(s)+2}
	return &e.byNum[n]
}

// encode appends the secret r to b.
func (e *redactionEncoder) encode(b []byte, r *ops.RedactionRec) []byte {
	file := e.name(r.FileNum, r.File)
	if file.head == "" {
		file.head = recordHead + file.quoted + recordLine
	}
	b = append(b, file.head...)
	b = strconv.AppendInt(b, int64(r.Line), 10)
	m := e.mid(r)
	switch {
	case m.plain && r.Number > 0:
		b = append(b, m.ph...)
		b = strconv.AppendUint(b, uint64(r.Number), 10)
		b = append(b, "]\""...)
	case m.plain:
		b = append(b, m.mid...)
		b = append(b, `""`...) // not replaced: no placeholder
	default:
		b = append(b, m.mid...)
		b = append(b, jsonString(string(r.AppendPlaceholder(nil)))...)
	}
	b = append(b, ",\"fingerprint\":\""...)
	b = hex.AppendEncode(b, r.Fingerprint[:])
	b = append(b, '"')
	if r.InThinking {
		b = append(b, ",\"in_thinking\":true"...)
	}
	if e.isNotWritten(r) {
		b = append(b, ",\"not_written\":true"...)
	}
	return append(b, '}')
}

// isFolderDest reports whether -o names a folder: it ends in a slash (a
// folder that exists named without one is refused, as any node that is
// not a regular file: -o PATH names a file unless it says otherwise).
func isFolderDest(o string) bool {
	if o == "" || o == "-" {
		return false
	}
	return strings.HasSuffix(o, "/") || strings.HasSuffix(o, string(os.PathSeparator))
}

// writeFolder writes the result as a project folder another person can
// put under their projects/ and resume: dir/<id>.jsonl, the subagent
// transcripts and their meta files (dir/<id>/subagents/, or dir/agent-*
// for the 2.0.x layout) and dir/<id>/tool-results/, each as the result
// has it (redact-secrets: redacted). The session keeps its id. Nothing in
// dir is replaced; on failure what was created goes, and only that: a
// file another process puts in dir meanwhile stays (backup.DirSync's
// RemoveMade), and the session's folder dir/<id>/ is made by the write,
// never one that appeared meanwhile.
func (j *job) writeFolder(dir string, force bool) (path string, err error) {
	s, t := j.t.S, j.t
	dir = filepath.Clean(dir)
	ds := &backup.DirSync{} // the main transcript last, as for a new session
	defer func() {
		if err != nil {
			ds.RemoveMade() // after the background steps: none may come after
		}
	}()
	if st, err := os.Stat(dir); err != nil {
		if err := ds.Mkdir(dir); err != nil {
			var cw *backup.CannotWriteError
			if errors.As(err, &cw) {
				cw.Path = dir + string(filepath.Separator) // a folder, as -o named it
				return "", cw
			}
			return "", Errorf("cannot make the folder %s: %v", dir, err)
		}
	} else if !st.IsDir() {
		return "", notAFolderError(dir)
	}
	ds.Base = dir // the folder -o names: every folder below it made from it down, following no link
	// the session's id (a copy named otherwise, orig.jsonl: the id its
	// entries record), the name 'claude --resume <id>' opens
	id, rm := s.Main.SessionID(), (*ops.Remapper)(nil)
	if t.NewID != "" { // a clone or fork: its new id, its files renamed alike
		id, rm = t.NewID, t.Remapper()
	}
	mainDst := filepath.Join(dir, id+".jsonl")
	side := filepath.Join(dir, id)
	// its folders take the modes of the session's own (<id>/ and below)
	ds.Like = newSession{newID: id, sidecarDir: s.SidecarDir()}.folderLike("", dir)
	type fileOut struct {
		f    *chain.File
		a    *chain.Subagent
		dest string
	}
	var outs []fileOut
	for _, a := range s.Subagents {
		if t.RemovedFiles[a.File] {
			continue
		}
		dst := filepath.Join(side, "subagents", filepath.Base(a.File.Path))
		if a.Legacy {
			dst = filepath.Join(dir, filepath.Base(a.File.Path))
		}
		outs = append(outs, fileOut{a.File, a, dst})
	}
	taken := []string{mainDst, side}
	for _, o := range outs {
		taken = append(taken, o.dest)
	}
	if err := shareFolderTaken(dir, id, taken); err != nil {
		return "", err
	}
	_ = force // nothing in the folder is replaced, even with --force
	// the session's folder, made here (one made meanwhile is refused):
	// every folder below it is made by the write, one level at a time
	sideDone := false
	makeSide := func() error {
		if sideDone {
			return nil
		}
		if err := ds.Mkdir(side); err != nil {
			return err
		}
		ds.Roots, sideDone = []string{side}, true
		return nil
	}
	work := newTasks(4)
	var left []error // (a subagent transcript that is a link: left out)
	defer func() { j.env.warnSkipped(left) }()
	for _, o := range outs {
		if na := backup.NodeAt(o.a.File.Path); na != nil {
			left = append(left, na)
			continue
		}
		if !o.a.Legacy {
			if err := makeSide(); err != nil {
				work.Wait()
				return "", err
			}
		}
		work.Go(func() error { return writeSubagent(j.render(o.f, o.dest), o.a.MetaPath, o.dest, rm, ds, nil) })
	}
	changed := map[string][]byte{}
	for _, sc := range t.Sidecars {
		changed[sc.Path] = sc.Data
	}
	if st, err := os.Stat(ops.ToolResultsDir(s)); err == nil && st.IsDir() {
		if err := makeSide(); err != nil {
			work.Wait()
			return "", err
		}
		skipped, err := copyTree(ops.ToolResultsDir(s), filepath.Join(side, "tool-results"), ds, work, changed)
		if err != nil {
			work.Wait()
			return "", err
		}
		defer j.env.warnSkipped(skipped)
	}
	if err := work.Wait(); err != nil {
		return "", err
	}
	if err := ds.Last(mainDst, j.render(s.Main, mainDst), work.Wait); err != nil {
		return "", err
	}
	return mainDst, nil
}

// isWindowsPathHere reports whether p is written as Windows writes a
// path — a drive ("C:\", "D:/", chain.HasDrive) or a name ending in '\'
// (a folder) — on a system that is not Windows, where '\' is part of a
// file name and "C:" a relative folder.
func isWindowsPathHere(p string) bool {
	return chain.HostOS != "windows" && (chain.HasDrive(p) || strings.HasSuffix(p, `\`))
}

// refuseWindowsOutput refuses, off Windows, a -o written as Windows
// writes a path ("C:\Users\ana\share\", "share\"): there '\' is part
// of a file name, so it would write one file with that name in the
// current folder where the user meant a folder (or a file) elsewhere.
// The hint is the last name of it written with '/'.
func refuseWindowsOutput(o string) error {
	if !isWindowsPathHere(o) {
		return nil
	}
	parts := strings.FieldsFunc(o, func(r rune) bool { return r == '\\' || r == '/' })
	name := "out.jsonl"
	if len(parts) > 0 && !strings.HasSuffix(parts[len(parts)-1], ":") {
		name = parts[len(parts)-1]
	}
	if strings.HasSuffix(o, `\`) {
		name += "/"
	}
	return UsageErrorf("write it with '/', such as -o "+ShellQuote(name),
		"-o %s is a Windows path: here '\\' is part of a file name and a folder ends in '/'", o)
}

// refuseOutputInProjects refuses -o FILE or -o DIR/ anywhere under the
// config dir's projects/ (through links too): there the output is a second
// file with the session's id (or a session file named unlike its id), and
// two files with one sessionId confuse the client. A copy in this config
// dir is --new's job (clone and fork write one without -o).
func (env *Env) refuseOutputInProjects(d Dest) error {
	if d.Output == "-" && !d.DryRun {
		// the shell opened standard output on a file: the same rule as
		// for -o naming it (>> ~/.claude/projects/…/ID.jsonl appended the
		// session to itself, every entry a duplicate)
		if p, ok := env.stdoutFile(); ok && backup.UnderConfigDir(env.ConfigDir, p) {
			return UsageErrorf("redirect standard output to a file outside "+absOr(env.ConfigDir)+", or leave out -o to change the session in place (with a backup)",
				"standard output is %s, in the config dir: -o - writes a copy for elsewhere, and there it would be a second file of a session or damage ccsurgeon's own files", p)
		}
	}
	if d.Output == "" || d.Output == "-" {
		return nil
	}
	if backup.UnderOwnDir(env.ConfigDir, d.Output) {
		// a backup, its manifest, a journal: replaced, the backup is
		// taken for a partial one and removed with the session's original
		return UsageErrorf("give -o a path outside "+absOr(backup.OwnDir(env.ConfigDir)),
			"-o %s is among ccsurgeon's own files (its backups, locks and journal), which only ccsurgeon writes", d.Output)
	}
	if !backup.UnderProjects(env.ConfigDir, d.Output) {
		if backup.UnderConfigDir(env.ConfigDir, d.Output) {
			// settings.json, history.jsonl, file-history/, todos/,
			// sessions/: the client's, and no place for a copy
			return UsageErrorf("give -o a path outside "+absOr(env.ConfigDir),
				"-o %s is in the config dir, among the client's own files: -o writes a copy for elsewhere, and a session's files there are written by the commands themselves (in place, --new)", d.Output)
		}
		return nil
	}
	projects := chain.ProjectsDir(env.ConfigDir)
	if a, err := filepath.Abs(projects); err == nil {
		projects = a
	}
	hint := "leave out -o and pass --new for a copy in this config dir (a new session id), or give -o a path outside " + projects
	if d.FreshIDs {
		hint = "leave out -o: the command writes a new session in this config dir; or give -o a path outside " + projects
	}
	return UsageErrorf(hint, "-o %s is under the config dir's projects folder: -o writes a copy for elsewhere, and there it would be a second file of the session", d.Output)
}

// stdoutFile is the path of the file standard output is redirected to,
// where the OS tells it (backup.OpenFilePath).
func (env *Env) stdoutFile() (string, bool) {
	out := env.Out
	if env.stdout != nil {
		out = env.stdout
	}
	if f, ok := RawOut(out).(*os.File); ok {
		return backup.OpenFilePath(f)
	}
	return "", false
}

// stdoutIsSession says whether standard output is the session file path
// itself (on any OS: the same file, whatever its name).
func (env *Env) stdoutIsSession(path string) bool {
	out := env.Out
	if env.stdout != nil {
		out = env.stdout
	}
	f, ok := RawOut(out).(*os.File)
	if !ok {
		return false
	}
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && a.Mode().IsRegular() && os.SameFile(a, b)
}

// absOr is p made absolute, or p when it cannot be.
func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// refuseSessionOutput: -o never replaces a session, --force or not (one
// under the config dir's projects/ is refused before, by
// refuseOutputInProjects): a file that is another session's transcript,
// wherever it is, would get this session's content under the other's
// name. A copy of this same session (an earlier export, -o share.jsonl
// run again) is replaced with --force, as any file.
func refuseSessionOutput(out string, st os.FileInfo, id string) error {
	if !st.Mode().IsRegular() || chain.IsSessionFile(out) != nil {
		return nil
	}
	if chain.IsSubagentTranscript(out) {
		// a copy of a subagent's carries the session's id: not a copy
		// of the transcript -o writes
		return &Error{Msg: fmt.Sprintf("%s already exists and is a subagent transcript: -o replaces only a copy of a session's main transcript", out),
			Hint: fmt.Sprintf("give -o the name of a new file; if %s is a copy you made, remove it first (%s)", out, RemoveCmd(out)), Code: 1}
	}
	if chain.SessionIDIs(out, id) {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("%s already exists and is another Claude Code session's transcript: -o never replaces a session", out),
		Hint: fmt.Sprintf("give -o the name of a new file; if %s is a copy you made, remove it first (%s)", out, RemoveCmd(out)), Code: 1}
}

// noteWords are the notes of an operation as the user reads them: a note
// whose remedy is the repair operation names its command.
func noteWords(notes []string) []string {
	var out []string
	for _, n := range notes {
		out = append(out, strings.Replace(n, ops.RepairFirst, "remove or repair the line (ccsurgeon repair) first", 1))
	}
	return out
}

// pathTaken reports whether something (a file, a folder, a link) is at p.
func pathTaken(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// resumeCommand is the command that resumes the new session id written
// at path: the client finds a session in the project folder of the
// directory it runs in, so it runs there (the working directory the
// session records, whose folder path is in) as move's does; a note is
// added to notes when that directory is not on this machine.
func resumeCommand(path, id string, notes []string) (string, []string) {
	cmd := ResumeCmd("", id)
	cwd := chain.RecordedCwdOf(path)
	if cwd == "" || chain.ProjectSlug(cwd) != filepath.Base(filepath.Dir(path)) {
		return cmd, notes
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		notes = append(notes, fmt.Sprintf("the session's working directory %s is not on this machine: the client resumes it from there only (make the folder, or move the session to another path with 'ccsurgeon move %s --to DIR')", cwd, id))
	}
	return ResumeCmd(cwd, id), notes
}
