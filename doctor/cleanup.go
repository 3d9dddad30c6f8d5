package doctor

import (
	"encoding/json"
	"math"
	"path/filepath"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"time"
)

// DefaultCleanupDays is the client's cleanup period when no settings file
// sets cleanupPeriodDays (30 in 2.0.50's cli.js and in 2.1.332).
const DefaultCleanupDays = 30

// Cleanup is the client's cleanup period and where it comes from.
type Cleanup struct {
	// Days is cleanupPeriodDays; 0 means the client does not clean up.
	Days int `json:"days"`
	// Source is the settings file that set it, "" for the default.
	Source string `json:"source,omitempty"`
}

// ManagedSettingsDir is where the organisation's managed settings live on
// goos (2.1.332: "/Library/Application Support/ClaudeCode" on macOS,
// "C:\Program Files\ClaudeCode" on Windows, "/etc/claude-code" elsewhere).
func ManagedSettingsDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// ReadCleanup reads cleanupPeriodDays as the client does at start-up:
// from the managed settings (which win) or the user's settings.json in the
// config dir, else the default. A project's .claude/settings.json may set
// it too, for the starts of the client in that project only: not read here.
// managedDir "" skips the managed settings (tests).
func ReadCleanup(configDir, managedDir string) Cleanup {
	var files []string
	if managedDir != "" {
		files = append(files, filepath.Join(managedDir, "managed-settings.json"))
	}
	files = append(files, filepath.Join(configDir, "settings.json"))
	for _, p := range files {
		b, err := chain.ReadSideFile(p)
		if err != nil {
			continue
		}
		var s struct {
			CleanupPeriodDays *float64 `json:"cleanupPeriodDays"`
		}
		// a file the client would refuse (not JSON, a value that is not a
		// non-negative whole number) does not set it
		if json.Unmarshal(b, &s) != nil || s.CleanupPeriodDays == nil {
			continue
		}
		d := *s.CleanupPeriodDays
		if d < 0 || d != math.Trunc(d) {
			continue
		}
		return Cleanup{Days: int(d), Source: p}
	}
	return Cleanup{Days: DefaultCleanupDays}
}

// due reports a session whose file the client's cleanup deletes (its
// modification time older than the period: both clients compare the
// file's mtime with now minus cleanupPeriodDays days) or will within
// DueSoonDays.
func due(o Options, id, path string, mtime time.Time) (Finding, bool) {
	if o.Cleanup.Days <= 0 {
		return Finding{}, false
	}
	const day = 24 * time.Hour
	left := mtime.Add(time.Duration(o.Cleanup.Days) * day).Sub(o.Now)
	daysLeft := int(math.Floor(left.Hours() / 24))
	if daysLeft > o.DueSoonDays {
		return Finding{}, false
	}
	age := int(o.Now.Sub(mtime) / day)
	m := mtime.UTC().Truncate(time.Second)
	return Finding{Kind: DueForDeletion, SessionID: id, Path: path, NeedsAttention: true,
		Modified: &m, AgeDays: &age, DaysLeft: &daysLeft, CleanupPeriodDays: o.Cleanup.Days,
		Fix: Fix{Kind: FixKeep}}, true
}
