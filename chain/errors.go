package chain

import (
	"fmt"
	"strings"
)

// Error is a failure to read or find a session, said as a fact: a
// one-line message and, when there is one, a hint that names no flag or
// command (the command layer words those and chooses the exit code).
type Error struct {
	Msg  string
	Hint string
}

func (e *Error) Error() string { return e.Msg }

// HintText returns the hint line to print after the message, if any.
func (e *Error) HintText() string { return e.Hint }

// ArgError says that a SESSION argument cannot name a session (blank, a
// prefix too short, characters no id holds): Msg says why, Hint what
// would. The argument is wrong, not the file system.
type ArgError struct {
	Arg  string
	Msg  string
	Hint string
}

func (e *ArgError) Error() string { return e.Msg }

// HintText returns what kind of argument would name a session.
func (e *ArgError) HintText() string { return e.Hint }

// AmbiguousError says that the id prefix Arg matches several sessions:
// Candidates are their paths.
type AmbiguousError struct {
	Arg        string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session id %q is ambiguous: %d sessions match", e.Arg, len(e.Candidates))
}

// HintText lists the sessions the prefix matches.
func (e *AmbiguousError) HintText() string {
	return "candidates: " + strings.Join(e.Candidates, ", ")
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
