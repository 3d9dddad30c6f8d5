package backup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// findWriter finds a process other than this one that holds one of paths
// open for writing, by reading /proc/*/fd and /proc/*/fdinfo.
func findWriter(paths []string) (pid int, name, path string, ok bool) {
	want := map[[2]uint64]string{}
	for _, p := range paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			want[[2]uint64{uint64(st.Dev), st.Ino}] = p
		}
	}
	if len(want) == 0 {
		return 0, "", "", false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, "", "", false
	}
	self := os.Getpid()
	for _, p := range procs {
		n, err := strconv.Atoi(p.Name())
		if err != nil || n == self {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			var st syscall.Stat_t
			if syscall.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil {
				continue
			}
			target, hit := want[[2]uint64{uint64(st.Dev), st.Ino}]
			if !hit || !fdWritable(p.Name(), fd.Name()) {
				continue
			}
			comm, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
			return n, strings.TrimSpace(string(comm)), target, true
		}
	}
	return 0, "", "", false
}

// fdWritable reads the open flags of /proc/PID/fd/FD.
func fdWritable(pid, fd string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "fdinfo", fd))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}
