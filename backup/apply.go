package backup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultKeep is the number of backups kept per session when Plan.Keep is 0.
const DefaultKeep = 20

// Snapshot records a file's state when ccsurgeon read it. Apply refuses to
// replace a file whose size or modification time no longer match, and
// gives the new file the times of the old one: a change in place does not
// make an old session the newest (Claude Code's picker, 'claude
// --continue' and ccsurgeon's own default all go by the time).
type Snapshot struct {
	Path    string
	Size    int64
	ModTime time.Time
	ATime   time.Time // access time before ccsurgeon read it (zero: unknown)
}

// TakeSnapshot stats path; it returns (nil, nil) if the file does not exist.
func TakeSnapshot(path string) (*Snapshot, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &Snapshot{Path: path, Size: fi.Size(), ModTime: fi.ModTime(), ATime: FileATime(fi)}, nil
}

// FileWrite is one file touched by a Plan.
type FileWrite struct {
	Path     string                  // absolute path of the session file or sidecar
	Snapshot *Snapshot               // state when read; nil means the file must not exist yet
	Render   func(w io.Writer) error // new content (ignored when Remove)
	Remove   bool                    // delete the file instead of writing it
	Mode     os.FileMode             // permissions if the file is new (0 = 0600); existing files keep theirs
	UID, GID *int                    // owner if the file is new (nil: its folder's); existing files keep theirs
}

// Plan describes a guarded in-place write of one session's files.
type Plan struct {
	ConfigDir  string           // Claude Code config dir (backups go to <ConfigDir>/ccsurgeon/backups)
	SessionID  string           // session id (the live-session guard looks for it)
	Key        string           // backup key ("" = KeyFor(ConfigDir, SessionID, ProjectDir))
	Op         string           // operation name, used in the backup name (e.g. "strip-thinking")
	ProjectDir string           // folder holding <SessionID>.jsonl; derived from Files if ""
	Files      []FileWrite      // main JSONL and changed/removed/new sidecars
	Force      bool             // skip the live-session guard (the Snapshot check still applies)
	Keep       int              // backups kept per session: 0 = DefaultKeep, <0 = never prune
	Budget     int64            // bytes of backups kept per session: 0 = DefaultBudget, <0 = no limit
	NoBackup   bool             // keep no copy of the previous state
	Lock       *SessionLock     // the session's lock, when the caller holds it (nil: Apply takes it)
	Now        func() time.Time // clock, for tests (nil = time.Now)
	// Named: the user named this session's file by its path, so its files
	// may lie outside the config dir. Otherwise (a session found by id or
	// by listing the config dir: a batch, --pick, the default session)
	// every file written or removed must lie inside it, whatever link or
	// rename put it elsewhere.
	Named bool
}

// Result reports what Apply or Restore did.
type Result struct {
	BackupDir string   // backup of the previous state ("" if none was kept)
	Written   []string // files written
	Removed   []string // files deleted
	Pruned    []string // old backup directories deleted
	Warnings  []string // non-fatal problems (e.g. pruning failed)
	Notes     []string // what the user should know (lines carried over)
}

// item is a FileWrite resolved for execution.
type item struct {
	FileWrite
	target string    // absolute path (never a symlink)
	root   string    // the folder every step on target starts from, following no link below it (the config dir, or a named session's folder)
	rel    string    // slash-separated path below the project dir
	hash   *FileHash // target's checksum read ahead (a move's; nil: read at the backup)
	tmp    string    // temp file awaiting rename
	old    *os.File  // the original, held open to see lines appended to it while we work
	hold   string    // a second name of the original while the new file takes its place ("" = none)
	size   int64     // bytes rendered into tmp
}

// Apply performs a guarded in-place write, under the session's lock:
// (a) unless Force, refuse if the session is live (CheckLive on every
// existing file); (b) copy every existing file that is written or removed
// into a new backup directory with a manifest; (c) render each file into an
// fsynced temp file; (d) just before renaming, refuse if another process
// holds a file open for writing, and re-stat each original and abort with
// ErrChanged if it differs from its Snapshot; (e) write a journal, rename
// all temps into place, delete removed files, fsync directories, carry
// over what was appended to an original after (d); (f) prune old backups.
// Before step (e) any failure leaves every original untouched; a run
// killed during (e) is finished by the next one (Recover).
func Apply(p Plan) (res Result, err error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	if err := validateSessionID(p.SessionID); err != nil {
		return res, err
	}
	if p.ConfigDir == "" {
		return res, errors.New("backup: empty config dir")
	}
	items, projectDir, err := resolveItems(p)
	if err != nil || len(items) == 0 {
		return res, err
	}
	if p.Key == "" {
		p.Key = KeyFor(p.ConfigDir, p.SessionID, projectDir)
	}
	if p.Lock == nil {
		l, err := Lock(p.ConfigDir, p.Key, p.Op)
		if err != nil {
			return res, err
		}
		defer l.Unlock()
		if _, err := Recover(p.ConfigDir, p.Key, p.SessionID, projectDir); err != nil {
			return res, err
		}
	}
	defer closeOld(items)

	// (a) live-session guard.
	if !p.Force {
		var paths []string
		for _, it := range items {
			paths = append(paths, it.target)
		}
		if err := checkLive(p.ConfigDir, p.SessionID, paths, now(), p.Key); err != nil {
			return res, err
		}
	}
	// Fail fast if something already changed since it was read.
	if err := checkUnchanged(items); err != nil {
		return res, err
	}
	if err := openOld(items); err != nil {
		return res, err
	}

	// (b) backup.
	how := backupCopy
	if p.NoBackup {
		how = backupNone
	}
	bdir, err := makeBackup(p.ConfigDir, p.Key, p.SessionID, sanitizeOp(p.Op), projectDir, now().UTC(), items, how, nil)
	if err != nil {
		return res, err
	}
	committed := false
	defer func() {
		if !committed {
			// once committed, a second name goes when what was appended
			// to it is carried over (carryOver, or the next run's Recover
			// if this one stops part-way) or it is put back (settle)
			// each from its root down, following no link (unlinkat)
			for _, it := range items {
				if it.hold != "" {
					removeBeneath(it.root, it.hold)
				}
			}
			for _, it := range items {
				if it.tmp != "" {
					removeBeneath(it.root, it.tmp)
				}
			}
			cfg := startRoot(p.ConfigDir, p.ConfigDir)
			removeAllBeneath(cfg, bdir)
			removeDirBeneath(cfg, filepath.Dir(bdir)) // the session's folder, if this was its only backup
		}
	}()
	hook("after-backup")

	// (c) render temps.
	if err := renderTemps(items); err != nil {
		return res, err
	}
	hook("after-fsync")

	// (d) last-moment checks.
	if err := checkWriters(items); err != nil {
		return res, err
	}
	if err := checkUnchanged(items); err != nil {
		return res, err
	}
	hook("before-rename")

	// (e) commit. From here on the journal finishes the change whatever happens.
	holdOld(items)
	if err := writeJournal(startRoot(p.ConfigDir, p.ConfigDir), bdir, items); err != nil {
		return res, err
	}
	committed = true
	if !p.NoBackup {
		res.BackupDir = bdir
	}
	if err := commit(items, projectDir, &res); err != nil {
		var late *lateWriterError
		if errors.As(err, &late) {
			// put back: nothing was modified
			res = Result{}
			if ferr := finishJournal(p.ConfigDir, bdir, false); ferr != nil {
				return res, errors.Join(late.err, ferr)
			}
			return res, late.err
		}
		return res, partialError(bdir, err)
	}
	// what was appended to an original goes over before the journal does:
	// a run killed before that carries it from the original's second name
	res.Notes = append(res.Notes, carryOver(items)...)
	if err := finishJournal(p.ConfigDir, bdir, !p.NoBackup); err != nil {
		return res, partialError(bdir, err)
	}
	recordWritten(p.ConfigDir, p.Key, res.Written)

	// (f) prune.
	pruned, perr := prune(sessionBackupRoot(p.ConfigDir, p.Key), p.SessionID, projectDir, p.Keep, p.Budget)
	res.Pruned = pruned
	if perr != nil {
		res.Warnings = append(res.Warnings, "pruning old backups: "+perr.Error())
	}
	return res, nil
}

func renderTemps(items []item) error {
	for i := range items {
		it := &items[i]
		if it.Remove {
			continue
		}
		if it.Render == nil {
			return fmt.Errorf("backup: no Render for %s", it.Path)
		}
		// from the root down, following no link: a folder swapped for
		// one since the checks leads no folder, file or rename elsewhere
		// (a folder made again, removed since: its parent's mode and
		// owner, no backup keeping a folder's)
		if _, err := mkdirBeneath(it.root, filepath.Dir(it.target), ParentFolderOf); err != nil {
			return fmt.Errorf("create directory for %s: %w", it.target, err)
		}
		var like os.FileInfo // the original's owner and mode, as it was opened
		if it.old != nil {
			like, _ = it.old.Stat()
		}
		f, err := renderTempBeneath(it.root, it.target, like, it.Mode, it.Render)
		if err != nil {
			return err
		}
		if fi, err := f.Stat(); err == nil {
			it.size = fi.Size()
		}
		if it.Snapshot == nil && it.UID != nil && it.GID != nil {
			if err := chownIDs(f, *it.UID, *it.GID); err != nil {
				f.Close()
				removeBeneath(it.root, f.Name())
				return fmt.Errorf("chown %s: %w", f.Name(), err)
			}
		}
		if it.tmp, err = finishTemp(f, it.target, true, it.root); err != nil {
			return err
		}
		if err := keepTimes(it.root, it.tmp, it.Snapshot); err != nil {
			return err
		}
	}
	return nil
}

// keepTimes gives the temp file that replaces a file the times the file
// had when it was read (none for a new file). They are set before the
// rename, so that a change finished by Recover keeps them too; lines a
// client appends after the rename set the time to theirs, as they should.
func keepTimes(root, tmp string, snap *Snapshot) error {
	if snap == nil || snap.ModTime.IsZero() {
		return nil
	}
	if err := chtimesBeneath(root, tmp, snap.ATime, snap.ModTime); err != nil {
		return fmt.Errorf("keep the times of %s: %w", snap.Path, err)
	}
	return nil
}

// commit renames every temp into place, then deletes the removed files,
// then fsyncs the folders: each from the item's root down, following no
// link (renameat, unlinkat, a folder opened O_NOFOLLOW).
func commit(items []item, projectDir string, res *Result) error {
	dirs := map[string]string{} // folder → the root it is reached from
	for i, it := range items {
		if it.Remove {
			continue
		}
		if i > 0 {
			hook("between-renames")
		}
		if err := renameBeneath(it.root, it.tmp, it.target); err != nil {
			return fmt.Errorf("replace %s: %w", it.target, err)
		}
		dirs[filepath.Dir(it.target)] = it.root
		if it.Snapshot == nil {
			// New file: its parent directories may be new too.
			for d := filepath.Dir(it.target); d != projectDir && d != filepath.Dir(d); d = filepath.Dir(d) {
				dirs[filepath.Dir(d)] = it.root
			}
		}
		res.Written = append(res.Written, it.target)
	}
	if err := settle(items); err != nil {
		return err
	}
	hook("before-removals")
	for _, it := range items {
		if !it.Remove {
			continue
		}
		// from the session's folder down, never through a link: a
		// folder swapped for one since the checks leads no removal out
		if err := removeBeneath(it.root, it.target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", it.target, err)
		}
		dirs[filepath.Dir(it.target)] = it.root
		res.Removed = append(res.Removed, it.target)
	}
	hook("after-rename")
	for d, root := range dirs {
		if err := syncDirBeneath(root, d); err != nil {
			return err
		}
	}
	return nil
}

func partialError(bdir string, err error) error {
	return &PartialError{BackupDir: bdir, Err: err}
}

// resolveItems makes paths absolute, refuses symlinks, computes paths
// relative to the project dir and drops removals of files that do not exist.
func resolveItems(p Plan) ([]item, string, error) {
	projectDir := p.ProjectDir
	var err error
	if projectDir == "" {
		if projectDir, err = deriveProjectDir(p.SessionID, p.Files); err != nil {
			return nil, "", err
		}
	}
	if projectDir, err = filepath.Abs(projectDir); err != nil {
		return nil, "", err
	}
	// every step starts from the config dir when the session lies in it
	// by no link (a project folder swapped for a link after this check is
	// then never followed), else from the session's folder (a session
	// named by its path elsewhere, or a config dir whose projects/ is a
	// link the user made)
	root := startRoot(p.ConfigDir, projectDir)
	var items []item
	seen := map[string]bool{}
	for _, fw := range p.Files {
		abs, err := filepath.Abs(fw.Path)
		if err != nil {
			return nil, "", err
		}
		rel, err := relPath(projectDir, abs)
		if err != nil {
			return nil, "", err
		}
		if err := refuseSymlinkBelow(projectDir, abs); err != nil {
			return nil, "", err
		}
		if !p.Named {
			if err := InsideConfigDir(p.ConfigDir, abs); err != nil {
				return nil, "", err
			}
		}
		target := abs
		if seen[target] {
			return nil, "", fmt.Errorf("backup: %s listed twice in plan", fw.Path)
		}
		seen[target] = true
		if fw.Remove && fw.Snapshot == nil {
			if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
				continue // nothing to remove
			}
		}
		fw.Path = abs
		items = append(items, item{FileWrite: fw, target: target, rel: rel, root: root})
	}
	return items, projectDir, nil
}

// deriveProjectDir finds the folder holding <sessionID>.jsonl from the plan's
// paths: the main file's directory, or the parent of a "<sessionID>" folder
// that contains a sidecar.
func deriveProjectDir(sessionID string, files []FileWrite) (string, error) {
	for _, f := range files {
		if filepath.Base(f.Path) == sessionID+".jsonl" {
			return filepath.Dir(f.Path), nil
		}
	}
	for _, f := range files {
		for d := filepath.Dir(f.Path); d != filepath.Dir(d); d = filepath.Dir(d) {
			if filepath.Base(d) == sessionID {
				return filepath.Dir(d), nil
			}
		}
	}
	return "", fmt.Errorf("backup: cannot determine the project folder of session %s; set Plan.ProjectDir", sessionID)
}

// RefuseSymlinks is the symlink policy every write, move and delete
// follows: a *SymlinkError when path, or a folder between
// root and it, is a symlink.
func RefuseSymlinks(root, path string) error { return refuseSymlinkBelow(root, path) }

// refuseSymlinkBelow refuses path when it, or a folder between projectDir
// and it, is a symlink: the write or delete would land wherever it points.
func refuseSymlinkBelow(projectDir, path string) error {
	for p := path; p != projectDir && p != filepath.Dir(p); p = filepath.Dir(p) {
		if err := refuseSymlink(p); err != nil {
			return err
		}
	}
	return nil
}

func relPath(projectDir, path string) (string, error) {
	rel, err := filepath.Rel(projectDir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("backup: %s is not inside the project folder %s", path, projectDir)
	}
	return filepath.ToSlash(rel), nil
}

// CheckSessionID says why a session file's id (its name without .jsonl)
// can make no backup folder; nil when it can. Apply asks it first.
func CheckSessionID(id string) error { return validateSessionID(id) }

func validateSessionID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || !filepath.IsLocal(id) {
		return &NameError{Name: id + ".jsonl"}
	}
	return nil
}

// sanitizeOp makes an operation name safe for use in a directory name.
func sanitizeOp(op string) string {
	var b strings.Builder
	for _, r := range op {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "edit"
	}
	return s
}

// checkUnchanged compares every file with its Snapshot.
func checkUnchanged(items []item) error {
	for _, it := range items {
		fi, err := os.Stat(it.target)
		var why string
		switch {
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("stat %s: %w", it.target, err)
		case it.Snapshot == nil && err == nil:
			why = "appeared"
		case it.Snapshot == nil:
			continue
		case err != nil:
			why = "was deleted"
		case fi.Size() != it.Snapshot.Size:
			why = fmt.Sprintf("changed size from %d to %d bytes", it.Snapshot.Size, fi.Size())
		case !fi.ModTime().Equal(it.Snapshot.ModTime):
			why = "was modified"
		default:
			continue
		}
		return &Error{
			Msg:  fmt.Sprintf("session changed while ccsurgeon was working: %s %s; nothing was modified", it.target, why),
			Hint: "another program wrote to it (Claude Code, if the session is open there): retry once it is still",
			Err:  ErrChanged,
		}
	}
	return nil
}

// InsideConfigDir is the rule every write of a file the user did not name
// follows: path, with every symlink on the way resolved, lies inside the
// config dir. A session reached through a link in a project folder, or a
// folder renamed to a link between the listing and the write, is refused.
func InsideConfigDir(configDir, path string) error {
	cfg, err := filepath.Abs(configDir)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	// the deepest folder that exists, resolved: what is below it is made
	// by ccsurgeon, without a link
	dir, rest := filepath.Dir(abs), filepath.Base(abs)
	for {
		if _, err := os.Lstat(dir); err == nil || dir == filepath.Dir(dir) {
			break
		}
		dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest)
	}
	real := filepath.Join(realPath(dir), rest)
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(abs)
		return symlinkError(abs, target)
	}
	if rel, err := filepath.Rel(realPath(cfg), real); err != nil || !filepath.IsLocal(rel) {
		return &OutsideError{Real: real, ConfigDir: cfg}
	}
	return nil
}
