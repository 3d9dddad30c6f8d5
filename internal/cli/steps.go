package cli

import (
	"bufio"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
)

// startSteps, for developers (CCSURGEON_STEPS=FILE), writes a timeline of
// the command's writes to FILE: every named step of backup's (a file's
// temp written and fsynced, a syncfs, a backup's copies, each step of a
// move), one a line, as "MS USER SYS STEP": the milliseconds since the
// start, the process's user and system CPU in milliseconds, and the step.
// It says where a command's time goes, step by step, and which steps ran
// on both cores (the figures of BENCHMARKS.md's step timelines).
func startSteps(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	start := time.Now()
	w := bufio.NewWriter(f)
	var mu sync.Mutex
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	backup.TestHook = func(step string) {
		mu.Lock()
		defer mu.Unlock()
		user, sys := cpuTimes()
		fmt.Fprintf(w, "%.1f %.1f %.1f %s\n", ms(time.Since(start)), ms(user), ms(sys), step)
	}
	return func() {
		backup.TestHook = nil
		mu.Lock()
		defer mu.Unlock()
		w.Flush()
		f.Close()
	}
}
