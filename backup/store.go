package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// StampLayout is the UTC time format that starts every backup directory name,
// e.g. "20261121T234501.123Z-strip-thinking".
const StampLayout = "20060102T150405.000Z"

// manifestName is the file describing a backup; a directory without it is an
// incomplete backup.
const manifestName = "manifest.json"

// staleIncomplete is the age after which an incomplete backup dir is pruned.
const staleIncomplete = time.Hour

// BackupFile is one file saved in a backup.
type BackupFile struct {
	Rel    string      `json:"rel"`    // slash-separated path below the project folder
	Path   string      `json:"path"`   // original absolute path
	Size   int64       `json:"size"`   // size in bytes
	SHA256 string      `json:"sha256"` // hex sha256 of the content
	Mode   os.FileMode `json:"mode"`   // original permission bits
}

// Backup describes one backup directory (its manifest).
type Backup struct {
	Name       string       `json:"-"`          // directory name, e.g. 20261121T234501.123Z-strip-thinking
	Dir        string       `json:"-"`          // absolute directory path
	Version    int          `json:"version"`    // manifest format version
	Op         string       `json:"op"`         // operation that was about to run
	Time       time.Time    `json:"time"`       // when the backup was taken (UTC)
	SessionID  string       `json:"sessionId"`  // session id
	ProjectDir string       `json:"projectDir"` // project folder at backup time
	Files      []BackupFile `json:"files"`      // saved files
	Created    []BackupFile `json:"created"`    // files that did not exist before the op (no content saved)
	// Move, for a backup taken by a move, is the caller's record of the
	// whole move (every file's old and new place), which undoing it needs.
	Move json.RawMessage `json:"move,omitempty"`
}

// Size returns the total size of the saved files.
func (b Backup) Size() int64 {
	var n int64
	for _, f := range b.Files {
		n += f.Size
	}
	return n
}

func sessionBackupRoot(configDir, sessionID string) string {
	return filepath.Join(configDir, "ccsurgeon", "backups", sessionID)
}

// makeBackup copies every existing item into a new backup directory and
// writes its manifest. On error nothing is left behind.
func makeBackup(configDir, sessionID, op, projectDir string, t time.Time, items []item) (dir string, err error) {
	root := sessionBackupRoot(configDir, sessionID)
	if err := os.MkdirAll(root, dirMode); err != nil {
		return "", fmt.Errorf("create backup directory: %w", err)
	}
	for i := 0; ; i++ {
		name := t.Format(StampLayout) + "-" + op
		dir = filepath.Join(root, name)
		err := os.Mkdir(dir, dirMode)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", fmt.Errorf("create backup directory: %w", err)
		}
		t = t.Add(time.Millisecond) // same millisecond as another backup
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	m := Backup{Version: 1, Op: op, Time: t, SessionID: sessionID, ProjectDir: projectDir,
		Files: []BackupFile{}, Created: []BackupFile{}}
	for _, it := range items {
		fi, serr := os.Stat(it.target)
		if errors.Is(serr, os.ErrNotExist) {
			m.Created = append(m.Created, BackupFile{Rel: it.rel, Path: it.Path})
			continue
		}
		if serr != nil {
			return "", serr
		}
		bf, cerr := copyFileSynced(it.target, filepath.Join(dir, filepath.FromSlash(it.rel)))
		if cerr != nil {
			return "", wrapIOError("back up "+it.target, cerr)
		}
		bf.Rel, bf.Path, bf.Mode = it.rel, it.Path, fi.Mode().Perm()
		m.Files = append(m.Files, bf)
	}
	err = WriteFileAtomic(filepath.Join(dir, manifestName), DefaultMode, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
	if err != nil {
		return "", wrapIOError("write backup manifest", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if err := syncDir(d); err != nil {
			return "", err
		}
		if d == filepath.Dir(root) {
			break
		}
	}
	return dir, nil
}

// copyFileSynced copies src to a new file dst (mode 0600, parents 0700),
// fsyncs it and returns its size and sha256.
func copyFileSynced(src, dst string) (bf BackupFile, err error) {
	in, err := os.Open(src)
	if err != nil {
		return bf, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), dirMode); err != nil {
		return bf, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, DefaultMode)
	if err != nil {
		return bf, err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(dst)
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if err != nil {
		return bf, err
	}
	if err = out.Sync(); err != nil {
		return bf, err
	}
	if err = out.Close(); err != nil {
		return bf, err
	}
	if d := filepath.Dir(dst); d != "" {
		if err = syncDir(d); err != nil {
			return bf, err
		}
	}
	return BackupFile{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// readBackup loads the manifest of one backup directory.
func readBackup(dir string) (Backup, error) {
	var b Backup
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	b.Name, b.Dir = filepath.Base(dir), dir
	return b, nil
}

// List returns the complete backups of a session, newest first. A session
// without backups yields an empty list and no error. Directories without a
// readable manifest (interrupted backups) are skipped.
func List(configDir, sessionID string) ([]Backup, error) {
	if err := validateSessionID(sessionID); err != nil {
		return nil, err
	}
	root := sessionBackupRoot(configDir, sessionID)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Backup
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := readBackup(filepath.Join(root, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		return out[i].Name > out[j].Name
	})
	return out, nil
}

// prune deletes complete backups beyond the keep newest, plus incomplete
// backup directories older than staleIncomplete. It returns the deleted
// directories.
func prune(root string, keep int) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var complete []Backup
	var pruned []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		b, err := readBackup(dir)
		if err == nil {
			complete = append(complete, b)
			continue
		}
		if fi, ierr := e.Info(); ierr == nil && time.Since(fi.ModTime()) > staleIncomplete {
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, err)
			} else {
				pruned = append(pruned, dir)
			}
		}
	}
	sort.Slice(complete, func(i, j int) bool {
		if !complete[i].Time.Equal(complete[j].Time) {
			return complete[i].Time.After(complete[j].Time)
		}
		return complete[i].Name > complete[j].Name
	})
	for i := keep; i < len(complete); i++ {
		if err := os.RemoveAll(complete[i].Dir); err != nil {
			errs = append(errs, err)
		} else {
			pruned = append(pruned, complete[i].Dir)
		}
	}
	return pruned, errors.Join(errs...)
}

// Find returns the backup selected by which: "" means the newest, otherwise
// an exact directory name or a unique prefix of one.
func Find(configDir, sessionID, which string) (Backup, error) {
	all, err := List(configDir, sessionID)
	if err != nil {
		return Backup{}, err
	}
	if len(all) == 0 {
		return Backup{}, &Error{
			Msg:  fmt.Sprintf("no backups for session %s", sessionID),
			Code: CodeNoBackup, Err: ErrNoBackup,
		}
	}
	if which == "" {
		return all[0], nil
	}
	var matches []Backup
	for _, b := range all {
		if b.Name == which {
			return b, nil
		}
		if strings.HasPrefix(b.Name, which) {
			matches = append(matches, b)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return Backup{}, &Error{
			Msg:  fmt.Sprintf("no backup of session %s matches %q", sessionID, which),
			Hint: "list the backups and pass a directory name or a unique prefix of one",
			Code: CodeNoBackup, Err: ErrNoBackup,
		}
	default:
		var names []string
		for _, m := range matches {
			names = append(names, m.Name)
		}
		return Backup{}, &Error{
			Msg:  fmt.Sprintf("%q matches %d backups: %s", which, len(matches), strings.Join(names, ", ")),
			Hint: "use a longer prefix",
			Code: CodeNoBackup, Err: ErrNoBackup,
		}
	}
}

// Restore puts a backup's files back (which: "" = newest, else a backup
// directory name or unique prefix). It verifies the backup's checksums, then
// runs Apply with Op "restore": the current state is itself backed up first
// (so the restore can be undone), files created after the backup are
// removed, and every file is replaced atomically. projectDir "" means the
// project folder recorded in the backup. Unless force, the live-session guard
// applies.
func Restore(configDir, sessionID, projectDir, which string, force bool) (Result, error) {
	b, err := Find(configDir, sessionID, which)
	if err != nil {
		return Result{}, err
	}
	if projectDir == "" {
		projectDir = b.ProjectDir
	}
	plan := Plan{ConfigDir: configDir, SessionID: sessionID, Op: "restore", ProjectDir: projectDir, Force: force}
	for _, f := range b.Files {
		src, err := backupFilePath(b, f)
		if err != nil {
			return Result{}, err
		}
		if err := verifySHA256(src, f.SHA256); err != nil {
			return Result{}, &Error{
				Msg:  fmt.Sprintf("backup %s is damaged: %v", b.Name, err),
				Hint: "choose another backup",
				Code: CodeFailure, Err: err,
			}
		}
		target := filepath.Join(projectDir, filepath.FromSlash(f.Rel))
		snap, err := TakeSnapshot(target)
		if err != nil {
			return Result{}, err
		}
		plan.Files = append(plan.Files, FileWrite{Path: target, Snapshot: snap, Mode: f.Mode,
			Render: func(w io.Writer) error {
				in, err := os.Open(src)
				if err != nil {
					return err
				}
				defer in.Close()
				_, err = io.Copy(w, in)
				return err
			}})
	}
	for _, f := range b.Created {
		if !filepath.IsLocal(filepath.FromSlash(f.Rel)) {
			return Result{}, fmt.Errorf("backup %s: bad path %q", b.Name, f.Rel)
		}
		target := filepath.Join(projectDir, filepath.FromSlash(f.Rel))
		snap, err := TakeSnapshot(target)
		if err != nil {
			return Result{}, err
		}
		if snap != nil {
			plan.Files = append(plan.Files, FileWrite{Path: target, Snapshot: snap, Remove: true})
		}
	}
	return Apply(plan)
}

// backupFilePath returns the location of a saved file inside a backup,
// refusing manifest paths that would escape the backup directory.
func backupFilePath(b Backup, f BackupFile) (string, error) {
	rel := filepath.FromSlash(f.Rel)
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("backup %s: bad path %q", b.Name, f.Rel)
	}
	return filepath.Join(b.Dir, rel), nil
}

// verifySHA256 checks a file's content against a hex sha256.
func verifySHA256(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: checksum mismatch", path)
	}
	return nil
}
