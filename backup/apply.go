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
// replace a file whose size or modification time no longer match.
type Snapshot struct {
	Path    string
	Size    int64
	ModTime time.Time
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
	return &Snapshot{Path: path, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// FileWrite is one file touched by a Plan.
type FileWrite struct {
	Path     string                  // absolute path of the session file or sidecar
	Snapshot *Snapshot               // state when read; nil means the file must not exist yet
	Render   func(w io.Writer) error // new content (ignored when Remove)
	Remove   bool                    // delete the file instead of writing it
	Mode     os.FileMode             // permissions if the file is new (0 = 0600); existing files keep theirs
}

// Plan describes a guarded in-place write of one session's files.
type Plan struct {
	ConfigDir  string           // Claude Code config dir (backups go to <ConfigDir>/ccsurgeon/backups)
	SessionID  string           // session id (names the backup folder)
	Op         string           // operation name, used in the backup name (e.g. "strip-thinking")
	ProjectDir string           // folder holding <SessionID>.jsonl; derived from Files if ""
	Files      []FileWrite      // main JSONL and changed/removed/new sidecars
	Force      bool             // skip the live-session guard (the Snapshot check still applies)
	Keep       int              // backups kept per session: 0 = DefaultKeep, <0 = never prune
	Now        func() time.Time // clock, for tests (nil = time.Now)
}

// Result reports what Apply or Restore did.
type Result struct {
	BackupDir string   // backup of the previous state ("" if nothing was done)
	Written   []string // files written
	Removed   []string // files deleted
	Pruned    []string // old backup directories deleted
	Warnings  []string // non-fatal problems (e.g. pruning failed)
}

// item is a FileWrite resolved for execution.
type item struct {
	FileWrite
	target string // real path (symlinks resolved)
	rel    string // slash-separated path below the project dir
	tmp    string // temp file awaiting rename
}

// Apply performs a guarded in-place write: (a) unless Force, refuse if the
// session is live (CheckLive on every existing file); (b) copy every existing
// file that is written or removed into a new backup directory with a
// manifest; (c) render each file into an fsynced temp file; (d) just before
// renaming, re-stat each original and abort with ErrChanged (temps and backup
// removed, originals untouched) if it differs from its Snapshot; (e) rename
// all temps into place, delete removed files, fsync directories; (f) prune
// old backups. Before step (e) any failure leaves every original untouched.
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

	// (a) live-session guard.
	if !p.Force {
		var paths []string
		for _, it := range items {
			paths = append(paths, it.target)
		}
		if err := checkLive(p.ConfigDir, p.SessionID, paths, now()); err != nil {
			return res, err
		}
	}
	// Fail fast if something already changed since it was read.
	if err := checkUnchanged(items); err != nil {
		return res, err
	}

	// (b) backup.
	bdir, err := makeBackup(p.ConfigDir, p.SessionID, sanitizeOp(p.Op), projectDir, now().UTC(), items)
	if err != nil {
		return res, err
	}
	committed := false
	defer func() {
		if !committed {
			for _, it := range items {
				if it.tmp != "" {
					os.Remove(it.tmp)
				}
			}
			os.RemoveAll(bdir)
			os.Remove(filepath.Dir(bdir)) // the session's folder, if this was its only backup
		}
	}()
	hook("after-backup")

	// (c) render temps.
	for i := range items {
		it := &items[i]
		if it.Remove {
			continue
		}
		if it.Render == nil {
			return res, fmt.Errorf("backup: no Render for %s", it.Path)
		}
		if err := os.MkdirAll(filepath.Dir(it.target), dirMode); err != nil {
			return res, fmt.Errorf("create directory for %s: %w", it.target, err)
		}
		if it.tmp, err = writeTemp(it.target, it.Mode, it.Render, true); err != nil {
			return res, err
		}
	}
	hook("after-fsync")

	// (d) last-moment change detection.
	if err := checkUnchanged(items); err != nil {
		return res, err
	}
	hook("before-rename")

	// (e) commit. From here on the backup is kept whatever happens.
	committed = true
	res.BackupDir = bdir
	dirs := map[string]bool{}
	for i, it := range items {
		if it.Remove {
			continue
		}
		if i > 0 {
			hook("between-renames")
		}
		if err := os.Rename(it.tmp, it.target); err != nil {
			for _, it2 := range items[i:] {
				if it2.tmp != "" {
					os.Remove(it2.tmp)
				}
			}
			return res, partialError(bdir, fmt.Errorf("replace %s: %w", it.target, err))
		}
		dirs[filepath.Dir(it.target)] = true
		if it.Snapshot == nil {
			// New file: its parent directories may be new too.
			for d := filepath.Dir(it.target); d != projectDir && d != filepath.Dir(d); d = filepath.Dir(d) {
				dirs[filepath.Dir(d)] = true
			}
		}
		res.Written = append(res.Written, it.target)
	}
	for _, it := range items {
		if !it.Remove {
			continue
		}
		if err := os.Remove(it.target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, partialError(bdir, fmt.Errorf("remove %s: %w", it.target, err))
		}
		dirs[filepath.Dir(it.target)] = true
		res.Removed = append(res.Removed, it.target)
	}
	hook("after-rename")
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return res, partialError(bdir, err)
		}
	}

	// (f) prune.
	keep := p.Keep
	if keep == 0 {
		keep = DefaultKeep
	}
	if keep > 0 {
		pruned, perr := prune(sessionBackupRoot(p.ConfigDir, p.SessionID), keep)
		res.Pruned = pruned
		if perr != nil {
			res.Warnings = append(res.Warnings, "pruning old backups: "+perr.Error())
		}
	}
	return res, nil
}

func partialError(bdir string, err error) error {
	return &Error{
		Msg:  fmt.Sprintf("write failed part-way: %v", err),
		Hint: fmt.Sprintf("the previous state is saved in %s; restore it with ccsurgeon's restore command", bdir),
		Code: CodeFailure,
		Err:  err,
	}
}

// resolveItems makes paths absolute, resolves symlinks, computes paths
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
		target, err := resolveTarget(abs)
		if err != nil {
			return nil, "", err
		}
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
		items = append(items, item{FileWrite: fw, target: target, rel: rel})
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

func relPath(projectDir, path string) (string, error) {
	rel, err := filepath.Rel(projectDir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("backup: %s is not inside the project folder %s", path, projectDir)
	}
	return filepath.ToSlash(rel), nil
}

func validateSessionID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || !filepath.IsLocal(id) {
		return fmt.Errorf("backup: invalid session id %q", id)
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
			Hint: "retry the command (close Claude Code first so the session stays still)",
			Code: CodeChanged,
			Err:  ErrChanged,
		}
	}
	return nil
}
