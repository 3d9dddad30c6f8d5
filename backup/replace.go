package backup

import (
	"fmt"
	"time"
)

// replaceBudget is how long a rename over a file another program holds
// open is retried (Windows only refuses one) before giving up.
const replaceBudget = 3 * time.Second

// retryReplace runs rename until it succeeds, fails with an error busy
// does not accept, or budget has been spent sleeping between tries
// (10 ms, doubling, at most 500 ms a wait). When the budget runs out the
// *Error says that another program holds target open.
func retryReplace(target string, rename func() error, busy func(error) bool, sleep func(time.Duration), budget time.Duration) error {
	wait, slept := 10*time.Millisecond, time.Duration(0)
	for {
		err := rename()
		if err == nil || !busy(err) {
			return err
		}
		if slept >= budget {
			return &Error{
				Msg: fmt.Sprintf("cannot replace %s: another program has it open (tried for %s)",
					target, budget.Round(time.Second)),
				Hint: "close the program that has the file open (Claude Code, an editor, a backup or antivirus scan) and retry",
				Code: CodeFailure, Err: err,
			}
		}
		w := min(wait, budget-slept)
		sleep(w)
		slept += w
		wait = min(2*wait, 500*time.Millisecond)
	}
}
