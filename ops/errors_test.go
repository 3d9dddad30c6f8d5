package ops

import (
	"strings"
	"testing"
)

// TestUsageErrorsAreFacts: the errors an operation returns for a turn it
// cannot find or a selector it was not given carry the numbers, and their
// words name no flag, command or exit code (the command layer, speak in
// internal/cli, says those; TestCLI holds what the user reads).
func TestUsageErrorsAreFacts(t *testing.T) {
	for _, err := range []error{
		&TurnRangeError{N: 9, Last: 3},
		&TurnRangeError{Range: "2-9", Last: 3},
		&BeforeTurnError{N: 9, Turns: 3},
		ErrNoSelector,
		&OptionError{Option: "KeepTurns", Value: -1, Want: "0 or more"},
		&TargetError{Target: 100, Total: 900, Floor: 900, Overhead: 600, Last: 300},
		&TargetError{Target: 100, Total: 900, Floor: 900, Overhead: 600, Last: 200, Rest: 100, KeptRecent: true, KeepTurns: 2, KeepExchanges: 4},
		&OverTargetError{Target: 100, Total: 120, Path: "/p/s.jsonl"},
	} {
		s := err.Error()
		if strings.Contains(s, "--") || strings.Contains(s, "ccsurgeon") || strings.Contains(s, "drop-tool-calls") || strings.Contains(s, "strip-thinking") {
			t.Errorf("%T %q names the command line", err, s)
		}
		if _, ok := err.(interface{ ExitCode() int }); ok {
			t.Errorf("%T chooses an exit code", err)
		}
		if _, ok := err.(interface{ HintText() string }); ok {
			t.Errorf("%T carries a hint", err)
		}
	}
}
