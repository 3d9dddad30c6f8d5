package backup

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"golang.org/x/sync/errgroup"
)

// A move puts files of the config dir in other places (a session and its
// sidecars in another project folder) and rewrites a few files that stay
// (history.jsonl, sessions-index.json), as one transaction: a crash at any
// moment leaves either the old state or the new one once RecoverMoves has
// run. The steps:
//
//  1. a journal names every temp file the move will make (state "prepared");
//  2. every session's files are backed up (the caller's record of the move
//     goes into each backup's manifest, for undoing it);
//  3. every new file and every rewritten file is rendered into its temp,
//     fsynced, with the old file's modification time;
//  4. the journal's state becomes "committing": from here on the move is
//     finished, never undone, by whoever comes next;
//  5. each temp is hard-linked to its new name (never over an existing
//     file), rewritten files are renamed over theirs, the old files are
//     removed with the folders they leave empty, and the journal goes.
//
// A journal found "prepared" is rolled back (its temps and backups
// removed: nothing else was touched); one found "committing" is finished.

// MoveFile is one file a move puts in a new place.
type MoveFile struct {
	From     string                  // the file now (regular, inside the config dir)
	To       string                  // its new path; must not exist
	Snapshot *Snapshot               // From's state when read (nil: taken by Move)
	Render   func(w io.Writer) error // content at To; nil = From's bytes
	Hash     *FileHash               // From's checksum read ahead for its backup (HashAhead); nil: read then
}

// MoveEdit is a file that stays where it is and is rewritten (or created)
// as part of a move.
type MoveEdit struct {
	Path     string
	Snapshot *Snapshot // state when read; nil = the file must not exist yet
	Render   func(w io.Writer) error
	Remove   bool // delete the file instead (a sessions-index.json left behind)
	KeepTime bool // keep the file's modification time (a transcript: clients order sessions by it)
}

// MoveSession names a session a move touches: the live-session guard and
// the backups are per session.
type MoveSession struct {
	ID         string
	ProjectDir string   // its folder before the move
	Files      []string // its files before the move (From paths)
}

// MovePlan is one move transaction.
type MovePlan struct {
	ConfigDir string
	Sessions  []MoveSession
	Files     []MoveFile
	Edits     []MoveEdit
	// Dirs are empty folders of the old place (a project's memory/ that
	// holds nothing yet): each is made at To and removed at From, if it is
	// still empty, with the files
	Dirs   []Moved
	Force  bool            // skip the live-session guard
	Record json.RawMessage // saved in each session's backup manifest
	// Records, by session id, is saved in that session's manifest instead
	// of Record: what undoing the move needs of that session
	Records map[string]json.RawMessage
	Now     func() time.Time
	Sweeps  *Sweeps // the run's sweeps (nil: each session's folder swept)
}

// MoveResult says what a move did.
type MoveResult struct {
	Backups map[string]string // session id -> backup folder (one of them for copies of a session in two folders)
	// BackupOf: each session's backup folder by its transcript's path
	// before the move (two copies of one session have one each)
	BackupOf map[string]string
	Moved    []string // new paths
	Removed  []string // old paths
	Warnings []string
}

const (
	moveTmpMarker = ".ccsurgeon-move-"
	statePrepared = "prepared"
	stateCommit   = "committing"
)

type journalFile struct {
	From    string    `json:"from"`
	To      string    `json:"to"`
	Tmp     string    `json:"tmp"`
	ModTime time.Time `json:"mtime"`
	// Size is From's size when it was read (nil in journals of older
	// versions): what is appended to From after it goes to To.
	Size *int64 `json:"size,omitempty"`
}

type journalEdit struct {
	Path    string    `json:"path"`
	Tmp     string    `json:"tmp"`
	Exists  bool      `json:"exists"`
	Remove  bool      `json:"remove,omitempty"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
}

type journal struct {
	Version int           `json:"version"`
	State   string        `json:"state"`
	Backups []string      `json:"backups"`
	Files   []journalFile `json:"files"`
	Edits   []journalEdit `json:"edits"`
	Dirs    []Moved       `json:"dirs,omitempty"`
	path    string
	// root is the config dir the move is in: the old files are removed
	// from below it without following a link on the way (removeFrom)
	root string
}

// JournalDir is where pending moves are recorded.
func JournalDir(configDir string) string {
	return filepath.Join(configDir, "ccsurgeon", "journal")
}

// Move performs the plan as one transaction (see the steps above). Before
// step 4 any failure leaves every file as it was.
func Move(p MovePlan) (res MoveResult, err error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	cfg, err := filepath.Abs(p.ConfigDir)
	if err != nil || p.ConfigDir == "" {
		return res, errors.New("backup: empty config dir")
	}
	if err := checkMovePaths(cfg, p); err != nil {
		return res, err
	}
	for i := range p.Files {
		f := &p.Files[i]
		if f.Snapshot == nil {
			if f.Snapshot, err = TakeSnapshot(f.From); err != nil {
				return res, err
			}
			if f.Snapshot == nil {
				return res, fmt.Errorf("backup: %s does not exist", f.From)
			}
		}
	}
	// one ccsurgeon writer per session: the move holds every session's
	// lock, once for copies of one session in two of its folders (they
	// share their key: a second lock of it would be refused as another
	// run's)
	locked := map[string]bool{}
	for _, s := range p.Sessions {
		if key := KeyFor(cfg, s.ID, s.ProjectDir); !locked[key] {
			l, err := Lock(cfg, key, "move")
			if err != nil {
				return res, err
			}
			defer l.Unlock()
			locked[key] = true
		}
		// what a killed run left of the session (a partial backup of a
		// killed move, a change to finish) goes first, as for any change
		did, err := RecoverIn(p.Sweeps, cfg, KeyFor(cfg, s.ID, s.ProjectDir), s.ID, s.ProjectDir)
		for _, d := range did {
			res.Warnings = append(res.Warnings, d.Line())
		}
		if err != nil {
			return res, err
		}
	}
	if !p.Force {
		for _, s := range p.Sessions {
			if err := checkLive(cfg, s.ID, s.Files, now(), KeyFor(cfg, s.ID, s.ProjectDir)); err != nil {
				return res, err
			}
		}
	}
	if err := checkMoveUnchanged(p); err != nil {
		return res, err
	}

	// (1) the journal, naming every temp before it exists
	txn := newTxnID()
	j := &journal{Version: 1, State: statePrepared, root: cfg}
	for _, f := range p.Files {
		size := f.Snapshot.Size
		j.Files = append(j.Files, journalFile{From: f.From, To: f.To, ModTime: f.Snapshot.ModTime, Size: &size,
			Tmp: filepath.Join(filepath.Dir(f.To), "."+filepath.Base(f.To)+moveTmpMarker+txn)})
	}
	j.Dirs = p.Dirs
	for _, e := range p.Edits {
		je := journalEdit{Path: e.Path, Remove: e.Remove, Tmp: filepath.Join(filepath.Dir(e.Path), "."+filepath.Base(e.Path)+moveTmpMarker+txn)}
		if e.Snapshot != nil {
			je.Exists, je.Size, je.ModTime = true, e.Snapshot.Size, e.Snapshot.ModTime
		}
		j.Edits = append(j.Edits, je)
	}
	j.path = filepath.Join(JournalDir(cfg), now().UTC().Format(StampLayout)+"-"+txn+".json")
	if err := CheckOwn(cfg, j.path); err != nil {
		return res, err
	}
	if err := makeDirs(cfg, JournalDir(cfg), nil); err != nil {
		return res, fmt.Errorf("create journal folder: %w", err)
	}
	if err := j.save(); err != nil {
		return res, err
	}
	committing := false
	defer func() {
		if err != nil && !committing {
			if rerr := j.rollBack(); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
	}()
	hook("move-after-journal")

	// (2) backups, then (3) the temps. Side by side (tried), a kill
	// while the temps were written came before the backup was named in
	// the journal, and the rollback left it (TestMoveCrash, temp-made):
	// each backup is named in the journal before any temp is made
	var backupErr, tempErr error
	// made durable together where the kernel allows (one syncfs of each
	// file system before the point of no return, not an fsync a file: the
	// backup's of each old file it links took 80-100 ms of a move of 859
	// sidecars, and each new file's waited on the disk's queue beside the
	// transcript's writes): the old files' folders held from before the
	// backup links them, the new ones' from before a byte is written in
	// them, so that syncfs reports every write error met since
	var together *syncGroup
	if syncsTogetherFn() {
		var old []string
		for _, s := range p.Sessions {
			for _, f := range s.Files {
				if d := filepath.Dir(f); !slices.Contains(old, d) {
					old = append(old, d)
				}
			}
		}
		// (on a file system syncfs is not trusted on, each file fsynced;
		// a folder gone since it was read is told as the backup's
		// failure would be: movedCopiesErr names what changed)
		var gerr error
		if together, gerr = openSyncGroup(cfg, old); gerr == nil {
			defer together.close()
		} else if !errors.Is(gerr, errNotTogether) {
			backupErr = fmt.Errorf("open the moved files' folders: %w", gerr)
		}
	}
	if backupErr == nil {
		res.Backups, res.BackupOf, backupErr = j.backUp(cfg, p, now().UTC(), together != nil)
	}
	if backupErr == nil {
		tempErr = makeTemps(cfg, p, j, together)
	}
	if backupErr == nil && tempErr == nil && together != nil {
		if serr := together.sync(); serr != nil {
			tempErr = wrapIOError("make the moved files' new copies and their backup durable", serr)
		}
	}
	if err := movedCopiesErr(p, backupErr, tempErr); err != nil {
		return res, err
	}
	for i, e := range p.Edits {
		if e.Remove {
			// an empty temp marks the removal as pending
			e.Render = func(io.Writer) error { return nil }
		}
		like, _ := os.Lstat(e.Path) // nil: a new file, 0600
		if err := renderTo(cfg, j.Edits[i].Tmp, like, DefaultMode, e.Render); err != nil {
			return res, err
		}
		if e.KeepTime && e.Snapshot != nil {
			if err := chtimesBeneath(cfg, j.Edits[i].Tmp, e.Snapshot.ModTime, e.Snapshot.ModTime); err != nil {
				return res, err
			}
		}
	}
	hook("move-after-temps")
	if err := checkMoveUnchanged(p); err != nil {
		return res, err
	}
	// a process holding an old copy (or a file edited by renaming over
	// it) open for writing would write its next lines to the removed
	// file, lost: refused whatever Force, as an in-place change is
	var held []string
	for _, f := range p.Files {
		held = append(held, f.From)
	}
	for _, e := range p.Edits {
		if e.Snapshot != nil {
			held = append(held, e.Path)
		}
	}
	if err := refuseWriters(held); err != nil {
		return res, err
	}
	// a folder the move removes a file from (or renames an edit into)
	// that this user may not change would fail the move after its point
	// of no return, with the session in two places: refused now
	if err := checkDirsChangeable(p); err != nil {
		return res, err
	}

	// (4) the point of no return
	j.State = stateCommit
	if err := j.save(); err != nil {
		return res, err
	}
	committing = true
	j.removeBackupLog() // (the journal names every backup from now on)
	hook("move-after-commit-mark")

	// (5)
	warnings, err := j.finish()
	res.Warnings = warnings
	if err != nil {
		return res, &Error{
			Msg:  fmt.Sprintf("move failed part-way: %v", err),
			Hint: "run the move again: it finishes what was started (the journal is " + j.path + ")",
			Err:  err,
		}
	}
	for _, f := range p.Files {
		res.Moved = append(res.Moved, f.To)
		res.Removed = append(res.Removed, f.From)
	}
	return res, nil
}

// RecoverMoves finishes or rolls back every move a crash interrupted. It
// returns one line per journal handled.
func RecoverMoves(configDir string) ([]string, error) {
	paths := listdir.Matching(JournalDir(configDir), "*.json")
	sort.Strings(paths)
	var out []string
	var errs []error
	for _, p := range paths {
		j, err := readJournal(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// a journal that names a file outside this config dir is another
		// config dir's (this one copied, or restored, with a move
		// pending): finishing or rolling it back would change that one
		if far := j.outside(configDir); far != "" {
			out = append(out, fmt.Sprintf("left the move journal %s as it is: it names %s, outside this config dir (another config dir's journal, copied here?); remove it once that move is finished", p, far))
			continue
		}
		if j.root, err = filepath.Abs(configDir); err != nil {
			errs = append(errs, err)
			continue
		}
		switch j.State {
		case stateCommit:
			warnings, err := j.finish()
			if err != nil {
				errs = append(errs, fmt.Errorf("finish the interrupted move %s: %w", p, err))
				continue
			}
			out = append(out, fmt.Sprintf("finished an interrupted move of %d file(s)", len(j.Files)))
			out = append(out, warnings...)
		default:
			if err := j.rollBack(); err != nil {
				errs = append(errs, fmt.Errorf("roll back the interrupted move %s: %w", p, err))
				continue
			}
			out = append(out, fmt.Sprintf("rolled back an interrupted move of %d file(s); nothing had been moved", len(j.Files)))
		}
	}
	// a log whose journal is gone (a run killed between their removals)
	for _, l := range listdir.Matching(JournalDir(configDir), "*.json"+backupLogSuffix) {
		if _, err := os.Lstat(strings.TrimSuffix(l, backupLogSuffix)); errors.Is(err, os.ErrNotExist) {
			removeBeneath(startRoot(configDir, configDir), l)
		}
	}
	// a run killed while it saved a journal leaves that save's temp file
	for _, d := range sweepTemps(startRoot(configDir, configDir), JournalDir(configDir)) {
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// sweepDirs removes the temp files killed runs left in the folders of a
// move's files (a render killed before its temp was linked to the move's
// own temp name leaves one).
// Each folder once: sweeping reads the whole folder, and a session's
// subagent and tool-result files share two.
func (j *journal) sweepDirs() {
	swept := map[string]bool{}
	sweep := func(dir string) {
		if !swept[dir] {
			swept[dir] = true
			sweepTemps(j.root, dir)
		}
	}
	for _, f := range j.Files {
		sweep(filepath.Dir(f.To))
	}
	for _, e := range j.Edits {
		sweep(filepath.Dir(e.Path))
	}
}

func readJournal(p string) (*journal, error) {
	b, err := chain.ReadSideFile(p)
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	j.path = p
	if err := j.readBackupLog(); err != nil {
		return nil, err
	}
	return &j, nil
}

func (j *journal) save() error {
	return writeFileAtomicBeneath(j.root, j.path, DefaultMode, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(j)
	}, true)
}

// rollBack undoes a move that had not reached its commit mark: only temps
// and backups were made.
func (j *journal) rollBack() error {
	j.sweepDirs()
	var errs []error
	// a temp never made is no failure to remove, whatever the removal
	// says: on a read-only file system unlink says so (EROFS) before it
	// looks for the name, and a move refused there left its journal and
	// a line per file it had not written
	remove := func(tmp string) {
		err := removeBeneath(j.root, tmp)
		if err == nil || errors.Is(err, os.ErrNotExist) || isSymlinkErr(err) {
			return
		}
		// (nor is one whose folder is no folder any more: a named pipe
		// swapped in for it; what was made in it went with the folder)
		if _, lerr := os.Lstat(tmp); errors.Is(lerr, os.ErrNotExist) || errors.Is(lerr, syscall.ENOTDIR) {
			return
		}
		errs = append(errs, err)
	}
	for _, f := range j.Files {
		remove(f.Tmp)
		removeEmptyDirs(j.root, filepath.Dir(f.To))
	}
	for _, e := range j.Edits {
		remove(e.Tmp)
	}
	for _, b := range j.Backups {
		if err := removeAllBeneath(j.root, b); err != nil {
			errs = append(errs, err)
		}
		removeDirBeneath(j.root, filepath.Dir(b)) // the session's backup folder, if this was its only backup
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// from the config dir down following no link (as every removal of
	// the move's): a ccsurgeon/ swapped for one since leads none out
	if err := removeBeneath(j.root, j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	j.removeBackupLog()
	return syncDir(filepath.Dir(j.path))
}

// finish carries out (or carries on) a committed move. Every step can be
// run again: a new file already in place, an old file already gone, a
// rewrite already renamed are each skipped.
func (j *journal) finish() (warnings []string, err error) {
	j.sweepDirs()
	dirs := map[string]bool{}
	for i, f := range j.Files {
		if i > 0 {
			hook("move-between-links")
		}
		_, tmpErr := os.Lstat(f.Tmp)
		_, toErr := os.Lstat(f.To)
		switch {
		case tmpErr == nil && toErr == nil:
			// linked before the crash; the temp is left to remove
		case tmpErr == nil:
			// from the config dir down, never through a link: a folder
			// swapped for one since the temp was written leads the new
			// name nowhere else
			if err := linkBeneath(j.root, f.Tmp, f.To); err != nil {
				return warnings, fmt.Errorf("put %s in place: %w", f.To, err)
			}
		case toErr == nil:
			continue // done
		default:
			return warnings, fmt.Errorf("%s is missing and so is its temp file %s", f.To, f.Tmp)
		}
		if err := removeBeneath(j.root, f.Tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
			return warnings, err
		}
		for d := filepath.Dir(f.To); ; d = filepath.Dir(d) {
			dirs[d] = true
			if filepath.Base(filepath.Dir(d)) == "projects" || d == filepath.Dir(d) {
				dirs[filepath.Dir(d)] = true // a new project folder's name
				break
			}
		}
	}
	for _, d := range j.Dirs {
		if _, err := mkdirBeneath(j.root, d.To, oldFolderOf(d.From, d.To)); err != nil {
			return warnings, fmt.Errorf("make folder %s: %w", d.To, err)
		}
		dirs[filepath.Dir(d.To)] = true
	}
	hook("move-after-links")
	if err := syncDirs(dirs); err != nil {
		return warnings, err
	}
	for _, e := range j.Edits {
		if _, err := os.Lstat(e.Tmp); errors.Is(err, os.ErrNotExist) {
			continue // renamed before the crash
		}
		// each from the config dir down, following no link (renameat,
		// unlinkat): a folder swapped for one since the mark leads no
		// edit out of the config dir
		if !sameAsJournal(e) {
			// someone wrote the file since it was read: keep theirs
			removeBeneath(j.root, e.Tmp)
			warnings = append(warnings, fmt.Sprintf("%s changed during the move and was left as it is", e.Path))
			continue
		}
		if e.Remove {
			if err := removeBeneath(j.root, e.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return warnings, fmt.Errorf("remove %s: %w", e.Path, err)
			}
			removeBeneath(j.root, e.Tmp)
		} else if err := renameBeneath(j.root, e.Tmp, e.Path); err != nil {
			return warnings, fmt.Errorf("replace %s: %w", e.Path, err)
		}
		dirs[filepath.Dir(e.Path)] = true
	}
	hook("move-after-edits")
	saved := j.backupsOf()
	for i, f := range j.Files {
		if i > 0 {
			hook("move-between-removes")
		}
		if f.From == f.To {
			continue
		}
		note, err := f.removeFrom(j.root, saved[f.From])
		if err != nil {
			return warnings, err
		}
		if note != "" {
			warnings = append(warnings, note)
		}
		dirs[filepath.Dir(f.From)] = true
	}
	for i := len(j.Dirs) - 1; i >= 0; i-- { // the deepest first
		removeEmptyDirs(j.root, j.Dirs[i].From)
		dirs[filepath.Dir(j.Dirs[i].From)] = true
	}
	emptied := map[string]bool{} // each folder once, not once a file
	for _, f := range j.Files {
		if d := filepath.Dir(f.From); !emptied[d] {
			emptied[d] = true
			removeEmptyDirs(j.root, d)
		}
	}
	for d := range dirs {
		if _, err := os.Stat(d); err != nil {
			delete(dirs, d)
			dirs[filepath.Dir(d)] = true
		}
	}
	if err := syncDirs(dirs); err != nil {
		return warnings, err
	}
	hook("move-before-journal-delete")
	// from the config dir down following no link (as every removal of
	// the move's): a ccsurgeon/ swapped for one since leads none out
	if err := removeBeneath(j.root, j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return warnings, err
	}
	j.removeBackupLog()
	return warnings, syncDir(filepath.Dir(j.path))
}

// removeFrom removes the moved file's old copy without losing what was
// appended to it after it was read (a client that resumed the session
// during the move, or a forced move): those bytes are carried over to the
// new copy. An old copy that shrank was rewritten by someone else: it is
// left where it is, with a note.
//
// Both are reached from root without following a link on the way
// (openBeneath, removeBeneath): a folder swapped for a link after the
// move's checks leads no removal out of the config dir.
func (f journalFile) removeFrom(root string, saved savedFile) (note string, err error) {
	// open to write when it may be (the backup's name for the same file
	// is cut back below); else only read
	old, err := openBeneath(root, f.From, os.O_RDWR, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		old, err = openBeneath(root, f.From, os.O_RDONLY, 0)
	}
	if errors.Is(err, os.ErrNotExist) {
		// removed before a crash: perhaps before its late lines were
		// carried over and cut from the backup again
		return f.finishCarry(root, saved)
	}
	if err != nil {
		return "", fmt.Errorf("remove %s: %w", f.From, err)
	}
	defer old.Close()
	if f.Size != nil {
		if fi, err := old.Stat(); err == nil && fi.Size() < *f.Size {
			return fmt.Sprintf("%s changed during the move and was left as it is (its moved copy is %s)", f.From, f.To), nil
		}
	}
	if err := removeBeneath(root, f.From); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("remove %s: %w", f.From, err)
	}
	hook("move-old-removed")
	if f.Size == nil {
		return "", nil
	}
	// no one opens it by name any more: what was appended is all there
	fi, err := old.Stat()
	if err != nil || fi.Size() <= *f.Size {
		return "", nil
	}
	n := fi.Size() - *f.Size
	out, err := openBeneath(root, f.To, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = io.Copy(out, io.NewSectionReader(old, *f.Size, n))
		if serr := out.Sync(); err == nil {
			err = serr
		}
		out.Close()
	}
	if err != nil {
		return "", fmt.Errorf("%d bytes appended to %s during the move could not be carried over to %s: %w", n, f.From, f.To, err)
	}
	hook("move-carried-over")
	// the old file is also the move's backup (linkFileSynced): with the
	// lines carried over, it goes back to what was backed up, or restore
	// would refuse the backup as damaged (its checksum is of that). Only
	// then: a copy's old file may have another name, whose lines they are
	if bi, err := os.Lstat(saved.path); err == nil && os.SameFile(fi, bi) && old.Truncate(*f.Size) == nil {
		old.Sync()
	}
	return fmt.Sprintf("%d bytes appended to %s during the move were carried over to %s", n, f.From, f.To), nil
}

func sameAsJournal(e journalEdit) bool {
	fi, err := os.Stat(e.Path)
	if !e.Exists {
		return errors.Is(err, os.ErrNotExist)
	}
	return err == nil && fi.Size() == e.Size && fi.ModTime().Equal(e.ModTime)
}

func syncDirs(dirs map[string]bool) error {
	for d := range dirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// savedFile is an old file's copy in the move's backup: its path and the
// size backed up.
type savedFile struct {
	path string
	size int64
}

// backupsOf maps each old file the move's backups hold to its copy there.
func (j *journal) backupsOf() map[string]savedFile {
	out := map[string]savedFile{}
	for _, d := range j.Backups {
		b, err := readBackup(d)
		if err != nil {
			continue
		}
		for _, bf := range b.Files {
			if p, err := backupFilePath(b, bf); err == nil {
				out[bf.Path] = savedFile{p, bf.Size}
			}
		}
	}
	return out
}

// finishCarry ends the carry-over of an old file whose name a killed run
// removed (removeFrom) before the lines appended to it during the move
// were carried over and cut again: they are then only in its backup (the
// same file under a second name, linkFileSynced), past the size backed
// up. What of them the new file does not end with yet (a carry-over cut
// short) is appended to it, and the backup goes back to what it saved.
func (f journalFile) finishCarry(root string, saved savedFile) (string, error) {
	if f.Size == nil || saved.path == "" || saved.size != *f.Size {
		return "", nil
	}
	b, err := openBeneath(root, saved.path, os.O_RDWR, 0)
	if err != nil {
		return "", nil
	}
	defer b.Close()
	fi, err := b.Stat()
	if err != nil || fi.Size() <= saved.size {
		return "", nil
	}
	tail := make([]byte, fi.Size()-saved.size)
	if _, err := b.ReadAt(tail, saved.size); err != nil {
		return "", fmt.Errorf("read the lines appended to %s during the move (in its backup %s): %w", f.From, saved.path, err)
	}
	out, err := openBeneath(root, f.To, os.O_RDWR|os.O_APPEND, 0)
	if err == nil {
		var oi os.FileInfo
		if oi, err = out.Stat(); err == nil {
			end := make([]byte, min(int64(len(tail)), oi.Size()))
			if _, err = out.ReadAt(end, oi.Size()-int64(len(end))); err == nil {
				done := 0
				for k := len(end); k > 0 && done == 0; k-- {
					if bytes.HasSuffix(end, tail[:k]) {
						done = k
					}
				}
				if _, err = out.Write(tail[done:]); err == nil {
					err = out.Sync()
				}
			}
		}
		out.Close()
	}
	if err != nil {
		return "", fmt.Errorf("%d bytes appended to %s during the move (kept in its backup %s) could not be carried over to %s: %w", len(tail), f.From, saved.path, f.To, err)
	}
	if b.Truncate(saved.size) == nil {
		b.Sync()
	}
	return fmt.Sprintf("%d bytes appended to %s during the move were carried over to %s", len(tail), f.From, f.To), nil
}

// oldFolderOf maps a folder a move makes, to or one of its parents, to
// the folder it stands for in the old place (from, or its parent as
// many levels up), whose mode and owner it gets: nil when that is not a
// folder (any more).
func oldFolderOf(from, to string) func(p string) os.FileInfo {
	return func(p string) os.FileInfo {
		rel, err := filepath.Rel(p, to)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return nil
		}
		old := from
		if rel != "." {
			for range strings.Split(rel, string(filepath.Separator)) {
				old = filepath.Dir(old)
			}
		}
		fi, err := os.Lstat(old)
		if err != nil || !fi.IsDir() {
			return nil
		}
		return fi
	}
}

// ParentFolderOf gives a new folder p its parent's mode and owner (a
// folder that stands for none there is): the one rule for the mode of
// such a folder (a restore's, a new project folder).
func ParentFolderOf(p string) os.FileInfo {
	fi, err := os.Lstat(filepath.Dir(p))
	if err != nil || !fi.IsDir() {
		return nil
	}
	return fi
}

// removeEmptyDirs removes dir and its parents while they are empty, up to
// (not including) a "projects" folder, each from root down without
// following a link (removeDirBeneath): a folder swapped for one leads no
// removal out of root.
func removeEmptyDirs(root, dir string) {
	for d := dir; filepath.Base(d) != "projects" && d != filepath.Dir(d); d = filepath.Dir(d) {
		if removeDirBeneath(root, d) != nil {
			return
		}
	}
}

// isSymlinkErr: the step met a link on the way (and did nothing there).
func isSymlinkErr(err error) bool {
	var se *SymlinkError
	return errors.As(err, &se)
}

// makeTemps is a move's step (3): each new file's folder, in the files'
// order, then the files' temps (j's), several at a time (where each is
// fsynced, each waits for its own fsync: a session of 859 files waited for
// 859 one after the other). With together, the new folders join the
// group, whose syncfs the caller runs, and no temp is fsynced alone.
func makeTemps(cfg string, p MovePlan, j *journal, together *syncGroup) error {
	made := map[string]bool{}
	for _, f := range p.Files {
		if made[filepath.Dir(f.To)] {
			continue
		}
		made[filepath.Dir(f.To)] = true
		hook("move-before-folder")
		// from the config dir down, following no link: a folder on the
		// way swapped for one leads no new folder out of the config dir
		if _, err := mkdirBeneath(cfg, filepath.Dir(f.To), oldFolderOf(filepath.Dir(f.From), filepath.Dir(f.To))); err != nil {
			return fmt.Errorf("create folder for %s: %w", f.To, err)
		}
		hook("move-folder-made")
	}
	// the largest first (a transcript, listed last, started once its
	// 859 sidecars had gone: the rewrite of 300 MB then ran alone)
	order := make([]int, len(p.Files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return p.Files[order[a]].Snapshot.Size > p.Files[order[b]].Snapshot.Size
	})
	// made durable together (see Move): the new files' folders held
	// before any byte is written in them (on a file system syncfs is not
	// trusted on, each new file fsynced)
	each := together == nil
	if together != nil {
		var dirs []string
		for _, f := range p.Files {
			if d := filepath.Dir(f.To); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
		if err := together.addDirs(cfg, dirs); errors.Is(err, errNotTogether) {
			each = true
		} else if err != nil {
			return fmt.Errorf("open the new files' folders: %w", err)
		}
	}
	errs := make([]error, len(p.Files))
	var g errgroup.Group
	g.SetLimit(fileWorkers)
	for _, i := range order {
		g.Go(func() error {
			errs[i] = moveTemp(cfg, p.Files[i], j.Files[i].Tmp, each)
			return nil
		})
	}
	g.Wait()
	for _, err := range errs { // the first in the files' order
		if err != nil {
			return err
		}
	}
	return nil
}

// movedCopiesErr is the refusal of a move's steps (2) and (3): a file of
// p's that changed or went since it was read (checkMoveUnchanged: the
// first in the files' order) is why, whichever step met it and whatever
// it met (a sidecar removed was "lstat ...: no such file or directory");
// else the backup's, else the temps' (the first in the files' order). A
// full disk is met by whichever file is being written when the space
// runs out (the backup's manifest, its record of the move, one of eight
// temps written at once), so it is told as the move's, in the same words
// whichever met it.
func movedCopiesErr(p MovePlan, backupErr, tempErr error) error {
	if backupErr == nil && tempErr == nil {
		return nil
	}
	if err := checkMoveUnchanged(p); err != nil {
		return err
	}
	for _, err := range []error{backupErr, tempErr} {
		if errors.Is(err, ErrNoSpace) {
			return &Error{Msg: "no space left on device for the moved files' new copies and their backup (nothing was modified)",
				Hint: "free some disk space and retry", Err: err}
		}
	}
	if backupErr != nil {
		return backupErr
	}
	return tempErr
}

// backUp is a move's step (2): a backup of each session's files (its
// files given a second name), each named in the journal once made; it
// returns them by session id.
func (j *journal) backUp(cfg string, p MovePlan, t time.Time, later bool) (byID, byPath map[string]string, err error) {
	log, err := j.openBackupLog()
	if err != nil {
		return nil, nil, err
	}
	defer log.close()
	backups, of := map[string]string{}, map[string]string{}
	ahead := map[string]*FileHash{}
	for _, f := range p.Files {
		ahead[f.From] = f.Hash
	}
	for _, s := range p.Sessions {
		var items []item
		for _, from := range s.Files {
			rel, rerr := relPath(s.ProjectDir, from)
			if rerr != nil {
				return nil, nil, rerr
			}
			items = append(items, item{FileWrite: FileWrite{Path: from}, target: from, rel: rel, hash: ahead[from]})
		}
		how := backupLink
		if later { // the old files' data made durable by the move's syncfs
			how = backupLinkLater
		}
		// the move's record written with the manifest (not added after:
		// a second read, encoding and fsync of it a session)
		rec := p.Record
		if r, ok := p.Records[s.ID]; ok {
			rec = r
		}
		// named in the log as soon as its folder is made: a kill while it
		// is filled, or once it is whole, leaves a backup the rollback
		// knows (one whole and unnamed claimed to undo a move that never
		// happened)
		bdir, berr := makeBackupNamed(cfg, KeyFor(cfg, s.ID, s.ProjectDir), s.ID, "move", s.ProjectDir, t, items, how, rec, log.add)
		if berr != nil {
			return nil, nil, berr
		}
		j.Backups = append(j.Backups, bdir)
		backups[s.ID] = bdir
		of[filepath.Join(s.ProjectDir, s.ID+".jsonl")] = bdir
	}
	hook("move-after-backup")
	return backups, of, nil
}

// moveTemp writes the temp tmp of a moved file f, whole (fsynced when
// sync: else its caller makes it durable), with f's owner, mode and time.
func moveTemp(cfg string, f MoveFile, tmp string, sync bool) error {
	// the moved file keeps its owner and mode, and its time
	like, err := os.Lstat(f.From)
	if err != nil {
		return err
	}
	render := f.Render
	if render == nil {
		// no link followed on the way: a folder swapped for one since
		// checkMovePaths leads the copy nowhere else
		render = CopyBeneath(cfg, f.From)
	}
	// made under the journal's name itself (no temp of its own linked
	// to it: two more changes of the folder a file), fsynced: until the
	// commit mark a temp is only ever removed, whole or not, and past it
	// every temp is whole
	fh, err := createBeneath(cfg, tmp, f.To, like, 0, render)
	if err != nil {
		return newCopyErr(f, err)
	}
	if _, err := finishTemp(fh, f.To, sync, cfg); err != nil {
		return newCopyErr(f, err)
	}
	hook("move-temp-written")
	if err := chtimesBeneath(cfg, tmp, f.Snapshot.ModTime, f.Snapshot.ModTime); err != nil {
		return newCopyErr(f, err)
	}
	hook("move-temp-made")
	return nil
}

// newCopyErr is a failure to write f's new copy told by f's names, not its
// temp's (named for the run: the words changed from run to run, and
// named a file the user never sees): what the system said (a read-only
// file system, permission denied). A refusal that names its file already
// (a link, a node that is not a file, a full disk's) is as it is.
func newCopyErr(f MoveFile, err error) error {
	var e *Error
	var na *NotAFileError
	var se *SymlinkError
	var errno syscall.Errno
	if errors.As(err, &e) || errors.As(err, &na) || errors.As(err, &se) || !errors.As(err, &errno) {
		return err
	}
	return &Error{Msg: fmt.Sprintf("cannot write %s, the new copy of %s: %v; nothing was modified", f.To, f.From, errno),
		Hint: "let this user write in " + filepath.Dir(f.To) + " (or move the session to another project path), then retry", Err: err}
}

// renderTo writes a new file at path (which must not exist), fsynced,
// with the owner and mode of like (nil: mode, owned as its folder). Its
// temp file is made, named and removed from root down without following
// a link (openBeneath, linkBeneath, removeBeneath): a folder swapped for a
// link after it was made leads no byte out of the config dir.
func renderTo(root, path string, like os.FileInfo, mode os.FileMode, render func(io.Writer) error) error {
	// path is named for this run (a move's journal, a new backup's
	// folder): no killed run's temp to sweep for
	f, err := newTempBeneath(root, path, like, mode, render)
	if err != nil {
		return err
	}
	tmp, err := finishTemp(f, path, true, root)
	if err != nil {
		return err
	}
	defer removeBeneath(root, tmp)
	hook("move-render-before-link")
	if err := linkBeneath(root, tmp, path); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

// CopyFrom returns a render that writes the bytes of the file at path (a
// sidecar file copied as it is). It reads a regular file only, never
// through a link nor from a named pipe, whatever a check of the name saw
// before (openRegular): anything else fails it with a *NotAFileError.
func CopyFrom(path string) func(io.Writer) error {
	return copyOf(func() (*os.File, error) { return openRegular(path) })
}

// CopyBeneath is CopyFrom for a file below the folder root that is
// reached without following a link on the way either: a folder swapped
// for a link after a check (of a walk, of a move's paths) leads the copy
// nowhere else (linux and darwin: openat relative to each folder; windows:
// each folder checked by name just before the open).
func CopyBeneath(root, path string) func(io.Writer) error {
	return copyOf(func() (*os.File, error) { return openRegularBeneath(root, path) })
}

// copyOf is a render that writes the bytes of the file open opens.
func copyOf(open func() (*os.File, error)) func(io.Writer) error {
	return func(w io.Writer) error {
		fh, err := open()
		if err != nil {
			return err
		}
		defer fh.Close()
		_, err = copyAll(w, fh)
		return err
	}
}

func newTxnID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// CheckMove runs the checks Move makes of a plan's paths before it writes
// anything (see checkMovePaths), so that a dry run refuses what the move
// itself would refuse.
func CheckMove(p MovePlan) error {
	cfg, err := filepath.Abs(p.ConfigDir)
	if err != nil || p.ConfigDir == "" {
		return errors.New("backup: empty config dir")
	}
	return checkMovePaths(cfg, p)
}

// checkMovePaths keeps a move inside the config dir and off symlinks: every
// old file is a regular file, no new file exists yet, and no folder on the
// way to any of them is a symlink.
func checkMovePaths(cfg string, p MovePlan) error {
	// each folder looked at once (with those above it), whatever the
	// count of its files: 859 sidecars made 17,000 lstats of the same
	// few folders
	checked := map[string]bool{}
	inside := func(path string) error {
		rel, err := filepath.Rel(cfg, path)
		if err != nil || !filepath.IsLocal(rel) || !filepath.IsAbs(path) {
			return fmt.Errorf("backup: %s is not inside the config dir %s", path, cfg)
		}
		for d := filepath.Dir(path); d != cfg && d != filepath.Dir(d) && !checked[d]; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				target, _ := os.Readlink(d)
				return &SymlinkError{Path: d, Target: target}
			}
			checked[d] = true
		}
		return nil
	}
	seen := map[string]string{} // a new or edited path -> what goes there
	for _, f := range p.Files {
		if err := inside(f.From); err != nil {
			return err
		}
		if err := inside(f.To); err != nil {
			return err
		}
		fi, err := os.Lstat(f.From)
		if err != nil {
			return err
		}
		if kind := NodeKind(fi.Mode()); kind != "" {
			return &NotAFileError{Path: f.From, Kind: kind}
		}
		if ti, err := os.Lstat(f.To); err == nil {
			if os.SameFile(fi, ti) {
				// a file system that does not tell names apart by case
				// (-work-Proj is -work-proj), or a hard link: removing
				// "the file there" would remove the session
				return &Error{Msg: fmt.Sprintf("%s is the session's own file %s under another name (this file system takes the two folder names for one, as macOS and Windows do for names that differ only in case)", f.To, f.From),
					Hint: "nothing was changed: the session is already in that folder", Err: ErrExists}
			}
			return &Error{Msg: fmt.Sprintf("%s already exists", f.To), Hint: "move or remove it first; ccsurgeon never overwrites a file when moving", Err: ErrExists}
		}
		if other, ok := seen[f.To]; ok {
			return &Error{Msg: fmt.Sprintf("%s and %s would both move to %s", other, f.From, f.To),
				Hint: "a move never lets one file replace another: remove the copy you do not need, or first move one of them elsewhere, naming it by its path",
				Err:  ErrExists}
		}
		seen[f.To] = f.From
	}
	for _, e := range p.Edits {
		if err := inside(e.Path); err != nil {
			return err
		}
		if fi, err := os.Lstat(e.Path); err == nil && !fi.Mode().IsRegular() {
			return &Error{Msg: fmt.Sprintf("%s is not a regular file (a symlink?); ccsurgeon does not write it", e.Path)}
		}
		if _, ok := seen[e.Path]; ok {
			return &Error{Msg: fmt.Sprintf("the move would write %s twice", e.Path),
				Hint: "move or remove one of the files that go there first", Err: ErrExists}
		}
		seen[e.Path] = e.Path
	}
	return nil
}

// checkMoveUnchanged checks that every file the move reads or rewrites is
// as it was read: the same size and time, each moved file still a regular
// file (a *NotAFileError names one that is no longer), no folder on the
// way to one a link (*SymlinkError).
func checkMoveUnchanged(p MovePlan) error {
	// a folder on the way to a file the move removes or renames over,
	// swapped for a link since checkMovePaths (with files of the same
	// size and time where it leads), would pass a check by size and time
	// and fail the move past its commit mark, the session in two places
	// (its old names removed through no link): each folder once
	cfg, err := filepath.Abs(p.ConfigDir)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	onTheWay := func(path string) error {
		if d := filepath.Dir(path); !seen[d] {
			seen[d] = true
			return refuseSymlinkBelow(cfg, d)
		}
		return nil
	}
	for _, f := range p.Files {
		if err := onTheWay(f.From); err != nil {
			return err
		}
	}
	for _, e := range p.Edits {
		if err := onTheWay(e.Path); err != nil {
			return err
		}
	}
	var items []item
	for _, f := range p.Files {
		// a node swapped in for a moved file after its copy (a link to
		// a file of the same size and time, a named pipe) would pass a
		// check by size and time, and fail the move past its commit
		// mark, when the old name is removed through no link
		if fi, err := os.Lstat(f.From); err == nil && !fi.Mode().IsRegular() {
			return &NotAFileError{Path: f.From, Kind: NodeKind(fi.Mode())}
		}
		items = append(items, item{FileWrite: FileWrite{Path: f.From, Snapshot: f.Snapshot}, target: f.From})
	}
	for _, e := range p.Edits {
		items = append(items, item{FileWrite: FileWrite{Path: e.Path, Snapshot: e.Snapshot}, target: e.Path})
	}
	return checkUnchanged(items)
}

// IsMoveTemp reports whether a file name is a temp file of a move.
func IsMoveTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, moveTmpMarker)
}

// Moved is one file's old and new place, as a move's record keeps it.
type Moved struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// checkDirsChangeable refuses a move out of (or an edit in) a folder this
// user may not change (a read-only folder or file system), and of a file
// that may not be removed (append-only, immutable), the first in the
// files' order.
func checkDirsChangeable(p MovePlan) error {
	dirs := map[string]bool{}
	for _, f := range p.Files {
		dirs[filepath.Dir(f.From)] = true
	}
	for _, e := range p.Edits {
		dirs[filepath.Dir(e.Path)] = true
	}
	var sorted []string
	for d := range dirs {
		sorted = append(sorted, d)
	}
	sort.Strings(sorted)
	for _, d := range sorted {
		if err := canChangeDir(d); err != nil {
			return &Error{
				Msg:  fmt.Sprintf("cannot move out of %s: this user may not remove files there (%v); nothing was modified", d, err),
				Hint: "give this user write permission on that folder (or move the session as its owner), then retry",
				Err:  err,
			}
		}
	}
	// a file whose own attribute bars its removal (append-only,
	// immutable: even root's unlink fails) failed the move past its
	// mark, the session in two places, every rerun failing again
	for _, f := range p.Files {
		if f.From == f.To {
			continue
		}
		if why := removalBarred(f.From); why != "" {
			return &Error{
				Msg:  fmt.Sprintf("cannot move %s: the file is %s, so it may not be removed from its old place; nothing was modified", f.From, why),
				Hint: "clear that attribute of the file (as root), then retry",
			}
		}
	}
	return nil
}

// outside returns the first file j names that a move of configDir never
// touches ("" if none): a move's transcripts, temps and indexes are under
// <config-dir>/projects, its history.jsonl at the config dir's root, its
// backups under <config-dir>/ccsurgeon/backups.
func (j *journal) outside(configDir string) string {
	var far string
	check := func(root, p string) {
		if far == "" && !under(root, p) {
			far = p
		}
	}
	projects := filepath.Join(configDir, "projects")
	for _, f := range j.Files {
		check(projects, f.From)
		check(projects, f.To)
		check(projects, f.Tmp)
	}
	for _, e := range j.Edits {
		check(configDir, e.Path)
		check(configDir, e.Tmp)
	}
	for _, b := range j.Backups {
		check(BackupsRoot(configDir), b)
	}
	return far
}
