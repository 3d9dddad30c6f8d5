package chain

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

func isValidJSON(b []byte) bool { return validJSON(b) }
