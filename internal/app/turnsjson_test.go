package app

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/benchgen"
	"github.com/stretchr/testify/require"
)

// TestTurnsJSONStreamedIsOneEncoding: `turns --json` writes the list one
// turn at a time (a session of long prompts is not held whole); what it
// writes is byte for byte what one encoding of the whole list by
// printJSON gives, with and without --all, on every session of testdata
// and the corpus and on a generated session of several batches of lines
// (the order across batches).
func TestTurnsJSONStreamedIsOneEncoding(t *testing.T) {
	cfg, _ := lsConfig(t)
	paths, err := filepath.Glob(filepath.Join(cfg, "projects", "*", "*.jsonl"))
	require.NoError(t, err)
	big := t.TempDir()
	g, err := gen.GenerateSecrets(gen.Options{Size: 6 << 20, Seed: 5, Dir: big})
	require.NoError(t, err)
	paths = append(paths, g.Path)
	turns := 0
	for _, p := range paths {
		for _, all := range []bool{false, true} {
			var out, errb bytes.Buffer
			env := &Env{ConfigDir: cfg, JSON: true, Out: &out, Err: &errb}
			if err := env.RunTurns(TurnsOptions{Session: p, All: all}); err != nil {
				continue // not a session (a 1.0 subagent file): refused as before
			}
			var list []TurnJSON
			require.NoError(t, json.Unmarshal(out.Bytes(), &list), "%s: %s", p, out.String())
			var want bytes.Buffer
			require.NoError(t, (&Env{Out: &want}).printJSON(list))
			require.Equal(t, want.String(), out.String(), "%s (--all %v)", p, all)
			turns += len(list)
		}
	}
	require.Greater(t, turns, 1000, "the sessions have turns")
}
