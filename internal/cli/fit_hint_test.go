package cli

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The hint of ops.OverTargetError (FitWithin's internal error) said "report it with 'ccsurgeon
// info' output": info with no SESSION is the newest session of the
// folder's project, not the one at hand. It names the session by its
// path (runnable without --config-dir), quoted where the shell needs it,
// and ends with the command, whole, so a quote in it stays runnable.
func TestFitBugHintNamesTheSession(t *testing.T) {
	for path, cmd := range map[string]string{
		"/home/me/.claude/projects/-p/3f2a9c1e-0000-4000-8000-000000000000.jsonl": "ccsurgeon info /home/me/.claude/projects/-p/3f2a9c1e-0000-4000-8000-000000000000.jsonl",
		"/home/me/my cfg/projects/-p/s.jsonl":                                     "ccsurgeon info '/home/me/my cfg/projects/-p/s.jsonl'",
		"/home/o'neil/.claude/projects/-p/s.jsonl":                                `ccsurgeon info '/home/o'\''neil/.claude/projects/-p/s.jsonl'`,
	} {
		h := fitBugHint(path)
		assert.Regexp(t, `: `+regexpQuote(cmd)+`$`, h, path)
	}
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }
