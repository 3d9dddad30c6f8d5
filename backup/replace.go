package backup

import (
	"fmt"
	"time"
)

// replaceBudget is how long a rename over a file another program holds
// open is retried (Windows only refuses one) before giving up.
const replaceBudget = 3 * time.Second

// replaceVerdict is what to do with an error of a rename over a file.
type replaceVerdict int

const (
	replaceFail     replaceVerdict = iota // not a refusal of the target: returned as it is
	replaceRetry                          // another program holds the target: it passes once closed
	replaceReadOnly                       // the target has the read-only attribute: it never passes
	replaceDenied                         // the target's permissions forbid replacing it: it never passes
)

// Windows error codes and attributes classifyReplace reads (declared here
// so that the decision is tested on every OS).
const (
	winErrorAccessDenied     = 5
	winErrorSharingViolation = 32
	winErrorLockViolation    = 33
	winFileAttributeReadOnly = 0x1
	winInvalidAttributes     = 0xFFFFFFFF
)

// classifyReplace decides about a rename (MoveFileEx) that Windows
// refused with error code code, given the target's attributes (attrs,
// INVALID_FILE_ATTRIBUTES when unreadable) and the error code of opening
// the target for deletion (open, 0 when it opened). A sharing or lock
// violation is another program's handle: retried. Access denied is that
// too when the target is held open without delete sharing (the probe
// meets a sharing violation) — but on a read-only file, or one whose
// permissions refuse deletion (the probe is denied as well), it never
// passes: no retry, and the error says which.
func classifyReplace(code, attrs, open uint32) replaceVerdict {
	switch code {
	case winErrorSharingViolation, winErrorLockViolation:
		return replaceRetry
	case winErrorAccessDenied:
		switch {
		case attrs != winInvalidAttributes && attrs&winFileAttributeReadOnly != 0:
			return replaceReadOnly
		case open == winErrorAccessDenied:
			return replaceDenied
		}
		return replaceRetry
	}
	return replaceFail
}

// retryReplace runs rename until it succeeds, fails with an error that
// decide does not retry, or budget has been spent sleeping between tries
// (10 ms, doubling, at most 500 ms a wait). When the budget runs out the
// *Error says that another program holds target open; a read-only target
// or one its permissions protect fails at once, saying so.
func retryReplace(target string, rename func() error, decide func(error) replaceVerdict, sleep func(time.Duration), budget time.Duration) error {
	wait, slept := 10*time.Millisecond, time.Duration(0)
	for {
		err := rename()
		if err == nil {
			return nil
		}
		switch decide(err) {
		case replaceFail:
			return err
		case replaceReadOnly:
			return &Error{
				Msg:  fmt.Sprintf("cannot replace %s: the file is read-only", target),
				Hint: fmt.Sprintf(`clear its read-only attribute (attrib -r "%s", or untick Read-only in its Properties) and retry`, target),
				Err:  err,
			}
		case replaceDenied:
			return &Error{
				Msg:  fmt.Sprintf("cannot replace %s: access denied by the file's permissions", target),
				Hint: fmt.Sprintf(`run as a user who may change it, or grant yourself the right (see icacls "%s"), and retry`, target),
				Err:  err,
			}
		}
		if slept >= budget {
			return &Error{
				Msg: fmt.Sprintf("cannot replace %s: another program has it open (tried for %s)",
					target, budget.Round(time.Second)),
				Hint: "close the program that has the file open (Claude Code, an editor, a backup or antivirus scan) and retry",
				Err:  err,
			}
		}
		w := min(wait, budget-slept)
		sleep(w)
		slept += w
		wait = min(2*wait, 500*time.Millisecond)
	}
}
