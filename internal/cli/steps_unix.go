//go:build unix

package cli

import (
	"syscall"
	"time"
)

// cpuTimes is the user and system CPU the process has used.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
