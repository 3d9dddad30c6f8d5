package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlainCloneFillsSessionsIndexFirstPrompt: a plain clone reads no index
// of the session, but where sessions-index.json names the original without
// its first prompt, the new session's entry gets it all the same (the
// session is then read for it), as the full path gives it.
func TestPlainCloneFillsSessionsIndexFirstPrompt(t *testing.T) {
	firstPrompt := func(clone func(env *Env, id string) error) any {
		sb := newSandbox(t, "multi-turn.jsonl")
		idx := filepath.Join(sb.dir, "sessions-index.json")
		require.NoError(t, os.WriteFile(idx, []byte(`{"version":1,"entries":[{"sessionId":"`+sb.id+`","messageCount":7}]}`), 0o600))
		require.NoError(t, clone(sb.env, sb.id))
		b, err := os.ReadFile(idx)
		require.NoError(t, err)
		var doc struct {
			Entries []map[string]any `json:"entries"`
		}
		require.NoError(t, json.Unmarshal(b, &doc))
		require.Len(t, doc.Entries, 2)
		require.Equal(t, sb.result(t).SessionID, doc.Entries[1]["sessionId"])
		return doc.Entries[1]["firstPrompt"]
	}
	fast := firstPrompt(func(env *Env, id string) error { return env.RunClone(id, BranchOptions{}, Dest{}) })
	full := firstPrompt(func(env *Env, id string) error { return env.RunCloneFull(id, BranchOptions{}, Dest{}) })
	require.NotEmpty(t, fast)
	require.Equal(t, full, fast)
}
