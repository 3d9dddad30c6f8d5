package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// Step marks a named step of a write done outside this package (a new
// session's files), for the test hook.
func Step(name string) { hook(name) }

// BackupsRoot is <config-dir>/ccsurgeon/backups.
func BackupsRoot(configDir string) string {
	return filepath.Join(configDir, "ccsurgeon", "backups")
}

// KeyFor names the backups, lock and records of one session: the session
// id for a session in a project folder of the config dir
// (<config-dir>/projects/<slug>/<id>.jsonl), else — a loose file, named by
// path — the file's name followed by a hash of its full path, so that two
// export.jsonl files in different folders never share backups. A name
// that is not one line (a newline, a tab, another control character) is
// named the second way too, each such character made '_': the key names
// folders and files, and a listing or a log line must not break on it.
func KeyFor(configDir, sessionID, projectDir string) string {
	if InProjects(configDir, projectDir) && oneLine(sessionID) == sessionID {
		return sessionID
	}
	pd, _ := filepath.Abs(projectDir)
	h := sha256.Sum256([]byte(filepath.Join(pd, sessionID+".jsonl")))
	return oneLine(sessionID) + "-" + hex.EncodeToString(h[:6])
}

// InProjects reports whether projectDir is a project folder of the config
// dir (<config-dir>/projects/<slug>), through symlinks, and whatever the
// case of its letters where the file system folds case (macOS, Windows):
// a session named by a path typed in other capitals has the same backup
// key, and so the same one-writer lock.
func InProjects(configDir, projectDir string) bool {
	pd, err1 := filepath.Abs(projectDir)
	pr, err2 := filepath.Abs(filepath.Join(configDir, "projects"))
	return err1 == nil && err2 == nil && (chain.SameName(chain.HostOS, filepath.Dir(pd), pr) ||
		chain.SameName(chain.HostOS, filepath.Dir(realPath(pd)), realPath(pr)))
}

// UnderProjects reports whether p is <config-dir>/projects or anything
// under it, through symlinks (of p's folders and of the config dir) and
// whatever the case of its letters where the file system folds case. p
// need not exist: its nearest existing folder is resolved.
func UnderProjects(configDir, p string) bool {
	return under(filepath.Join(configDir, "projects"), p)
}

// OwnDir is <config-dir>/ccsurgeon: ccsurgeon's own files (backups,
// locks, the move journal, origins.jsonl).
func OwnDir(configDir string) string { return filepath.Join(configDir, "ccsurgeon") }

// UnderOwnDir reports whether p is OwnDir or anything under it, as
// UnderProjects for projects/.
func UnderOwnDir(configDir, p string) bool { return under(OwnDir(configDir), p) }

// UnderConfigDir reports whether p is the config dir or anything under
// it, as UnderProjects for projects/.
func UnderConfigDir(configDir, p string) bool { return under(configDir, p) }

// under reports whether p is root or anything under it, as UnderProjects
// for <config-dir>/projects.
func under(root, p string) bool {
	abs, err1 := filepath.Abs(p)
	pr, err2 := filepath.Abs(root)
	if err1 != nil || err2 != nil {
		return false
	}
	within := func(p, root string) bool {
		for {
			if chain.SameName(chain.HostOS, p, root) {
				return true
			}
			up := filepath.Dir(p)
			if up == p {
				return false
			}
			p = up
		}
	}
	return within(abs, pr) || within(realPathOf(abs), realPath(pr))
}

// realPathOf is realPath of a path that may not exist: its nearest
// existing ancestor resolved, the rest joined as it is.
func realPathOf(p string) string {
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// oneLine is name with every control character (and Unicode's line and
// paragraph separators) made '_'.
func oneLine(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return '_'
		}
		return r
	}, name)
}

// realPath is p with every symlink resolved (p itself if that fails): a
// config dir that is a link to another disk is the same config dir.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// SessionLock is the one-writer lock of a session: an exclusive flock on
// <config-dir>/ccsurgeon/backups/<key>.lock, next to the session's
// backups. The kernel drops it when the process ends, however it ends.
type SessionLock struct {
	f    *os.File
	key  string
	cfg  string
	path string
}

// Lock takes the lock of the session with backup key key, for operation
// op, without waiting: when another process holds it the *Error names
// that process (pid, operation, since when). Every in-place write,
// restore and purge runs under it; Apply takes it itself when the caller
// does not hold it.
func Lock(configDir, key, op string) (*SessionLock, error) {
	if err := validateSessionID(key); err != nil {
		return nil, err
	}
	if err := chain.CheckConfigDir(configDir); err != nil {
		return nil, err // a folder without projects/ is made no config dir
	}
	if err := refuseLinkedBackups(configDir, key); err != nil {
		return nil, err
	}
	// the record of ccsurgeon's own writes of the session, written after
	// the change: a link there is refused before anything is
	if err := CheckOwn(configDir, writtenPath(configDir, key)); err != nil {
		return nil, err
	}
	return lockFile(configDir, BackupsRoot(configDir), key+".lock", "the session", op, func(who string) *Error {
		return &Error{
			Msg:  fmt.Sprintf("session %s is being changed by %s", key, who),
			Hint: "wait for it to finish and retry",
			Err:  ErrLocked,
		}
	})
}

// LockMoves takes the lock every move holds while it runs, from before it
// finishes or rolls back the journals of interrupted moves until it is
// done, without waiting: a move's recovery takes every journal it finds
// for a killed run's, and would roll back the journal of a move still
// running in another process. When another process holds it the *Error
// names that process.
func LockMoves(configDir string) (*SessionLock, error) {
	if err := chain.CheckConfigDir(configDir); err != nil {
		return nil, err
	}
	// a link on the way to the journals (ccsurgeon/, journal/) is refused
	// before anything is made there, as the backups' is
	if err := refuseSymlinkBelow(configDir, JournalDir(configDir)); err != nil {
		var e *SymlinkError
		if errors.As(err, &e) {
			e.Hint = "make it a folder again: remove the link and move what it names in its place"
		}
		return nil, err
	}
	return lockFile(configDir, JournalDir(configDir), "moves.lock", "the moves", "move", func(who string) *Error {
		return &Error{
			Msg:  "another move is running: " + who + " is moving sessions of this config dir",
			Hint: "wait for it to finish and retry",
			Err:  ErrLocked,
		}
	})
}

// lockFile takes an exclusive lock on the file name in the folder root of
// the config dir (made as needed, following no link), without waiting: the
// lock of what ("the session"); busy makes the refusal when another
// process holds it, from words that name that process.
func lockFile(configDir, root, name, what, op string, busy func(who string) *Error) (*SessionLock, error) {
	path := filepath.Join(root, name)
	for gone := 0; ; {
		// another run's Unlock removes the folders it leaves empty
		// (backups/, ccsurgeon/): one removed between their making and
		// the lock file's is made again (a batch runs two sessions at a
		// time)
		if err := makeDirs(configDir, root, nil); err != nil {
			return nil, fmt.Errorf("create directory: %w", err)
		}
		// from the config dir down, following no link (as its folder)
		f, err := openBeneath(configDir, path, os.O_RDWR|os.O_CREATE, DefaultMode)
		if errors.Is(err, fs.ErrNotExist) && gone < 100 {
			gone++
			continue
		}
		if err != nil {
			return nil, lockFileError(what, path, err)
		}
		if held, err := lockExclusive(f); held || err != nil {
			holder := make([]byte, 256)
			n, _ := f.ReadAt(holder, 0)
			f.Close()
			if err != nil {
				return nil, lockFileError(what, path, err)
			}
			who := "another ccsurgeon"
			if h := strings.Fields(string(holder[:n])); len(h) >= 3 {
				who = fmt.Sprintf("another ccsurgeon (pid %s, %s, since %s)", h[0], h[1], h[2])
			}
			return nil, busy(who)
		}
		// the holder before us removes the file as it unlocks: the lock
		// is ours only if the name still leads to the file we locked
		fi, ferr := f.Stat()
		pi, perr := os.Lstat(path)
		if ferr == nil && perr == nil && os.SameFile(fi, pi) {
			l := &SessionLock{f: f, key: strings.TrimSuffix(name, ".lock"), cfg: configDir, path: path}
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s %s\n", os.Getpid(), sanitizeOp(op), time.Now().UTC().Format(time.RFC3339))), 0)
			return l, nil
		}
		f.Close()
	}
}

// lockFileError says why the lock file at path could not be opened or
// locked, naming it once (an *os.PathError repeats the path): a symlink
// (O_NOFOLLOW) is refused as every symlink on a write is.
func lockFileError(what, path string, err error) error {
	if se := (*SymlinkError)(nil); errors.As(err, &se) {
		return err // a folder on the way
	}
	if e := refuseSymlink(path); e != nil {
		var se *SymlinkError
		if errors.As(e, &se) {
			se.Hint = "remove the link: ccsurgeon makes its lock file itself"
		}
		return e
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Msg: fmt.Sprintf("cannot lock %s: lock file %s: %v", what, path, err), Err: err}
}

// Unlock releases the lock and removes its file.
func (l *SessionLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	releaseLockFile(l.f, l.cfg, l.path)
	l.f = nil
	// leave no trace where nothing else was kept (fails when not empty),
	// from the config dir down following no link: a ccsurgeon/ swapped
	// for one while the lock was held leads no removal out of it
	_ = removeDirBeneath(l.cfg, filepath.Dir(l.path))
	_ = removeDirBeneath(l.cfg, filepath.Dir(filepath.Dir(l.path)))
}

// releaseLockFile drops the lock on f and removes its file at path (below
// root, reached following no link: removeBeneath): first
// the name, then the lock (closing f), on every platform. Whoever locks
// the old file after that finds the name gone or leading to another file
// and tries again (Lock), so that no two processes ever hold the lock.
// The other order lets a process lock the old file between the close and
// the removal, pass that check, and lose its file to the removal, after
// which a third one creates and locks a new file: two writers. Windows
// allows the removal while the file is open because every handle
// ccsurgeon opens shares delete access (openNoFollow).
func releaseLockFile(f *os.File, root, path string) {
	_ = removeBeneath(root, path)
	hook("lock-file-unlinked")
	_ = f.Close()
}

// refuseLinkedBackups refuses a symlink on the way to the backups of key
// (<config-dir>/ccsurgeon, its backups/ and backups/<key>): backups would
// be written, and purged, wherever it points.
func refuseLinkedBackups(configDir, key string) error {
	err := refuseSymlinkBelow(configDir, sessionBackupRoot(configDir, key))
	var e *SymlinkError
	if errors.As(err, &e) {
		e.Hint = "make it a folder again: remove the link and move what it names in its place"
	}
	return err
}

// Key is the backup key the lock is held for.
func (l *SessionLock) Key() string { return l.key }

// tempName is the prefix of a temp file for target written by this
// process: the pid in the name tells a leftover of a killed run (its pid
// is gone) from the temp of a run still going.
func tempPrefix(base string) string {
	return "." + base + tmpMarker + strconv.Itoa(os.Getpid()) + "-"
}

// tempOwnerGone reports whether the temp file name was made by a process
// that is no longer running (or by a version that did not record it and
// is older than staleTempAge).
func tempOwnerGone(name string, mtime time.Time) bool {
	i := strings.Index(name, tmpMarker)
	if i < 0 {
		return false
	}
	rest := name[i+len(tmpMarker):]
	pidStr, _, ok := strings.Cut(rest, "-")
	if pid, err := strconv.Atoi(pidStr); ok && err == nil && pid > 0 {
		return pid != os.Getpid() && !pidAlive(pid)
	}
	return time.Since(mtime) > staleTempAge
}

// AppendOwn appends line to one of ccsurgeon's own files under the config
// dir (origins.jsonl, say), creating it (0600, its folders 0700) if
// missing. It never follows a symlink: neither the file nor a folder
// between the config dir and it may be one (a link would make every
// clone append to whatever it names).
func AppendOwn(configDir, path string, line []byte) error {
	if err := CheckOwn(configDir, path); err != nil {
		return err
	}
	if err := makeDirs(configDir, filepath.Dir(path), nil); err != nil {
		return err
	}
	fh, err := openBeneath(configDir, path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, DefaultMode)
	if err != nil {
		if e := CheckOwn(configDir, path); e != nil {
			return e // made a link since the check
		}
		return err
	}
	if _, err := fh.Write(line); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// CheckOwn refuses a symlink at one of ccsurgeon's own files under the
// config dir, or on the way to it.
func CheckOwn(configDir, path string) error {
	err := refuseSymlinkBelow(configDir, path)
	var e *SymlinkError
	if errors.As(err, &e) {
		e.Hint = "remove the link: ccsurgeon keeps its own files in " + filepath.Join(configDir, "ccsurgeon") + " and never writes through a link"
	}
	return err
}
