package backup

import (
	"fmt"
	"path/filepath"
	"time"
)

// What only the tests call: the package's API as the tests see it.

// CheckLive is the live-session guard on one file (path, if not ""): a
// *LiveError when a <configDir>/sessions/*.json entry names sessionID and
// its pid is alive, or when the file was modified less than
// RecentWriteWindow before now.
func CheckLive(configDir, sessionID, path string, now time.Time) error {
	var paths []string
	if path != "" {
		paths = []string{path}
	}
	return checkLive(configDir, sessionID, paths, now, KeyFor(configDir, sessionID, filepath.Dir(path)))
}

// Find returns the backup of key key selected by which, among every
// backup of the key (FindOf sees one session file's).
func Find(configDir, key, which string) (Backup, error) {
	all, err := List(configDir, key)
	if err != nil {
		return Backup{}, err
	}
	if len(all) == 0 {
		return Backup{}, &Error{Msg: fmt.Sprintf("no backups for session %s", key), Err: ErrNoBackup}
	}
	return pick(all, "session "+key, which)
}

// String renders e.g. "2 changed, 1 removed, 0 added".
func (s DiffStats) String() string {
	return fmt.Sprintf("%d changed, %d removed, %d added", s.Changed, s.Removed, s.Added)
}

// DiffSummary counts the lines removed, added and changed between a and b.
func DiffSummary(a, b []byte, opts DiffOptions) DiffStats {
	st, _ := DiffStream(BytesOpener(a), BytesOpener(b), nil, opts)
	return st
}
