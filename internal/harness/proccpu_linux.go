package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// processCPU is the CPU time (user and system, all threads) process pid
// has spent so far, from /proc/<pid>/stat (in clock ticks of 1/100 s,
// USER_HZ on every Linux ABI); false when it cannot be read.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	k := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if k < 0 || k+2 > len(s) {
		return 0, false
	}
	f := strings.Fields(s[k+2:]) // from field 3 (state) on: utime is field 14
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * 10 * time.Millisecond, true
}
