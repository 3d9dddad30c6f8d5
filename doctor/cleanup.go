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
	// Refused are the settings files whose cleanupPeriodDays neither
	// client takes (not a whole number >= 0; 2.1.332 also refuses 0):
	// 2.0.50 ignores such a file whole, 2.1.332 skips its cleanup.
	Refused []string `json:"refused"`
}

// MaxCleanupDays is the most days Cleanup.Days says: a larger period
// puts the clients' cutoff (now minus the period, a JavaScript Date) past
// its range, and they delete nothing, as with this many days.
const MaxCleanupDays = 100_000_000

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
// it too, for the starts of the client in that project only: not read
// here. managedDir "" skips the managed settings (tests).
//
// The value is taken as 2.0.50 takes it, the client of the two that
// deletes more: a JSON number that is whole and >= 0 (its schema:
// number().nonnegative().int()); 0 makes its cleanup's cutoff now, so a
// start deletes every transcript (and writes none). A file with any other
// value (negative, not whole, a string, null) is ignored whole by 2.0.50
// (Refused), and 2.1.332 (int().positive(), which also refuses 0) skips
// its cleanup then. A file that is not JSON sets nothing.
func ReadCleanup(configDir, managedDir string) Cleanup {
	var files []string
	if managedDir != "" {
		files = append(files, filepath.Join(managedDir, "managed-settings.json"))
	}
	files = append(files, filepath.Join(configDir, "settings.json"))
	var refused []string
	for _, p := range files {
		b, err := chain.ReadSideFile(p)
		if err != nil {
			continue
		}
		var s map[string]json.RawMessage
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		raw, ok := s["cleanupPeriodDays"]
		if !ok {
			continue
		}
		var d float64
		if json.Unmarshal(raw, &d) != nil || string(raw) == "null" || d < 0 || d != math.Trunc(d) {
			refused = append(refused, p)
			continue
		}
		return Cleanup{Days: int(min(d, MaxCleanupDays)), Source: p, Refused: refused}
	}
	return Cleanup{Days: DefaultCleanupDays, Refused: refused}
}

// due reports a session whose file the client's cleanup deletes (its
// modification time older than the period: both clients compare the
// file's mtime with now minus cleanupPeriodDays days; with 0 days, 2.0.50
// deletes every file) or will within DueSoonDays. Days are counted as
// floats: a period of 106,752 days or more overflows a time.Duration.
func due(o Options, id, path string, mtime time.Time) (Finding, bool) {
	if o.Cleanup == nil {
		return Finding{}, false
	}
	const day = 24 * time.Hour
	left := math.Floor(float64(o.Cleanup.Days) - o.Now.Sub(mtime).Hours()/24)
	if left > float64(o.DueSoonDays) {
		return Finding{}, false
	}
	daysLeft := int(left)
	ageDays := int(o.Now.Sub(mtime) / day)
	m := mtime.UTC().Truncate(time.Second)
	return Finding{Kind: DueForDeletion, SessionID: id, Path: path, NeedsAttention: true,
		Modified: &m, AgeDays: &ageDays, DaysLeft: &daysLeft, CleanupPeriodDays: o.Cleanup.Days,
		Fix: Fix{Kind: FixKeep}}, true
}
