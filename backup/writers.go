package backup

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// openOld opens every original that will be replaced, so that after the
// rename ccsurgeon can still see what another process appended to it.
func openOld(items []item) error {
	for i := range items {
		it := &items[i]
		if it.Snapshot == nil || it.Remove {
			continue
		}
		f, err := os.OpenFile(it.target, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", it.target, err)
		}
		it.old = f
	}
	return nil
}

func closeOld(items []item) {
	for i := range items {
		if items[i].old != nil {
			items[i].old.Close()
			items[i].old = nil
		}
	}
}

// carryOver appends to each new file what another process appended to the
// original between the last check and the rename (a writer that opened the
// file by name just before the rename writes to the old inode). It returns
// a note for each file it carried lines over to.
func carryOver(items []item) []string {
	var notes []string
	for _, it := range items {
		if it.old == nil {
			continue
		}
		fi, err := it.old.Stat()
		if err != nil || fi.Size() <= it.Snapshot.Size {
			continue
		}
		n := fi.Size() - it.Snapshot.Size
		out, err := os.OpenFile(it.target, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%d bytes appended to %s while ccsurgeon wrote it could not be carried over: %v (they are in the backup)", n, it.target, err))
			continue
		}
		_, err = io.Copy(out, io.NewSectionReader(it.old, it.Snapshot.Size, n))
		if err == nil {
			err = out.Sync()
		}
		out.Close()
		if err != nil {
			notes = append(notes, fmt.Sprintf("%d bytes appended to %s while ccsurgeon wrote it could not be carried over: %v", n, it.target, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("%d bytes appended to %s while ccsurgeon wrote it were carried over", n, it.target))
	}
	for i := range items {
		if items[i].hold != "" {
			os.Remove(items[i].hold) // carried over: a rerun must not carry it again
			items[i].hold = ""
		}
	}
	return notes
}

// checkWriters refuses (ErrChanged) when another process holds one of the
// originals open for writing: its next write would go to the old file once
// the new one is renamed into place, and be lost. Linux only (it reads
// /proc); elsewhere it finds nothing.
func checkWriters(items []item) error {
	want := map[[2]uint64]string{}
	for _, it := range items {
		if it.Snapshot == nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(it.target, &st) == nil {
			want[[2]uint64{uint64(st.Dev), st.Ino}] = it.target
		}
	}
	if len(want) == 0 {
		return nil
	}
	pid, path, ok := findWriter(want)
	if !ok {
		return nil
	}
	comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return &Error{
		Msg: fmt.Sprintf("%s is open for writing in another process (pid %d, %s); nothing was modified",
			path, pid, strings.TrimSpace(string(comm))),
		Hint: "its next lines would be lost: stop it or let it close the file, then retry",
		Code: CodeChanged, Err: ErrChanged,
	}
}

func findWriter(want map[[2]uint64]string) (pid int, path string, ok bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, "", false
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
			return n, target, true
		}
	}
	return 0, "", false
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

// written is what ccsurgeon itself last wrote for a session, so that the
// live guard does not take ccsurgeon's own write for Claude Code's.
type written struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
}

func writtenPath(configDir, key string) string {
	return filepath.Join(BackupsRoot(configDir), key+".written")
}

// RecordWritten notes the files of a session ccsurgeon has just made
// (a clone, a fork, a --new session), so that the live guard does not take
// them for a session Claude Code is writing.
func RecordWritten(configDir, key string, paths []string) {
	if validateSessionID(key) != nil || refuseLinkedBackups(configDir, key) != nil || os.MkdirAll(BackupsRoot(configDir), dirMode) != nil {
		return
	}
	recordWritten(configDir, key, paths)
}

func recordWritten(configDir, key string, paths []string) {
	m := map[string]written{}
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil {
			m[p] = written{fi.Size(), fi.ModTime().UnixNano()}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	_ = WriteFileAtomic(writtenPath(configDir, key), DefaultMode, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// ownWrite reports whether the file at p is exactly as ccsurgeon last
// wrote it (same size and modification time).
func ownWrite(configDir, key, p string, fi os.FileInfo) bool {
	if key == "" {
		return false
	}
	b, err := os.ReadFile(writtenPath(configDir, key))
	if err != nil {
		return false
	}
	var m map[string]written
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	w, ok := m[p]
	return ok && w.Size == fi.Size() && w.ModTime == fi.ModTime().UnixNano() && time.Since(fi.ModTime()) >= -time.Second
}

// inodeOf is the device and inode of an open file.
func inodeOf(f *os.File) ([2]uint64, bool) {
	fi, err := f.Stat()
	if err != nil {
		return [2]uint64{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, true
}
