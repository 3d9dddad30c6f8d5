// Package backup is the code in ccsurgeon that creates, replaces and
// removes the files of sessions (in place, --new and -o) and its own
// backups, locks and journals. Elsewhere only the folder an -o DIR/ names
// is made (and removed again when the write fails; internal/app), and
// temporary files outside the config dir and developers' profiles are
// written. It provides
// crash-safe atomic replacement (temp file + fsync + rename + directory fsync),
// a guarded in-place write of a Claude Code session that first copies every
// touched file into <config-dir>/ccsurgeon/backups/<session-id>/, listing and
// restoring those backups, safe creation of output files, and a unified line
// diff used to preview edits. It also holds the live-session guard, the
// per-session lock, the recovery of an interrupted write, the move
// transaction over several files, and every OS mechanism these need
// (no-follow open, lock, change time, owner, writer detection, replace)
// behind build tags (platform.go lists them).
//
// Its errors are facts: an *Error (a message and a hint in the file
// system's terms) wrapping a sentinel (ErrLive, ErrChanged, ErrExists,
// ErrNoBackup, ErrAmbiguous, ErrNoSpace, ErrSymlink, ErrLocked), or a
// typed error carrying what the command layer needs to word a hint that
// names a flag or a command (LiveError with the pid, SymlinkError,
// ExistsError, NotRegularError, NotAFileError, OutsideError, NoBackupError,
// ElsewhereError, DamagedError, PartialError, NameError). No exit code.
package backup

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Sentinel errors that *Error values wrap, for use with errors.Is.
var (
	ErrLive     = errors.New("session in use")
	ErrChanged  = errors.New("session changed during edit")
	ErrExists   = errors.New("file exists")
	ErrNoBackup = errors.New("no matching backup")
	ErrNoSpace  = errors.New("no space left on device")
	ErrSymlink  = errors.New("symlink")
	ErrLocked   = errors.New("session locked by another ccsurgeon")
	// ErrAmbiguous: a backup prefix that matches several; it is also
	// ErrNoBackup (no one backup matches)
	ErrAmbiguous = fmt.Errorf("several backups match: %w", ErrNoBackup)
)

// Error is a failure or a refusal, said as a fact: a one-line message and
// a hint in the file system's terms (never a flag or a command: the
// command layer words those, and chooses the exit code, from the typed
// errors below and the sentinels Err wraps).
type Error struct {
	Msg  string // one-line description of what went wrong
	Hint string // what the user can do about it (may be empty)
	Err  error  // wrapped cause or sentinel (may be nil)
}

// Error returns the message (without the hint).
func (e *Error) Error() string { return e.Msg }

// HintText returns the hint line the CLI prints after the message, if any.
func (e *Error) HintText() string { return e.Hint }

// Unwrap returns the wrapped cause so errors.Is/As see through *Error.
func (e *Error) Unwrap() error { return e.Err }

// LiveError is the live-session guard's refusal: session SessionID is
// open in the Claude Code process PID (working in Cwd, when known), or,
// with PID 0, its file Path was modified Age ago, so the client may still
// be writing it. It is ErrLive.
type LiveError struct {
	SessionID string
	PID       int
	Cwd       string
	Path      string
	Age       time.Duration
}

func (e *LiveError) Error() string {
	if e.PID > 0 {
		where := ""
		if e.Cwd != "" {
			where = " in " + e.Cwd
		}
		return fmt.Sprintf("session %s is open in Claude Code (pid %d%s)", e.SessionID, e.PID, where)
	}
	return fmt.Sprintf("session file %s was modified %s ago; Claude Code may still be writing it",
		e.Path, e.Age.Round(100*time.Millisecond))
}

func (e *LiveError) Unwrap() error { return ErrLive }

// SymlinkError says that Path is a symlink (to Target, as the link reads):
// nothing is written, replaced or deleted through one. Output: Path is the
// output file a write was asked for (WriteTo). Read: Path is a folder on
// the way to a file of the session being read (a subagent transcript, a
// tool result, a file a move or a backup copies), which is read only
// through the session's own folders. Hint, when set, is what to do about
// this link in the file system's terms. It is ErrSymlink.
type SymlinkError struct {
	Path, Target string
	Output       bool
	Read         bool
	Hint         string
}

func (e *SymlinkError) Error() string {
	if e.Read {
		return fmt.Sprintf("%s is a symlink (to %s): ccsurgeon reads a session's files only through its own folders, never through a link", e.Path, e.Target)
	}
	return fmt.Sprintf("%s is a symlink (to %s): ccsurgeon never writes or deletes through a symlink", e.Path, e.Target)
}

// HintText returns the hint, if the link's place gives one.
func (e *SymlinkError) HintText() string { return e.Hint }

func (e *SymlinkError) Unwrap() error { return ErrSymlink }

// TargetPath is the file the link names (Target, taken from the link's
// folder when relative).
func (e *SymlinkError) TargetPath() string {
	if filepath.IsAbs(e.Target) {
		return e.Target
	}
	return filepath.Join(filepath.Dir(e.Path), e.Target)
}

// ExistsError is WriteTo's refusal to replace the file at Path, which
// exists: the caller did not ask for it to be replaced. It is ErrExists.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return fmt.Sprintf("%s already exists", e.Path) }

func (e *ExistsError) Unwrap() error { return ErrExists }

// NotRegularError says that Path, where a file was to be written, is a
// device, a FIFO or a socket: only regular files are written.
type NotRegularError struct{ Path string }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (a device, FIFO or socket): ccsurgeon writes only regular files", e.Path)
}

// NotAFileError says that Path, a file ccsurgeon was to read and copy (a
// session's file it moves, backs up or copies into a new session), is
// Kind (NodeKind: "a symbolic link", "a named pipe", …), not a regular
// file: it is never read through (a link would copy the bytes of a file
// elsewhere, perhaps outside the config dir; a named pipe would wait
// forever). Nothing was written.
type NotAFileError struct{ Path, Kind string }

func (e *NotAFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: ccsurgeon copies only regular files", e.Path, e.Kind)
}

// OwnNameError says that Path, a file ccsurgeon was to copy into a new
// session, bears a name ccsurgeon gives its own bookkeeping (IsOwnName):
// it is not the session's content and was not copied.
type OwnNameError struct{ Path string }

func (e *OwnNameError) Error() string {
	return fmt.Sprintf("%s bears a name ccsurgeon gives its own bookkeeping files, not a file of the session", e.Path)
}

// OutsideError says that Real, where the in-place write of a session
// found by listing (not named by the user) would land, is outside the
// config dir ConfigDir.
type OutsideError struct{ Real, ConfigDir string }

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s is outside the config dir %s: ccsurgeon writes there only to a file named on the command line", e.Real, e.ConfigDir)
}

// NoBackupError says that File has no backups. Other, when set, is
// another copy of session SessionID whose backups exist (OtherThere: that
// file is still there; else they are kept in Kept). It is ErrNoBackup.
type NoBackupError struct {
	File, SessionID string
	Other           string
	OtherThere      bool
	Kept            string
}

func (e *NoBackupError) Error() string { return fmt.Sprintf("no backups of %s", e.File) }

func (e *NoBackupError) Unwrap() error { return ErrNoBackup }

// ElsewhereError says that backup Name, asked for File, was taken of
// another file, Of: a backup goes back only to the file it was taken of.
// It is ErrNoBackup.
type ElsewhereError struct{ Name, Of, File string }

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("backup %s is of %s, not of %s", e.Name, e.Of, e.File)
}

func (e *ElsewhereError) Unwrap() error { return ErrNoBackup }

// MovedSinceError says that backup Name was taken in folder From, before
// a move brought session SessionID to To: it is restored once the moves
// are undone, the newest (Undo, a move's backup) first.
type MovedSinceError struct {
	Name, From, To, SessionID string
	Undo                      Backup
}

func (e *MovedSinceError) Error() string {
	if sameFolder(e.From, e.To) { // moved out of it, and back by a later move
		return fmt.Sprintf("backup %s was taken in %s, before the session moved out of it and back", e.Name, e.From)
	}
	return fmt.Sprintf("backup %s was taken in %s, before the session moved to %s", e.Name, e.From, e.To)
}

// DamagedError says that backup Name cannot be restored: Err says why.
type DamagedError struct {
	Name string
	Err  error
}

func (e *DamagedError) Error() string { return fmt.Sprintf("backup %s is damaged: %v", e.Name, e.Err) }

func (e *DamagedError) Unwrap() error { return e.Err }

// PartialError says that an in-place write failed part-way (Err); the
// files as they were are saved in the backup BackupDir.
type PartialError struct {
	BackupDir string
	Err       error
}

func (e *PartialError) Error() string { return fmt.Sprintf("write failed part-way: %v", e.Err) }

func (e *PartialError) Unwrap() error { return e.Err }

// NameError says that a session file named Name can have no backups: its
// name makes no backup folder.
type NameError struct{ Name string }

func (e *NameError) Error() string {
	return fmt.Sprintf("cannot keep backups of a session file named %q (the name makes no backup folder)", e.Name)
}
