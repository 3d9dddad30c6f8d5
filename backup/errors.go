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
// diff used to preview edits.
package backup

import "errors"

// Exit codes carried by *Error.
// Every refusal exits 1, as the CLI promises ("exit 1 for a refused or
// invalid result"); a bad value the user gave exits 2, as every usage
// error does. The constants name the reasons for errors.Is-free checks in
// tests.
const (
	CodeFailure   = 1 // generic failure
	CodeLive      = 1 // session is in use by Claude Code (guard refused)
	CodeChanged   = 1 // session changed on disk while ccsurgeon was working
	CodeExists    = 1 // refusing to overwrite an existing file
	CodeNoBackup  = 1 // no backup matches the request
	CodeNoSpace   = 1 // out of disk space
	CodeAmbiguous = 2 // a BACKUP prefix that matches several (as a session id prefix)
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
)

// Error is a user-facing error: the CLI prints "ccsurgeon: <Msg>" and, when
// Hint is set, "ccsurgeon: hint: <Hint>", then exits with ExitCode().
type Error struct {
	Msg  string // one-line description of what went wrong
	Hint string // what the user can do about it (may be empty)
	Code int    // process exit code (0 means CodeFailure)
	Err  error  // wrapped cause or sentinel (may be nil)
}

// Error returns the message (without the hint).
func (e *Error) Error() string { return e.Msg }

// HintText returns the hint line the CLI prints after the message, if any.
func (e *Error) HintText() string { return e.Hint }

// Unwrap returns the wrapped cause so errors.Is/As see through *Error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the process exit code to use for this error (never 0).
func (e *Error) ExitCode() int {
	if e.Code == 0 {
		return CodeFailure
	}
	return e.Code
}
