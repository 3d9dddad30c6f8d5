package backup

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// openOld opens every original that will be replaced, so that after the
// rename ccsurgeon can still see what another process appended to it.
func openOld(items []item) error {
	for i := range items {
		it := &items[i]
		if it.Snapshot == nil || it.Remove {
			continue
		}
		f, err := openBeneath(it.root, it.target, os.O_RDONLY, 0)
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
		out, err := openBeneath(it.root, it.target, os.O_WRONLY|os.O_APPEND, 0)
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
			removeBeneath(items[i].root, items[i].hold) // carried over: a rerun must not carry it again
			items[i].hold = ""
		}
	}
	return notes
}

// checkWriters refuses (ErrChanged) when another process holds one of the
// originals open for writing: its next write would go to the old file once
// the new one is renamed into place, and be lost. It sees that where the
// platform shows it (Linux); elsewhere it finds
// nothing, and the live guard's modification-time window and the
// snapshot's size and time check stand alone.
func checkWriters(items []item) error {
	var paths []string
	for _, it := range items {
		if it.Snapshot != nil {
			paths = append(paths, it.target)
		}
	}
	return refuseWriters(paths)
}

// refuseWriters refuses (ErrChanged) when another process holds one of
// paths open for writing (Linux; elsewhere it finds nothing).
func refuseWriters(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	pid, name, path, ok := findWriter(paths)
	if !ok {
		return nil
	}
	return &Error{
		Msg: fmt.Sprintf("%s is open for writing in another process (pid %d, %s); nothing was modified",
			path, pid, name),
		Hint: "its next lines would be lost: stop it or let it close the file, then retry",
		Err:  ErrChanged,
	}
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
	if validateSessionID(key) != nil || refuseLinkedBackups(configDir, key) != nil || makeDirs(configDir, BackupsRoot(configDir), nil) != nil {
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
	// replaced whole (a reader never sees half of it) but not fsynced: it
	// only spares the next few seconds' change the live guard, and a
	// crash that loses it makes that guard stricter, nothing worse: two
	// fsyncs (the file's, its folder's) for a hint were not worth a wait
	_ = writeFileAtomicBeneath(configDir, writtenPath(configDir, key), DefaultMode, func(w io.Writer) error { _, err := w.Write(b); return err }, false)
}

// ownWrite reports whether the file at p is exactly as ccsurgeon last
// wrote it (same size and modification time).
func ownWrite(configDir, key, p string, fi os.FileInfo) bool {
	if key == "" {
		return false
	}
	b, err := chain.ReadSideFile(writtenPath(configDir, key))
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
