package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"golang.org/x/sync/errgroup"
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
	Rel    string      `json:"rel"`              // slash-separated path below the project folder
	Path   string      `json:"path"`             // original absolute path
	Size   int64       `json:"size"`             // size in bytes
	XXH128 string      `json:"xxh128,omitempty"` // hex XXH3-128 of the content (manifest version 2: checksum.go)
	SHA256 string      `json:"sha256,omitempty"` // hex sha256 of the content (version 1; still checked)
	Mode   os.FileMode `json:"mode"`             // original permission bits
	UID    *int        `json:"uid,omitempty"`    // original owner
	GID    *int        `json:"gid,omitempty"`    // original group
}

// Backup describes one backup directory (its manifest).
type Backup struct {
	Name       string       `json:"-"`          // directory name, e.g. 20261121T234501.123Z-strip-thinking
	Dir        string       `json:"-"`          // absolute directory path
	Made       time.Time    `json:"-"`          // when it was made: Time, unless its manifest was written earlier
	Original   bool         `json:"-"`          // the oldest backup kept: the session before ccsurgeon's first change
	Version    int          `json:"version"`    // manifest format version
	Op         string       `json:"op"`         // operation that was about to run
	Time       time.Time    `json:"time"`       // when the backup was taken (UTC)
	SessionID  string       `json:"sessionId"`  // session id
	ProjectDir string       `json:"projectDir"` // project folder at backup time
	Files      []BackupFile `json:"files"`      // saved files
	Created    []BackupFile `json:"created"`    // files that did not exist before the op (no content saved)
	// Move, for a backup taken by a move, is the caller's record of the
	// move: what undoing it needs of this session (its files' old and new
	// places, and the project's own; the move's id names the others').
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

func sessionBackupRoot(configDir, key string) string {
	return filepath.Join(BackupsRoot(configDir), key)
}

// backupHow is how makeBackup saves the files.
type backupHow int

const (
	backupNone backupHow = iota // an empty directory, for the commit journal only
	backupCopy                  // a copy of each file
	// backupLink gives each file a second name in the backup (a hard
	// link; a copy where the file system has none): for a move, whose
	// end removes the old names, so the backup is what keeps the bytes
	backupLink
	// backupLinkLater is backupLink whose files' data the caller makes
	// durable before anything relies on the backup (a move's one syncfs,
	// before its point of no return): no fsync of each old file here
	backupLinkLater
)

// fileWorkers is how many files a backup or a move writes at a time: each
// waits for its own fsync, and the disk takes several at once (the block
// layer merges them); more than a few only queue.
const fileWorkers = 8

// makeBackup saves every existing item into a new backup directory (how)
// and writes its manifest, with move (a move's record, else nil) in it.
// On error nothing is left behind.
func makeBackup(configDir, key, sessionID, op, projectDir string, t time.Time, items []item, how backupHow, move json.RawMessage) (dir string, err error) {
	return makeBackupNamed(configDir, key, sessionID, op, projectDir, t, items, how, move, nil)
}

// makeBackupNamed is makeBackup calling named with the backup's folder as
// soon as it is made, before anything is in it (a move names it in its
// journal's log then: a kill at any later step leaves a backup the
// rollback removes, never a whole one it does not know; an error of named
// removes the folder).
func makeBackupNamed(configDir, key, sessionID, op, projectDir string, t time.Time, items []item, how backupHow, move json.RawMessage, named func(dir string) error) (dir string, err error) {
	root := sessionBackupRoot(configDir, key)
	cfg := startRoot(configDir, configDir)
	if err := makeDirs(cfg, root, nil); err != nil {
		return "", fmt.Errorf("create backup directory: %w", err)
	}
	for i := 0; ; i++ {
		name := t.Format(StampLayout) + "-" + op
		dir = filepath.Join(root, name)
		err := makeDir(cfg, dir, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", fmt.Errorf("create backup directory: %w", err)
		}
		t = t.Add(time.Millisecond) // same millisecond as another backup
	}
	// the folder made, by its own name: a return on error sets dir to ""
	// before this runs (the partial backup was left, and its removal
	// named no folder)
	made := dir
	defer func() {
		if err != nil {
			removeAllBeneath(cfg, made)
		}
	}()
	if named != nil {
		if err := named(dir); err != nil {
			return "", err
		}
	}
	if how == backupNone {
		return dir, syncDir(root)
	}
	m := Backup{Version: manifestVersion, Op: op, Time: t, SessionID: sessionID, ProjectDir: projectDir,
		Files: []BackupFile{}, Created: []BackupFile{}, Move: move}
	// the files are saved several at a time (each waits for its disk: a
	// session of 859 files waited for 859 fsyncs one after the other),
	// each folder of the backup fsynced once they are all in it, before
	// the manifest that says the backup is whole
	saved := make([]BackupFile, len(items))
	exists := make([]bool, len(items))
	errs := make([]error, len(items))
	var g errgroup.Group
	g.SetLimit(fileWorkers)
	for i, it := range items {
		g.Go(func() error {
			hook("backup-copying")
			fi, serr := os.Lstat(it.target)
			if errors.Is(serr, os.ErrNotExist) {
				return nil
			}
			if serr != nil {
				errs[i] = serr
				return nil
			}
			var bf BackupFile
			var cerr error
			if dst := filepath.Join(dir, filepath.FromSlash(it.rel)); how == backupLink || how == backupLinkLater {
				bf, cerr = linkFileSynced(projectDir, it.target, cfg, dst, it.hash, how == backupLink)
			} else {
				bf, cerr = copyFileSynced(projectDir, it.target, cfg, dst)
			}
			if cerr != nil {
				errs[i] = wrapIOError("back up "+it.target, cerr)
				return nil
			}
			bf.Rel, bf.Path, bf.Mode = it.rel, it.Path, fi.Mode().Perm()
			if uid, gid, ok := fileOwner(fi); ok {
				bf.UID, bf.GID = &uid, &gid
			}
			saved[i], exists[i] = bf, true
			return nil
		})
	}
	g.Wait()
	// a full disk is met by whichever file is being written when the
	// space runs out (eight at a time): said in words that name none
	for _, e := range errs {
		if errors.Is(e, ErrNoSpace) {
			return "", &Error{Msg: "back up the session's files: no space left on device (the original file was not modified)",
				Hint: "free some disk space and retry", Err: e}
		}
	}
	synced := map[string]bool{dir: true} // (with its parents, after the manifest)
	for i, it := range items {
		if errs[i] != nil { // the first in the items' order, whichever failed first
			return "", errs[i]
		}
		if !exists[i] {
			m.Created = append(m.Created, BackupFile{Rel: it.rel, Path: it.Path})
			continue
		}
		m.Files = append(m.Files, saved[i])
		// the file's folder, and each folder between it and the
		// backup's (<id>/ holds subagents/ and no file of its own): an
		// entry of a folder not fsynced could be lost with the manifest
		// kept
		for d := filepath.Dir(filepath.Join(dir, filepath.FromSlash(it.rel))); !synced[d]; d = filepath.Dir(d) {
			synced[d] = true
			if err := syncDir(d); err != nil {
				return "", err
			}
		}
	}
	// a new file in the new folder, from the config dir down following
	// no link (as the copies)
	err = renderTo(cfg, filepath.Join(dir, manifestName), nil, DefaultMode, func(w io.Writer) error {
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

// copyFileSynced copies src, a regular file below root reached without
// following a link (openRegularBeneath), to a new file dst below dstRoot
// (mode 0600, parents 0700, made from dstRoot down following no link),
// fsyncs it and returns its size and checksum (its folder is fsynced by the
// caller, once for all the files given a name in it).
func copyFileSynced(root, src, dstRoot, dst string) (bf BackupFile, err error) {
	in, err := openRegularBeneath(root, src)
	if err != nil {
		return bf, err
	}
	defer in.Close()
	if err := makeDirs(dstRoot, filepath.Dir(dst), nil); err != nil {
		return bf, err
	}
	out, err := openBeneath(dstRoot, dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, DefaultMode)
	if err != nil {
		return bf, err
	}
	defer func() {
		if err != nil {
			out.Close()
			removeBeneath(dstRoot, dst)
		}
	}()
	h := newChecksum()
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
	return BackupFile{Size: n, XXH128: sumOf(h)}, nil
}

// linkFileSynced is copyFileSynced giving src a second name dst instead
// of copying it (a move's backup: the move removes src's name at its end,
// and a copy wrote the whole session again, and waited for the disk, for
// bytes that stay where they are). The name is given to the file opened
// below root without following a link (the same check as the copy's):
// when the new name is not that file (a folder on the way swapped since),
// or the file system gives no second names, or the file's data cannot be
// flushed to disk (a backup is durable: the copy was fsynced), it falls
// back to a copy. Its mode is src's own (the backup folder is 0700).
// Without sync, src's data is made durable by the caller (a syncfs of its
// file system before anything relies on the backup).
func linkFileSynced(root, src, dstRoot, dst string, pre *FileHash, sync bool) (bf BackupFile, err error) {
	in, err := openRegularBeneath(root, src)
	if err != nil {
		return bf, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return bf, err
	}
	// a file with another name already is written through it after the
	// move: a backup that is that file would change with it
	if n, ok := linkCount(in, fi); !ok || n != 1 {
		return copyFileSynced(root, src, dstRoot, dst)
	}
	if err := makeDirs(dstRoot, filepath.Dir(dst), nil); err != nil {
		return bf, err
	}
	if linkAcross(root, src, dstRoot, dst) != nil {
		return copyFileSynced(root, src, dstRoot, dst)
	}
	same := false
	if l, lerr := openBeneath(dstRoot, dst, os.O_RDONLY, 0); lerr == nil {
		li, serr := l.Stat()
		same = serr == nil && os.SameFile(fi, li)
		l.Close()
	}
	if !same || sync && in.Sync() != nil {
		removeBeneath(dstRoot, dst)
		return copyFileSynced(root, src, dstRoot, dst)
	}
	if sync {
		hook("backup-source-fsynced:" + src)
	}
	defer func() {
		if err != nil {
			removeBeneath(dstRoot, dst)
		}
	}()
	var n int64
	var sum string
	read := false // the sum read ahead is of these bytes
	if now, serr := in.Stat(); serr == nil {
		n, sum, read = pre.of(now)
	}
	if !read {
		h := newChecksum()
		if n, err = copyAll(h, in); err != nil {
			return bf, err
		}
		sum = sumOf(h)
	}
	return BackupFile{Size: n, XXH128: sum}, nil
}

// readBackup loads the manifest of one backup directory.
func readBackup(dir string) (Backup, error) {
	var b Backup
	data, err := chain.ReadSideFile(filepath.Join(dir, manifestName))
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	b.Name, b.Dir = filepath.Base(dir), dir
	b.Made = b.Time
	// the file's change time cannot be set back from user space: a
	// manifest that claims a later time than it was written at (a planted
	// future date, a wrong clock) counts from then
	if c, ok := changeTime(filepath.Join(dir, manifestName)); ok && c.Before(b.Made) {
		b.Made = c
	}
	return b, nil
}

// sortNewestFirst orders backups by when they were made, the last made
// first, and marks the oldest as the original.
func sortNewestFirst(bs []Backup) {
	sort.Slice(bs, func(i, j int) bool {
		if !bs[i].Made.Equal(bs[j].Made) {
			return bs[i].Made.After(bs[j].Made)
		}
		return bs[i].Name > bs[j].Name
	})
	if len(bs) > 0 {
		bs[len(bs)-1].Original = true
	}
}

// List returns the complete backups of the session with backup key key
// (see KeyFor), the last made first. A session without backups yields an
// empty list and no error. Directories without a readable manifest
// (interrupted backups, which the next write removes) are skipped.
func List(configDir, key string) ([]Backup, error) {
	root, entries, err := keyEntries(configDir, key)
	if err != nil || len(entries) == 0 {
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
	sortNewestFirst(out)
	return out, nil
}

// ListOf returns the backups of one session file — session sessionID in
// project folder projectDir — the last made first, the oldest of them
// marked the original; others are the backups of the same key taken of
// another file (the same session id in another project folder of the
// config dir shares the key). A backup belongs to the file when its
// manifest names the file's folder, or when it was taken by a move that
// brought the file into that folder (restoring it undoes the move).
func ListOf(configDir, key, sessionID, projectDir string) (mine, others []Backup, err error) {
	all, err := List(configDir, key)
	if err != nil {
		return nil, nil, err
	}
	mine, others = splitOf(all, sessionID, projectDir)
	return mine, others, nil
}

// splitOf splits backups (newest first) into those of the session file in
// projectDir and the others, and marks the oldest of each part the
// original. A move of the file into projectDir makes the backups taken in
// the folder it came from before the move the file's too (and so on back
// through earlier moves): a redaction's backup, taken before a move,
// holds the secrets the session's purge is to remove.
func splitOf(all []Backup, sessionID, projectDir string) (mine, others []Backup) {
	// the folders the file was in, each with when it came (a move into
	// it: zero until met, for it may have been there from the start) and
	// when it left (zero for the folder it is in now); a backup taken in
	// one of them in that time, or a move that brought the file into it
	// then, is the file's. Without the lower bound, a copy of the same
	// session that lived in a folder before this one came was taken for it
	type stay struct {
		dir          string
		since, until time.Time
	}
	stays := []*stay{{dir: projectDir}}
	movedInto := func(b Backup, dir string) bool { return !sameFolder(b.ProjectDir, dir) && MovedInto(b, sessionID, dir) }
	for _, b := range all { // the newest first
		b.Original = false
		var in *stay
		for _, s := range stays {
			if !s.until.IsZero() && !b.Made.Before(s.until) || !s.since.IsZero() && !b.Made.After(s.since) {
				continue
			}
			if movedInto(b, s.dir) {
				in = s
				break
			}
			if sameFolder(b.ProjectDir, s.dir) {
				if s.since.IsZero() && movedOutOf(b, sessionID, s.dir) {
					// a move out of a folder the file was in then, and did
					// not come into by a move since: another copy of the
					// session left it (the one here stayed); what was
					// taken there until then is that copy's
					s.since = b.Made
					break
				}
				in = s
				break
			}
		}
		if in == nil {
			others = append(others, b)
			continue
		}
		mine = append(mine, b)
		if movedInto(b, in.dir) {
			// the file came into in.dir then: what was taken there before
			// is another's; where it came from, it was until then
			in.since = b.Made
			stays = append(stays, &stay{dir: b.ProjectDir, until: b.Made})
		}
	}
	if len(mine) > 0 {
		mine[len(mine)-1].Original = true
	}
	if len(others) > 0 {
		others[len(others)-1].Original = true
	}
	return mine, others
}

// UndoesHere reports whether backup b, taken by a move, undoes that move
// from projectDir, where session sessionID is: the move brought the
// transcript here, or rewrote it here (a new path of the same slug).
func UndoesHere(b Backup, sessionID, projectDir string) bool {
	return MovedInto(b, sessionID, projectDir) || sameFolder(b.ProjectDir, projectDir) && !movedOutOf(b, sessionID, projectDir)
}

// movedOutOf reports whether backup b was taken by a move that took
// session sessionID's transcript out of projectDir.
func movedOutOf(b Backup, sessionID, projectDir string) bool {
	return slices.ContainsFunc(movedFiles(b), func(f Moved) bool {
		return filepath.Base(f.From) == sessionID+".jsonl" && sameFolder(filepath.Dir(f.From), projectDir) && !sameFolder(filepath.Dir(f.To), projectDir)
	})
}

// MovedInto reports whether backup b was taken by a move that put session
// sessionID's transcript in projectDir (restoring it undoes that move).
func MovedInto(b Backup, sessionID, projectDir string) bool {
	return slices.ContainsFunc(movedFiles(b), func(f Moved) bool {
		return filepath.Base(f.To) == sessionID+".jsonl" && sameFolder(filepath.Dir(f.To), projectDir)
	})
}

// movedFiles are the files a move's record (b.Move) says it moved (none
// for a backup of anything else, or a record that does not read).
func movedFiles(b Backup) []Moved {
	if b.Move == nil {
		return nil
	}
	var rec struct {
		Files []Moved `json:"files"`
	}
	if json.Unmarshal(b.Move, &rec) != nil {
		return nil
	}
	return rec.Files
}

// Belongs reports whether backup b was taken of session sessionID in
// projectDir: its manifest names that folder, or it was taken by a move
// that put the session's transcript there. Folders are compared by name
// (the key already tells folders apart outside <config-dir>/projects, and
// inside it the name is the folder: a config dir reached by another path
// is the same config dir).
func Belongs(b Backup, sessionID, projectDir string) bool {
	return sameFolder(b.ProjectDir, projectDir) || MovedInto(b, sessionID, projectDir)
}

func sameFolder(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, b = filepath.Clean(a), filepath.Clean(b)
	return a == b || filepath.Base(a) == filepath.Base(b) || realPath(a) == realPath(b)
}

// DefaultBudget is the bytes of backups kept per session when Plan.Budget
// is 0.
const DefaultBudget = 1 << 30

// prune deletes the complete backups that are neither among the keep last
// made nor the original (the oldest: the session as it was before
// ccsurgeon's first change, the one backup that holds what no later one
// does), then, while the rest weigh more than budget, the oldest of them
// but the last made. Only the backups of the session file in projectDir
// count (see ListOf): another folder's copy of the session, sharing the
// key, keeps its own backups and its own original. Incomplete directories
// are Recover's. It returns the deleted directories.
func prune(root, sessionID, projectDir string, keep int, budget int64) ([]string, error) {
	if keep == 0 {
		keep = DefaultKeep
	}
	if budget == 0 {
		budget = DefaultBudget
	}
	if keep < 0 {
		return nil, nil
	}
	if keep < 1 {
		keep = 1
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var all []Backup
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if b, err := readBackup(filepath.Join(root, e.Name())); err == nil {
			all = append(all, b)
		}
	}
	sortNewestFirst(all)
	all, _ = splitOf(all, sessionID, projectDir)
	var kept, drop []Backup
	var total int64
	for i, b := range all {
		if i < keep || b.Original {
			kept = append(kept, b)
			total += b.Size()
		} else {
			drop = append(drop, b)
		}
	}
	// over budget: the oldest kept ones go first, never the last made or
	// the original
	for i := len(kept) - 2; i >= 1 && budget > 0 && total > budget; i-- {
		if kept[i].Original {
			continue
		}
		total -= kept[i].Size()
		drop = append(drop, kept[i])
	}
	// a move's backup stays while a kept backup taken before it in
	// another folder than this one does: the move is what makes that
	// backup this session's, listed and purged with it (a redaction's
	// holds the secrets it took out); a move nothing depends on goes
	dropped := map[string]bool{}
	for _, d := range drop {
		dropped[d.Dir] = true
	}
	drop = slices.DeleteFunc(drop, func(b Backup) bool {
		if b.Move == nil {
			return false
		}
		for _, k := range all {
			if !dropped[k.Dir] && k.Made.Before(b.Made) && !sameFolder(k.ProjectDir, projectDir) {
				return true
			}
		}
		return false
	})
	var pruned []string
	var errs []error
	for _, b := range drop {
		if err := removeAllBeneath(root, b.Dir); err != nil {
			errs = append(errs, err)
		} else {
			pruned = append(pruned, b.Dir)
		}
	}
	sort.Strings(pruned)
	return pruned, errors.Join(errs...)
}

// keyEntries lists the folder of the backups with key key (none: no
// error).
func keyEntries(configDir, key string) (string, []os.DirEntry, error) {
	if err := validateSessionID(key); err != nil {
		return "", nil, err
	}
	root := sessionBackupRoot(configDir, key)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return root, nil, nil
	}
	return root, entries, err
}

// Purge deletes every backup of the session with backup key key, complete
// or not; the caller holds the session's lock. It returns the deleted
// directories.
func Purge(configDir, key string) ([]string, error) {
	if err := refuseLinkedBackups(configDir, key); err != nil {
		return nil, err
	}
	root, entries, err := keyEntries(configDir, key)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	var out []string
	cfg := startRoot(configDir, configDir)
	for _, e := range entries {
		d := filepath.Join(root, e.Name())
		if err := removeAllBeneath(cfg, d); err != nil {
			return out, err
		}
		out = append(out, d)
	}
	removeDirBeneath(cfg, root)
	removeBeneath(cfg, writtenPath(configDir, key))
	return out, syncDir(BackupsRoot(configDir))
}

// PurgeOf deletes the backups of one session file (see ListOf) and
// leaves those of another copy of the session that share its key; with
// none of those it is Purge. The caller holds the session's lock.
func PurgeOf(configDir, key, sessionID, projectDir string) ([]string, error) {
	if err := refuseLinkedBackups(configDir, key); err != nil {
		return nil, err
	}
	mine, others, err := ListOf(configDir, key, sessionID, projectDir)
	if err != nil || len(others) == 0 {
		if err != nil {
			return nil, err
		}
		return Purge(configDir, key)
	}
	var out []string
	cfg := startRoot(configDir, configDir)
	for _, b := range mine {
		if err := removeAllBeneath(cfg, b.Dir); err != nil {
			return out, err
		}
		out = append(out, b.Dir)
	}
	sort.Strings(out)
	return out, syncDir(sessionBackupRoot(configDir, key))
}

// Keys returns the backup keys that are session ids starting with prefix
// (the sessions with backups, whether or not their file is still there):
// a loose file's key, its name and a hash, is never one.
func Keys(configDir, prefix string) []string {
	entries, _ := os.ReadDir(BackupsRoot(configDir))
	var out []string
	for _, e := range entries {
		if n := e.Name(); e.IsDir() && chain.IsUUID(n) && strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// FindOf returns the backup of one session file (see ListOf) selected by
// which: "" means the newest, otherwise an exact directory name or a
// unique prefix of one. A backup of the same session id in another
// project folder is never chosen, and when only such backups exist, or
// which names one, the error says where they belong.
func FindOf(configDir, key, sessionID, projectDir, which string) (Backup, error) {
	mine, others, err := ListOf(configDir, key, sessionID, projectDir)
	if err != nil {
		return Backup{}, err
	}
	file := filepath.Join(projectDir, sessionID+".jsonl")
	elsewhere := func(b Backup) string { return filepath.Join(b.ProjectDir, sessionID+".jsonl") }
	if which != "" {
		for _, b := range others {
			if b.Name == which || (strings.HasPrefix(b.Name, which) && !anyHasPrefix(mine, which)) {
				return Backup{}, &ElsewhereError{Name: b.Name, Of: elsewhere(b), File: file}
			}
		}
	}
	if len(mine) == 0 {
		e := &NoBackupError{File: file, SessionID: sessionID}
		if len(others) > 0 {
			e.Other = elsewhere(others[0])
			fi, err := os.Lstat(e.Other)
			// a restore of a file that is not there fails: the error
			// says where the backups are kept instead
			e.OtherThere = err == nil && fi.Mode().IsRegular()
			e.Kept = filepath.Dir(others[0].Dir)
		}
		return Backup{}, e
	}
	return pick(mine, file, which)
}

func anyHasPrefix(bs []Backup, prefix string) bool {
	for _, b := range bs {
		if strings.HasPrefix(b.Name, prefix) {
			return true
		}
	}
	return false
}

// pick chooses among backups (newest first) the one which selects.
func pick(all []Backup, of, which string) (Backup, error) {
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
			Msg:  fmt.Sprintf("no backup of %s matches %q", of, which),
			Hint: "list the backups and pass a directory name or a unique prefix of one",
			Err:  ErrNoBackup,
		}
	default:
		var names []string
		for _, m := range matches {
			names = append(names, m.Name)
		}
		return Backup{}, &Error{
			Msg:  fmt.Sprintf("%q matches %d backups: %s", which, len(matches), strings.Join(names, ", ")),
			Hint: "use a longer prefix",
			Err:  ErrAmbiguous,
		}
	}
}

// RestoreOptions say which backup of which session to put back.
type RestoreOptions struct {
	ConfigDir  string
	SessionID  string
	Key        string // backup key ("" = KeyFor(ConfigDir, SessionID, ProjectDir))
	ProjectDir string // the session's folder, as ccsurgeon found it (never the manifest's)
	Which      string // "" = the last made, else a directory name or unique prefix
	Force      bool   // skip the live-session guard
	Lock       *SessionLock
	Named      bool // the user named the session by its path (see Plan.Named)
	// Check, if set, sees each saved file (checksum verified) before
	// anything is written; an error refuses the restore.
	Check func(f BackupFile, src string) error
}

// Restore puts a backup's files back. The files go to the paths ccsurgeon
// derives from the session (ProjectDir and the session id): a manifest
// naming another folder, or a file that is not one of the session's own
// (<id>.jsonl, <id>/subagents/agent-*, agent-*.jsonl, <id>/tool-results/*),
// is refused. It
// verifies the backup's checksums, calls Check, then runs Apply with Op
// "restore": the current state is itself backed up first (so the restore
// can be undone), files created after the backup are removed, and every
// file is replaced atomically.
func Restore(o RestoreOptions) (Result, Backup, error) {
	if o.ProjectDir == "" {
		return Result{}, Backup{}, errors.New("backup: restore needs the session's folder")
	}
	if o.Key == "" {
		o.Key = KeyFor(o.ConfigDir, o.SessionID, o.ProjectDir)
	}
	if o.Lock == nil {
		l, err := Lock(o.ConfigDir, o.Key, "restore")
		if err != nil {
			return Result{}, Backup{}, err
		}
		defer l.Unlock()
		if _, err := Recover(o.ConfigDir, o.Key, o.SessionID, o.ProjectDir); err != nil {
			return Result{}, Backup{}, err
		}
		o.Lock = l
	}
	b, err := FindOf(o.ConfigDir, o.Key, o.SessionID, o.ProjectDir, o.Which)
	if err != nil {
		return Result{}, b, err
	}
	damaged := func(err error) error {
		return &DamagedError{Name: b.Name, Err: err}
	}
	if b.SessionID != o.SessionID {
		return Result{}, b, damaged(fmt.Errorf("it belongs to session %q", b.SessionID))
	}
	if b.Move == nil && !sameFolder(b.ProjectDir, o.ProjectDir) {
		// taken before a move brought the session here: put back here,
		// its entries would name the folder it left; the newest move
		// undone first takes it a step back
		mine, _, err := ListOf(o.ConfigDir, o.Key, o.SessionID, o.ProjectDir)
		if err != nil {
			return Result{}, b, err
		}
		e := &MovedSinceError{Name: b.Name, From: b.ProjectDir, To: o.ProjectDir, SessionID: o.SessionID}
		for _, m := range mine {
			if m.Move != nil {
				e.Undo = m
				break
			}
		}
		return Result{}, b, e
	}
	plan := Plan{ConfigDir: o.ConfigDir, SessionID: o.SessionID, Key: o.Key, Op: "restore", ProjectDir: o.ProjectDir, Force: o.Force, Lock: o.Lock, Named: o.Named}
	for _, f := range b.Files {
		src, err := backupFilePath(b, f)
		if err != nil {
			return Result{}, b, damaged(err)
		}
		if !sessionFileRel(o.SessionID, f.Rel) {
			return Result{}, b, damaged(fmt.Errorf("%q is not a file of session %s", f.Rel, o.SessionID))
		}
		// every read of a backup's file from the config dir down, following
		// no link and waiting on no named pipe, a regular file only: one
		// swapped for a link after the check copied the bytes it named
		// into the session, a named pipe hung the restore
		root := startRoot(o.ConfigDir, b.Dir)
		if err := verifyChecksum(root, src, f); err != nil {
			var na *NotAFileError
			var se *SymlinkError
			if errors.As(err, &na) || errors.As(err, &se) {
				return Result{}, b, err
			}
			return Result{}, b, damaged(err)
		}
		if o.Check != nil {
			if err := o.Check(f, src); err != nil {
				return Result{}, b, err
			}
		}
		target := filepath.Join(o.ProjectDir, filepath.FromSlash(f.Rel))
		snap, err := TakeSnapshot(target)
		if err != nil {
			return Result{}, b, err
		}
		plan.Files = append(plan.Files, FileWrite{Path: target, Snapshot: snap, Mode: f.Mode, UID: f.UID, GID: f.GID,
			Render: CopyBeneath(root, src)})
	}
	for _, f := range b.Created {
		if !sessionFileRel(o.SessionID, f.Rel) {
			return Result{}, b, damaged(fmt.Errorf("%q is not a file of session %s", f.Rel, o.SessionID))
		}
		target := filepath.Join(o.ProjectDir, filepath.FromSlash(f.Rel))
		snap, err := TakeSnapshot(target)
		if err != nil {
			return Result{}, b, err
		}
		if snap != nil {
			plan.Files = append(plan.Files, FileWrite{Path: target, Snapshot: snap, Remove: true})
		}
	}
	res, err := Apply(plan)
	return res, b, err
}

// sessionFileRel reports whether rel (slash-separated, below the project
// folder) names one of session id's own files.
func sessionFileRel(id, rel string) bool {
	if !filepath.IsLocal(filepath.FromSlash(rel)) || strings.Contains(rel, "\\") {
		return false
	}
	parts := strings.Split(rel, "/")
	switch len(parts) {
	case 1:
		return rel == id+".jsonl" || strings.HasPrefix(rel, "agent-") && strings.HasSuffix(rel, ".jsonl")
	case 3:
		// a large tool output (redact-secrets rewrites them)
		if parts[0] == id && parts[1] == "tool-results" && parts[2] != "" && parts[2] != "." && parts[2] != ".." {
			return true
		}
		return parts[0] == id && parts[1] == "subagents" && strings.HasPrefix(parts[2], "agent-") &&
			(strings.HasSuffix(parts[2], ".jsonl") || strings.HasSuffix(parts[2], ".meta.json"))
	}
	return false
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
