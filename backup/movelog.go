package backup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// A move names each backup it makes before it makes any temp (a kill
// then rolls the backups back with the rest). It named each by saving
// the whole journal again, which lists every file of the move: a move
// of a project's 276 sessions encoded 276 journals of up to ~300 KB
// (0.54 s of its 2.9 s of CPU), and the cost grew with the square of the
// sessions. Each backup is now one line appended to the journal's
// backup log (<journal>.backups) and fsynced; reading the journal reads
// the log too, and the commit mark's save names them all in the journal,
// after which the log goes.

// backupLogSuffix ends the name of a journal's backup log (not a
// "*.json": RecoverMoves does not take it for a journal).
const backupLogSuffix = ".backups"

// backupLog is the open log of a move's backups.
type backupLog struct {
	j  *journal
	f  *os.File
	ok bool // its entry in the journal folder made durable
}

func (j *journal) backupLogPath() string { return j.path + backupLogSuffix }

// openBackupLog opens (makes) the journal's backup log, beside the
// journal, following no link from the config dir down.
func (j *journal) openBackupLog() (*backupLog, error) {
	f, err := openBeneath(j.root, j.backupLogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, DefaultMode)
	if err != nil {
		return nil, fmt.Errorf("create the move journal's backup log: %w", err)
	}
	return &backupLog{j: j, f: f}, nil
}

// add names the backup dir in the log, durably: one line, the path as a
// JSON string (a path may hold a newline), then an fsync.
func (l *backupLog) add(dir string) error {
	line, err := json.Marshal(dir)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(line, '\n')); err != nil {
		return wrapIOError("write the move journal's backup log", err)
	}
	if err := l.f.Sync(); err != nil {
		return wrapIOError("fsync the move journal's backup log", err)
	}
	if !l.ok { // the log's own name, once
		if err := syncDir(filepath.Dir(l.j.path)); err != nil {
			return err
		}
		l.ok = true
	}
	hook("move-backup-logged")
	return nil
}

func (l *backupLog) close() { l.f.Close() }

// readBackupLog adds the backups the journal's log names to j.Backups. A
// last line cut short (a kill while it was written) names no backup.
func (j *journal) readBackupLog() error {
	b, err := chain.ReadSideFile(j.backupLogPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, d := range j.Backups {
		known[d] = true
	}
	for len(b) > 0 {
		line, rest, whole := bytes.Cut(b, []byte("\n"))
		b = rest
		var d string
		if !whole || json.Unmarshal(line, &d) != nil || d == "" {
			continue
		}
		if !known[d] {
			known[d] = true
			j.Backups = append(j.Backups, d)
		}
	}
	return nil
}

// removeBackupLog removes the journal's backup log (once the journal
// names every backup, or is gone).
func (j *journal) removeBackupLog() {
	removeBeneath(j.root, j.backupLogPath())
}
