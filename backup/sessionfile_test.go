package backup

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSessionFileRel: a backup's manifest may name only the session's own
// files; a tool-results name that is "." or ".." (the folder itself, or
// the session's folder) is not a file of it.
func TestSessionFileRel(t *testing.T) {
	id := "9c3a6f4e-1111-4222-8333-944455556666"
	for rel, want := range map[string]bool{
		id + ".jsonl":                            true,
		"agent-a1b2.jsonl":                       true,
		id + "/subagents/agent-a1b2.jsonl":       true,
		id + "/subagents/agent-a1b2.meta.json":   true,
		id + "/tool-results/bctrnos8p.txt":       true,
		id + "/tool-results/..":                  false,
		id + "/tool-results/.":                   false,
		id + "/tool-results/":                    false,
		id + "/tool-results/../" + id + ".jsonl": false,
		"../" + id + ".jsonl":                    false,
		"other.jsonl":                            false,
		id + "/memory/notes.md":                  false,
		"/etc/passwd":                            false,
		id + `/tool-results\x.txt`:               false,
	} {
		assert.Equal(t, want, sessionFileRel(id, rel), rel)
	}
}
