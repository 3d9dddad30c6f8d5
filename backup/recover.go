package backup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/google/uuid"
)

// journalName is the file in a backup directory that lists the renames
// and removals of a change being committed; it exists only while they run.
const journalName = "commit.json"

type journalStep struct {
	Tmp    string `json:"tmp,omitempty"`
	Target string `json:"target"`
	Remove bool   `json:"remove,omitempty"`
	// Hold is the original's second name while the new file takes its
	// place, Size its size when read: what lies past Size in it was
	// appended during the change, and goes over to the new file.
	Hold string `json:"hold,omitempty"`
	Size int64  `json:"size,omitempty"`
	// Root is the folder the change reached each file from, following no
	// link below it (the config dir, or a named session's folder): the
	// run that finishes the change goes the same way ("": a journal of
	// an older version, finished from the session's folder)
	Root string `json:"root,omitempty"`
}

// writeJournal writes the commit journal of a change into its backup
// bdir, below cfg (the config dir), from cfg down following no link.
func writeJournal(cfg, bdir string, items []item) error {
	var steps []journalStep
	for _, it := range items {
		st := journalStep{Tmp: it.tmp, Target: it.target, Remove: it.Remove, Hold: it.hold, Root: it.root}
		if it.Snapshot != nil {
			st.Size = it.Snapshot.Size
		}
		steps = append(steps, st)
	}
	b, err := json.Marshal(steps)
	if err != nil {
		return err
	}
	return writeFileAtomicBeneath(cfg, filepath.Join(bdir, journalName), DefaultMode, func(w io.Writer) error { _, err := w.Write(b); return err }, true)
}

// finishJournal removes the journal of the backup bdir (below the config
// dir cfg) once every step is done; without a backup to keep (keep false)
// the whole directory goes. Each removal is made from cfg down following
// no link: a ccsurgeon/ swapped for one during the change leads none
// out of the config dir.
func finishJournal(cfg, bdir string, keep bool) error {
	if !keep {
		if err := removeAllBeneath(cfg, bdir); err != nil {
			return err
		}
		_ = removeDirBeneath(cfg, filepath.Dir(bdir)) // the session's folder, if now empty
		return nil
	}
	if err := removeBeneath(cfg, filepath.Join(bdir, journalName)); err != nil {
		return err
	}
	return syncDir(bdir)
}

// rollForward finishes the change a journal describes: temps still there
// are renamed into place, what was appended to an original goes over from
// its second name, files to remove are removed, folders are fsynced —
// each from the step's root (else projectDir) down without following a
// link (renameBeneath, openBeneath, removeBeneath, syncDirBeneath), when
// one is known.
func rollForward(cfg, bdir, projectDir string) error {
	b, err := chain.ReadSideFile(filepath.Join(bdir, journalName))
	if err != nil {
		return err
	}
	var steps []journalStep
	if err := json.Unmarshal(b, &steps); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(bdir, journalName), err)
	}
	dirs := map[string]string{} // folder → the root it is reached from
	for i := range steps {
		if steps[i].Root == "" {
			steps[i].Root = projectDir
		}
	}
	for _, s := range steps {
		if s.Remove || s.Tmp == "" {
			continue
		}
		if _, err := os.Lstat(s.Tmp); err == nil {
			rename := replaceFile
			if s.Root != "" {
				rename = func(tmp, target string) error { return renameBeneath(s.Root, tmp, target) }
			}
			if err := rename(s.Tmp, s.Target); err != nil {
				return err
			}
			dirs[filepath.Dir(s.Target)] = s.Root
		}
	}
	for _, s := range steps {
		if s.Hold == "" {
			continue
		}
		// lines appended to the original before the run was killed
		open, remove := openNoFollow, os.Remove
		if s.Root != "" {
			open = func(p string, flag int, perm os.FileMode) (*os.File, error) {
				return openBeneath(s.Root, p, flag, perm)
			}
			remove = func(p string) error { return removeBeneath(s.Root, p) }
		}
		h, err := open(s.Hold, os.O_RDONLY, 0)
		if err != nil {
			if isSymlinkErr(err) {
				return err
			}
			continue
		}
		err = appendFrom(s.Root, s.Target, h, s.Size)
		h.Close()
		if err != nil {
			return err
		}
		remove(s.Hold)
	}
	for _, s := range steps {
		if s.Remove {
			remove := os.Remove
			if s.Root != "" {
				remove = func(p string) error { return removeBeneath(s.Root, p) }
			}
			if err := remove(s.Target); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			dirs[filepath.Dir(s.Target)] = s.Root
		}
	}
	for d, root := range dirs {
		sync := syncDir
		if root != "" {
			sync = func(d string) error { return syncDirBeneath(root, d) }
		}
		if err := sync(d); err != nil {
			return err
		}
	}
	_, haveManifest := readBackup(bdir)
	return finishJournal(cfg, bdir, haveManifest == nil)
}

// Recover finishes or removes what an interrupted run on the session with
// backup key key left behind; the caller holds the session's lock. A change
// killed while it was being committed is finished (its journal is rolled
// forward); a backup without a manifest (killed while it was taken) is
// removed; so are temp files of killed runs in projectDir and the
// session's sidecar folders, and new-session folders a killed run left in
// projectDir (SweepProject). It returns what it did, one line each, and
// what it found and left that no interrupted run made (Found).
func Recover(configDir, key, sessionID, projectDir string) ([]Recovered, error) {
	return RecoverIn(nil, configDir, key, sessionID, projectDir)
}

// Sweeps remembers the project folders one run has swept for what killed
// runs left (SweepProject), so that a run over many sessions of a folder
// (--all) sweeps it once, not once a session: 1,000 sessions read every
// folder's marker 1,000 times (17 s, 15 of them in the kernel). What a
// run killed after the sweep leaves is the next run's. A nil *Sweeps
// remembers nothing: every call sweeps.
type Sweeps struct {
	mu   sync.Mutex
	done map[string]bool
}

// NewSweeps returns an empty memory of sweeps, for one run.
func NewSweeps() *Sweeps { return &Sweeps{done: map[string]bool{}} }

// first reports whether the folder key is to be swept now (the first
// time in this run), and remembers it.
func (s *Sweeps) first(key string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[key] {
		return false
	}
	s.done[key] = true
	return true
}

// RecoverIn is Recover, the session's project folder swept only if sw has
// not seen it swept in this run (the session's own folders always are).
func RecoverIn(sw *Sweeps, configDir, key, sessionID, projectDir string) ([]Recovered, error) {
	var found []string
	did, err := recoverInto(sw, configDir, key, sessionID, projectDir, &found)
	out := make([]Recovered, 0, len(did)+len(found))
	for _, d := range did {
		out = append(out, Recovered{What: d, Interrupted: true})
	}
	for _, f := range found {
		out = append(out, Recovered{What: f})
	}
	return out, err
}

// Recovered is one line of what Recover did or found: Interrupted when it
// is about what an interrupted run left (a change finished, a partial
// backup removed), else a finding of another cause (a backup whose
// manifest cannot be read, left as it is).
type Recovered struct {
	What        string
	Interrupted bool
}

// Line is r as one line of a warning.
func (r Recovered) Line() string {
	if r.Interrupted {
		return "an earlier run was interrupted: " + r.What
	}
	return r.What
}

// recoverInto is Recover, its findings appended to found.
func recoverInto(sw *Sweeps, configDir, key, sessionID, projectDir string, found *[]string) ([]string, error) {
	var did []string
	// where each removal starts from, told before any: a folder swapped
	// for a link during the sweeps is then never followed
	cfg, proj := startRoot(configDir, configDir), startRoot(configDir, projectDir)
	root := sessionBackupRoot(configDir, key)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		// the temp of a journal or manifest a killed run was saving
		did = append(did, sweepTemps(cfg, dir)...)
		if _, err := os.Lstat(filepath.Join(dir, journalName)); err == nil {
			// a journal naming a file outside the session's folder is
			// another config dir's (this one copied with a change
			// pending): finishing it would change that one
			if far := journalOutside(dir, projectDir); far != "" {
				did = append(did, fmt.Sprintf("left the interrupted change %s as it is: it names %s, outside the session's folder %s (another config dir's, copied here?)", dir, far, projectDir))
				continue
			}
			if err := rollForward(configDir, dir, projectDir); err != nil {
				return did, fmt.Errorf("finish the interrupted change of %s: %w", dir, err)
			}
			did = append(did, "finished the change interrupted in "+dir)
			continue
		}
		if _, err := readBackup(dir); err != nil {
			if _, lerr := os.Lstat(filepath.Join(dir, manifestName)); !errors.Is(lerr, fs.ErrNotExist) {
				// a manifest is written whole, by a rename, last: one that
				// is there but unreadable is no killed run's; the files
				// beside it may be the session's original
				*found = append(*found, fmt.Sprintf("left the backup %s as it is: its manifest cannot be read (%v); it is not listed", dir, err))
				continue
			}
			if err := removeAllBeneath(cfg, dir); err != nil {
				return did, err
			}
			did = append(did, "removed the partial backup "+dir)
		}
	}
	if len(entries) > 0 {
		removeDirBeneath(cfg, root) // if now empty
	}
	// the temp of a record of ccsurgeon's own writes (<key>.written)
	did = append(did, sweepTemps(cfg, BackupsRoot(configDir))...)
	if projectDir != "" {
		if sw.first(sweepKey(proj, projectDir)) {
			did = append(did, sweepProject(proj, cfg, configDir, projectDir)...)
		}
		did = append(did, sweepTemps(proj, filepath.Join(projectDir, sessionID, "subagents"))...)
		did = append(did, sweepTemps(proj, filepath.Join(projectDir, sessionID, "tool-results"))...)
	}
	return did, nil
}

// sweepTemps removes the temp files of killed runs in dir, listed and
// removed in dir reached from root without following a link
// (sweepBeneath): a folder on the way swapped for a link leads no
// removal out of root.
func sweepTemps(root, dir string) []string {
	hook("sweep-temps:" + dir)
	var did []string
	for _, p := range sweepBeneath(root, dir, isTempName, func(name string, mtime time.Time) bool {
		if !tempOwnerGone(name, mtime) {
			return false
		}
		// a temp named in a journal not yet rolled forward is not a leftover
		base := strings.TrimPrefix(name[:strings.Index(name, tmpMarker)], ".")
		return !pendingJournal(dir, base)
	}) {
		did = append(did, "removed the temp file "+p)
	}
	return did
}

// pendingJournal reports whether a commit journal of the session whose
// main file is base (in dir) waits to be rolled forward.
func pendingJournal(dir, base string) bool {
	id := strings.TrimSuffix(base, ".jsonl")
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "projects" {
			for _, b := range listdir.Matching(filepath.Join(filepath.Dir(d), "ccsurgeon", "backups", id), "*") {
				if _, err := os.Lstat(filepath.Join(b, journalName)); err == nil {
					return true
				}
			}
			return false
		}
	}
	return false
}

// incompleteMarker is the file in every folder a new session is being
// written into; it names the writing process and the new main transcript.
const incompleteMarker = ".ccsurgeon-incomplete"

// IsOwnName reports whether a file name is one ccsurgeon gives its own
// bookkeeping beside a session's files: a new session's mark
// (.ccsurgeon-incomplete) or list (.<id>.jsonl.ccsurgeon-files), a temp
// file (.<name>.ccsurgeon-tmp-…, the second name of an original among
// them) or a move's temp (.<name>.ccsurgeon-move-…). A file so named is
// never a session's content: it is not copied into a new session (one
// found there was not made for it, and would be taken for its own).
func IsOwnName(name string) bool {
	return name == incompleteMarker || isTempName(name) || IsMoveTemp(name) ||
		strings.HasPrefix(name, ".") && strings.HasSuffix(name, newFilesSuffix)
}

// writing holds the markers (and lists) of the creations this process is
// making now: a marker with our own pid is a leftover only when it is not
// one of them. Several creations run at once in one process (clone --all
// runs two at a time); the pid alone cannot tell them from a leftover.
var writing = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func markWriting(p string, on bool) {
	writing.Lock()
	defer writing.Unlock()
	if on {
		writing.m[p] = true
	} else {
		delete(writing.m, p)
	}
}

// markerLive reports whether the creation that wrote a marker or list at
// p (naming pid) may still be going.
func markerLive(p string, pid int) bool {
	if pid == os.Getpid() {
		writing.Lock()
		defer writing.Unlock()
		return writing.m[p]
	}
	return pidAlive(pid)
}

// NewFiles is a multi-file creation (a new session with its sidecar
// folders): folders begun with it are removed by the next run's sweep if
// the process dies before Done, unless the main transcript they belong to
// exists by then.
type NewFiles struct {
	// Like gives a folder Folder makes (and a missing parent) the folder
	// it stands for, whose mode it gets (DirSync.Like); nil: 0700
	Like    func(dir string) os.FileInfo
	base    string // the folder its folders are made below (the config dir)
	main    string
	markers []string
	files   []string
}

// BeginNew starts the creation of the session whose main transcript will
// be main, every folder of it made below base (the config dir) from base
// down, following no link.
func BeginNew(base, main string) *NewFiles { return &NewFiles{base: base, main: main} }

// Folder makes dir (mode 0700; its parent made if missing) and marks it as
// part of the creation. Call it before writing anything into dir. A dir
// that is already there (a folder, a file or a link someone put there
// since it was checked) is refused (ErrExists): the creation writes only
// into a folder it made, and its clean-up removes only what it made.
func (n *NewFiles) Folder(dir string) error {
	m := filepath.Join(dir, incompleteMarker)
	for _, have := range n.markers {
		if have == m {
			return nil
		}
	}
	if err := makeDirs(n.base, filepath.Dir(dir), n.Like); err != nil {
		return fmt.Errorf("create directory %s: %w", filepath.Dir(dir), err)
	}
	// listed before it is made: a run killed between the folder and its
	// marker left an empty folder no marker names, which the list does
	if err := n.record(dir); err != nil {
		return err
	}
	if err := makeDir(n.base, dir, n.Like); err != nil {
		if errors.Is(err, os.ErrExist) {
			return existsError(dir)
		}
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	Step("new-folder-made")
	markWriting(m, true)
	// whole or not there: another run's sweep that read it half written
	// took the folder for a leftover (clone --all, two at a time)
	body := strconv.Itoa(os.Getpid()) + "\n" + n.main + "\n"
	if err := writeFileAtomicBeneath(n.base, m, DefaultMode, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }, true); err != nil {
		markWriting(m, false)
		// the folder was made a moment ago and no sweep would find it
		// unmarked: it goes (empty; anything else in it stays)
		os.Remove(dir)
		return err
	}
	n.markers = append(n.markers, m)
	return nil
}

// File records a file of the creation that lies outside its folders (an
// older client's agent-*.jsonl beside the main transcript). Call it before
// writing path.
func (n *NewFiles) File(path string) error { return n.record(path) }

// record adds path (a file outside the creation's folders, or one of its
// folders about to be made) to the creation's list, written whole before
// path is made: the next run's sweep removes what a killed run listed.
func (n *NewFiles) record(path string) error {
	list := newFilesList(n.main)
	markWriting(list, true)
	n.files = append(n.files, path)
	body := strconv.Itoa(os.Getpid()) + "\n" + n.main + "\n" + strings.Join(n.files, "\n") + "\n"
	if err := writeFileAtomicBeneath(n.base, list, DefaultMode, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }, true); err != nil {
		return err
	}
	if len(n.files) == 1 {
		n.markers = append(n.markers, list)
	}
	return nil
}

// newFilesList is the list of the files of a creation outside its folders.
func newFilesList(main string) string {
	return filepath.Join(filepath.Dir(main), "."+filepath.Base(main)+newFilesSuffix)
}

const newFilesSuffix = ".ccsurgeon-files"

// NewLegacyAgentName is the name of a new session's subagent transcript
// in the 2.0.x layout (beside the main transcript, old its source's name,
// agent-<id>.jsonl): agent-<8 random hex>-<id>.jsonl, a name the client
// never gives (its own are agent-<id>.jsonl). Its meta file is the same
// name ending in .meta.json. These are the only names the sweep of a
// killed run's list removes.
func NewLegacyAgentName(old string) string {
	return "agent-" + uuid.NewString()[:8] + "-" + strings.TrimPrefix(old, "agent-")
}

// madeBeside reports whether the file at path is one a new session with
// id newID could have made beside its main transcript (NewLegacyAgentName,
// or its meta file): a regular file (never a link) so named whose
// entries, if it has any, are that session's.
func madeBeside(root, path, newID string) bool {
	name := filepath.Base(path)
	rest, ok := strings.CutPrefix(name, "agent-")
	if !ok || len(rest) < 10 || rest[8] != '-' || strings.Trim(rest[:8], "0123456789abcdef") != "" {
		return false
	}
	transcript := strings.HasSuffix(name, ".jsonl")
	if !transcript && !strings.HasSuffix(name, ".meta.json") {
		return false
	}
	fh, err := openRegularBeneath(root, path)
	if err != nil {
		return false
	}
	defer fh.Close()
	if !transcript {
		return true
	}
	b := make([]byte, 64<<10)
	n, _ := io.ReadFull(fh, b)
	return !bytes.Contains(b[:n], []byte(`"sessionId":`)) || bytes.Contains(b[:n], []byte(`"sessionId":"`+newID+`"`))
}

// Done removes the markers once the main transcript is in place.
func (n *NewFiles) Done() {
	n.RemoveMarkers()
	n.Release()
}

// RemoveMarkers removes the marker files, the creation still taken for one
// being written by this process's sweeps (a failed creation removes its
// markers, then its folders, then calls Release: released first, another
// creation's sweep in between took its folders for a killed run's).
func (n *NewFiles) RemoveMarkers() {
	for _, m := range n.markers {
		os.Remove(m)
	}
}

// Release ends the creation: its markers are no longer taken for one
// being written.
func (n *NewFiles) Release() {
	for _, m := range n.markers {
		markWriting(m, false)
	}
	if n.files != nil {
		markWriting(newFilesList(n.main), false)
	}
	n.markers = nil
}

// SweepProject removes from projectDir (and <config-dir>/file-history) what
// killed runs left: new-session folders whose writer is gone and whose main
// transcript never appeared, and temp files of killed runs.
//
// Each removal goes from the config dir down (or from projectDir, when it
// is not in the config dir by no link) following no link: a folder
// swapped for one leads no removal out of it (unlinkat beneath).
func SweepProject(configDir, projectDir string) []string {
	return SweepProjectIn(nil, configDir, projectDir)
}

// SweepProjectIn is SweepProject, skipped when sw has seen the folder
// swept in this run.
func SweepProjectIn(sw *Sweeps, configDir, projectDir string) []string {
	root := startRoot(configDir, projectDir)
	if !sw.first(sweepKey(root, projectDir)) {
		return nil
	}
	return sweepProject(root, startRoot(configDir, configDir), configDir, projectDir)
}

// sweepKey names a project folder's sweep: the folder, and the folder its
// removals start from.
func sweepKey(root, projectDir string) string {
	if a, err := filepath.Abs(projectDir); err == nil {
		projectDir = a
	}
	return root + "\x00" + projectDir
}

// sweepProject is SweepProject, its removals starting from root (below
// projectDir) and cfg (file-history/).
func sweepProject(root, cfg, configDir, projectDir string) []string {
	if a, err := filepath.Abs(projectDir); err == nil {
		projectDir = a
	}
	rootOf := func(p string) string { // the folder p's removal starts from
		if _, err := beneathParts(root, p); err == nil {
			return root
		}
		return cfg
	}
	did := sweepTemps(root, projectDir)
	// every list, mark and listing read from the config dir down (or from
	// projectDir), following no link: a folder swapped for one has
	// nothing read where it leads
	var lists []string
	ents, _ := readDirBeneath(root, projectDir)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, ".") && strings.HasSuffix(n, newFilesSuffix) {
			lists = append(lists, filepath.Join(projectDir, n))
		}
	}
	for _, l := range lists {
		b, err := readBeneath(root, l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) < 2 {
			continue
		}
		if pid, err := strconv.Atoi(lines[0]); err == nil && markerLive(l, pid) {
			continue // still being written
		}
		if _, err := os.Lstat(lines[1]); err != nil {
			id := strings.TrimSuffix(filepath.Base(lines[1]), ".jsonl")
			for _, f := range lines[2:] {
				// a stale or tampered list may name any file: only
				// what the new session could have made there goes
				if filepath.Dir(f) == projectDir && madeBeside(root, f, id) && removeBeneath(root, f) == nil {
					did = append(did, "removed the file of an unfinished new session "+f)
				}
				// one of its folders, killed before its marker was
				// whole: empty but for the marker's temp (a folder with
				// its marker goes below, by the marker)
				if f == filepath.Join(projectDir, id) || f == filepath.Join(configDir, "file-history", id) {
					if fi, err := os.Lstat(f); err == nil && fi.IsDir() {
						if _, err := os.Lstat(filepath.Join(f, incompleteMarker)); err != nil {
							did = append(did, sweepTemps(rootOf(f), f)...)
							if removeDirBeneath(rootOf(f), f) == nil {
								did = append(did, "removed the unfinished new session folder "+f)
							}
						}
					}
				}
			}
		}
		removeBeneath(root, l)
	}
	for _, parent := range []string{projectDir, filepath.Join(configDir, "file-history")} {
		ents, _ := readDirBeneath(rootOf(filepath.Join(parent, "x")), parent)
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(parent, e.Name())
			b, err := readBeneath(rootOf(dir), filepath.Join(dir, incompleteMarker))
			if err != nil {
				// a run killed as it wrote the marker left its temp (nothing
				// else: the marker comes first), and the folder it made
				if left := sweepTemps(rootOf(dir), dir); len(left) > 0 {
					did = append(did, left...)
					removeDirBeneath(rootOf(dir), dir) // if now empty
				}
				continue
			}
			pidStr, main, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
			pid, perr := strconv.Atoi(pidStr)
			// a stale or tampered mark may stand in any folder: only the
			// folder its new session would have made goes (<newid>/ beside
			// <newid>.jsonl, file-history/<newid>/), never a session's own
			if perr != nil || main == "" {
				// not a whole marker (an older version's, killed as it wrote
				// it): a leftover once it is old, in a project folder
				// where no transcript owns it
				if parent != projectDir || !chain.IsUUID(e.Name()) || pathExists(filepath.Join(projectDir, e.Name()+".jsonl")) {
					continue
				}
				if fi, err := os.Lstat(filepath.Join(dir, incompleteMarker)); err != nil || time.Since(fi.ModTime()) < staleTempAge {
					continue
				}
			} else if filepath.Base(main) != e.Name()+".jsonl" || parent == projectDir && filepath.Dir(main) != projectDir {
				continue // not the mark of this folder's new session
			} else if markerLive(filepath.Join(dir, incompleteMarker), pid) {
				continue // still being written
			}
			if _, err := os.Lstat(main); err == nil {
				removeBeneath(rootOf(dir), filepath.Join(dir, incompleteMarker)) // complete: only the marker was left
				continue
			}
			if parent != projectDir && sessionAnywhere(configDir, e.Name()) {
				// the file-history of a session that is there (its mark
				// names another folder): the user's, whoever wrote the mark
				continue
			}
			if removeAllBeneath(rootOf(dir), dir) == nil {
				did = append(did, "removed the unfinished new session folder "+dir)
			}
		}
	}
	return did
}

// sessionAnywhere reports whether a transcript <id>.jsonl is in one of
// the config dir's project folders (or whether that cannot be told: a
// folder that cannot be listed counts as holding it).
func sessionAnywhere(configDir, id string) bool {
	cands, err := chain.FindSessions(configDir, id)
	if err != nil {
		return true
	}
	for _, c := range cands {
		if chain.SameName(chain.HostOS, filepath.Base(c), id+".jsonl") {
			return true
		}
	}
	return false
}

// pathExists reports whether there is a node at p (a link too).
func pathExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// journalOutside returns the first file the journal of the backup bdir
// names outside projectDir, the folder of the session it is recovered
// for ("" if none, or if the journal cannot be read: rollForward says
// why). An in-place change writes only under its session's folder.
func journalOutside(bdir, projectDir string) string {
	b, err := chain.ReadSideFile(filepath.Join(bdir, journalName))
	if err != nil || projectDir == "" {
		return ""
	}
	var steps []journalStep
	if json.Unmarshal(b, &steps) != nil {
		return ""
	}
	for _, s := range steps {
		for _, p := range []string{s.Target, s.Tmp, s.Hold} {
			if p != "" && !under(projectDir, p) {
				return p
			}
		}
		if s.Root != "" && !under(s.Root, projectDir) {
			return s.Root // (the session's folder is not below the root it names)
		}
	}
	return ""
}
