package chain

import "fmt"

// Error is an error meant for the user: a one-line message, an optional
// hint, and the exit code the command should end with.
type Error struct {
	Msg  string
	Hint string
	Code int
}

func (e *Error) Error() string { return e.Msg }

// HintText returns the hint line to print after the message, if any.
func (e *Error) HintText() string { return e.Hint }

// ExitCode returns the process exit code for this error.
func (e *Error) ExitCode() int {
	if e.Code == 0 {
		return 1
	}
	return e.Code
}

// ConfigDirError says that a config dir cannot hold sessions: it does not
// exist (Missing), or it has no projects/ folder. A fact, not words for
// the user: the command layer says how to name another one.
type ConfigDirError struct {
	Dir     string
	Missing bool
}

func (e *ConfigDirError) Error() string {
	if e.Missing {
		return fmt.Sprintf("no Claude Code config dir at %s", e.Dir)
	}
	return fmt.Sprintf("%s is not a Claude Code config dir: it has no projects folder", e.Dir)
}

// NoMatchError says that no session of the config dir's projects folder
// has an id starting with Arg (and Arg names no file).
type NoMatchError struct{ Arg, ProjectsDir string }

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("no session matches %q in %s", e.Arg, e.ProjectsDir)
}

func isValidJSON(b []byte) bool { return validJSON(b) }
