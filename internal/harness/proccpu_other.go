//go:build !linux

package harness

import "time"

// processCPU cannot read another process's CPU time here: ExecHangs waits
// HangWall instead.
func processCPU(pid int) (time.Duration, bool) { return 0, false }
