package backup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// RecentWriteWindow is how recently a session file may have been modified
// before CheckLive assumes Claude Code is still writing it.
const RecentWriteWindow = 5 * time.Second

// sessionEntry is one <config-dir>/sessions/<pid>.json file written by a
// running Claude Code.
type sessionEntry struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Status    string `json:"status"`
	Kind      string `json:"kind"`
}

// checkLive returns a *LiveError when a <configDir>/sessions/*.json entry
// names sessionID and its pid is alive, or when one of the files at paths
// was modified less than RecentWriteWindow before now; a file exactly as
// ccsurgeon itself last wrote it (for backup key key) is not taken for
// Claude Code's. Unreadable or malformed entries are ignored.
func checkLive(configDir, sessionID string, paths []string, now time.Time, key string) error {
	entries := listdir.Matching(filepath.Join(configDir, "sessions"), "*.json")
	for _, p := range entries {
		data, err := chain.ReadSideFile(p)
		if err != nil {
			continue
		}
		var e sessionEntry
		if json.Unmarshal(data, &e) != nil || e.SessionID != sessionID || e.PID <= 0 {
			continue
		}
		if pidAlive(e.PID) {
			return &LiveError{SessionID: sessionID, PID: e.PID, Cwd: e.Cwd}
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if age := now.Sub(fi.ModTime()); age < RecentWriteWindow && !ownWrite(configDir, key, p, fi) {
			return &LiveError{SessionID: sessionID, Path: p, Age: age}
		}
	}
	return nil
}
