package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/google/uuid"
)

// A plain clone (no --leaf or --branch) to -o FILE or as a new session
// renames the identifiers of every entry and changes nothing else, so its
// output has exactly its original's problems (TestCloneHasItsOriginalsProblems)
// and needs neither the session's index nor its graph nor the gate: each
// file is streamed through ops.Remapper.Stream, which reads every line as
// the loader does (an entry is a valid JSON object; other lines are copied
// byte for byte), in large blocks, renaming on every core. The rest is the
// full path's: the same checks of the destination, the same files written
// the same way (sidecars, meta files, tool-results/, file-history/, the
// origin note, sessions-index.json), the same summary.
//
// What it does not do is validate the session's links: preexisting_errors
// counts the errors a line-by-line read finds (lines that are not JSON, a
// file without entries), not the graph's (TestFastCloneIsTheFullClone).

// cloneFast writes a plain clone to d. It reports false, having done
// nothing, when the destination needs the full path: -o -, -o DIR/,
// --dry-run, --diff, or a new session of a file outside the config dir's
// projects (its project folder comes from its entries' cwd).
func (env *Env) cloneFast(sessionArg string, d Dest) (bool, error) {
	if d.DryRun || d.Diff || d.Output == "-" || isFolderDest(d.Output) || d.NoBackup || d.Keep != 0 || (d.Output == "") == !d.New {
		return false, nil
	}
	path, d, err := env.prepareWrite(sessionArg, d)
	if err != nil {
		return true, err
	}
	id, projectDir := strings.TrimSuffix(filepath.Base(path), ".jsonl"), filepath.Dir(path)
	if d.New {
		if _, ok := env.ownProjectDir(projectDir); !ok {
			return false, nil
		}
	}
	subs := chain.SubagentFiles(path)
	files := []string{path}
	var links []string
	for _, a := range subs {
		files = append(files, a.Path)
		if a.Link {
			links = append(links, a.Path)
		}
	}
	if err := linkedFolderRefusal(links); err != nil {
		return true, err
	}
	if err := checkOutput(d, files, id); err != nil {
		return true, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return true, err
	}
	pr := env.newProgress()
	defer pr.Done()
	pr.Phase("writing", st.Size())
	c := &fastClone{env: env, path: path, id: id, newID: uuid.NewString(), subs: subs, pr: pr, ids: []string{id}}
	out := WriteResult{SessionID: c.newID, Operation: "clone", BytesBefore: st.Size(), newID: true}
	if d.New {
		out.Path, err = c.writeNew(projectDir)
		out.ResumeCommand, out.Notes = resumeCommand(out.Path, c.newID, out.Notes)
	} else {
		err = c.writeTo(d)
		out.Path = d.Output
		if len(subs) > 0 {
			out.Notes = append(out.Notes, "-o writes the main transcript only: "+Plural(len(subs), "changed subagent transcript was", "changed subagent transcripts were")+" not written (use -o DIR/ or --new to get them too)")
		}
	}
	pr.Done()
	if err != nil {
		return true, err
	}
	out.EntriesBefore, out.EntriesAfter, out.Changed = c.main.Lines, c.main.Lines, c.main.Lines
	out.BytesAfter = c.main.Bytes
	out.Preexisting = c.lineErrors(c.main)
	for _, r := range c.subResults {
		out.Preexisting += c.lineErrors(r)
	}
	return true, env.printWriteResult(out)
}

// fastClone is one plain clone being written.
type fastClone struct {
	env             *Env
	path, id, newID string
	subs            []chain.SubagentFile
	pr              *progress
	mu              sync.Mutex
	ids             []string // the session ids the entries carry, as far as known
	unknown         []string // those an attempt met that its Remapper did not know
	main            ops.StreamResult
	subResults      []ops.StreamResult // read this attempt: one per subagent
}

// lineErrors are the validation errors of a file that one read of its
// lines finds: each damaged line, and a file without entries.
func (c *fastClone) lineErrors(r ops.StreamResult) int {
	n := r.Damaged
	if r.Entries == 0 {
		n++
	}
	return n
}

// stream renames the file at p into w with rm, noting the session ids it
// met that rm did not know. A subagent transcript (any file but the main
// one) is opened from the session's folder down, following no link, and
// must be a regular file once open: one swapped for a link or a pipe
// since the check (writeNewSession leaves out a link it sees) fails the
// clone naming it, rather than copy another file's bytes.
func (c *fastClone) stream(rm *ops.Remapper, p string, w io.Writer) (ops.StreamResult, error) {
	open := chain.OpenShared
	if p == c.path {
		backup.Step("write-session-read") // (tests: what comes before is no work on the session)
	} else {
		open = func(p string) (*os.File, error) { return backup.OpenRegularBeneath(filepath.Dir(c.path), p) }
	}
	fh, err := open(p)
	if err != nil {
		return ops.StreamResult{}, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return ops.StreamResult{}, err
	}
	if st.IsDir() {
		return ops.StreamResult{}, &chain.Error{Msg: p + " is a directory, not a session file", Hint: "give a session id or the path of a .jsonl file"}
	}
	res, err := rm.Stream(w, fh, st.Size())
	var unknown *ops.UnknownSessionIDsError
	if errors.As(err, &unknown) {
		c.mu.Lock()
		c.unknown = append(c.unknown, unknown.IDs...)
		c.mu.Unlock()
	}
	return res, err
}

// again reports whether the attempt just made met session ids its
// Remapper did not know: they are then known, for the next attempt.
func (c *fastClone) again() bool {
	added := false
	for _, id := range c.unknown {
		if !slices.Contains(c.ids, id) {
			c.ids = append(c.ids, id)
			added = true
		}
	}
	c.unknown = nil
	return added // (an attempt that learnt nothing would fail the same way again)
}

// writeTo writes the main transcript to -o FILE. The Remapper must know
// the session ids of the subagent transcripts too (a reference to one is
// renamed as the session's): they are read first, and written nowhere.
func (c *fastClone) writeTo(d Dest) error {
	for {
		rm := ops.NewRemapperFor(c.newID, c.ids...)
		c.subResults = make([]ops.StreamResult, len(c.subs))
		work := newTasks(runtime.GOMAXPROCS(0))
		for k, a := range c.subs {
			if a.Link {
				continue // never read through (and -o FILE writes the transcript only)
			}
			work.Go(func() error {
				var err error
				if c.subResults[k], err = c.stream(rm, a.Path, io.Discard); err != nil && !isUnknownIDs(err) {
					return err
				}
				return nil
			})
		}
		if err := work.Wait(); err != nil {
			return err
		}
		if c.again() {
			continue // the main file is read with every subagent's ids known
		}
		err := backup.WriteTo(d.Output, d.Force, func(w io.Writer) error {
			var err error
			c.main, err = c.stream(rm, c.path, c.pr.Writer(w))
			return err
		})
		if isUnknownIDs(err) && c.again() {
			continue // nothing was kept: WriteTo left the destination as it was
		}
		return err
	}
}

// writeNew writes the clone as a new session in the original's project
// folder, through the one writer of new sessions (writeNewSession).
func (c *fastClone) writeNew(projectDir string) (string, error) {
	dir, _ := c.env.ownProjectDir(projectDir)
	for {
		rm := ops.NewRemapperFor(c.newID, c.ids...)
		c.subResults = make([]ops.StreamResult, len(c.subs))
		ns := newSession{
			from: c.id, sidecarDir: filepath.Join(projectDir, c.id), newID: c.newID, op: "clone", rm: rm,
			projectDir: func() (string, error) { return dir, nil },
			main: func(string) func(io.Writer) error {
				return func(w io.Writer) error {
					var err error
					c.main, err = c.stream(rm, c.path, c.pr.Writer(w))
					return err
				}
			},
			firstPrompt: func() (string, bool) {
				f, err := chain.LoadFile(c.path)
				if err != nil {
					return "", false
				}
				defer f.Close()
				return firstPrompt(f)
			},
		}
		for k, a := range c.subs {
			ns.subagents = append(ns.subagents, newSubagent{path: a.Path, meta: a.MetaPath, legacy: a.Legacy,
				render: func(string) func(io.Writer) error {
					return func(w io.Writer) error {
						var err error
						c.subResults[k], err = c.stream(rm, a.Path, w)
						return err
					}
				}})
		}
		p, err := c.env.writeNewSession(ns)
		if isUnknownIDs(err) && c.again() {
			continue // what the attempt made is gone (writeNewSession removes it)
		}
		return p, err
	}
}

func isUnknownIDs(err error) bool {
	var u *ops.UnknownSessionIDsError
	return errors.As(err, &u)
}
