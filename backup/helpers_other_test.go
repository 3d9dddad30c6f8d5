//go:build !unix

package backup

import (
	"fmt"
	"os"
)

// The crash tests kill a child process with SIGKILL at a named step: unix
// only (fault_test.go, move_fault_test.go).
func applyHelper() { fmt.Fprintln(os.Stderr, "crash tests run on unix only"); os.Exit(2) }
func moveHelper()  { fmt.Fprintln(os.Stderr, "crash tests run on unix only"); os.Exit(2) }
