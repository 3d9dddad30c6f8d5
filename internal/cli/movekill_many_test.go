//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manySidecars gives the session id of m 150 more tool results (each of
// its own size, mode and, as root, owner) and returns every file of the
// session (below its project folder) with its bytes.
func manySidecars(t *testing.T, m *malEnv, id string) map[string]string {
	t.Helper()
	side := filepath.Join(m.proj, id, "tool-results")
	require.NoError(t, os.MkdirAll(side, 0o755))
	for i := range 150 {
		p := filepath.Join(side, fmt.Sprintf("t%03d.txt", i))
		require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte(fmt.Sprintf("output %d\n", i)), 1+i*53%400), []os.FileMode{0o600, 0o644, 0o640}[i%3]))
		if isRoot() {
			require.NoError(t, os.Lchown(p, 4321+i%2, 4321))
		}
	}
	backdate(t, m.root)
	return sessionFiles(t, m.proj, id)
}

// sessionFiles maps each file of session id in the project folder proj
// (its transcript, its folder's files) to its bytes, by its path below
// proj.
func sessionFiles(t *testing.T, proj, id string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(proj, id+".jsonl")); err == nil {
		out[id+".jsonl"] = string(b)
	}
	_ = filepath.Walk(filepath.Join(proj, id), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr)
			rel, _ := filepath.Rel(proj, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// outsideCfg lists what is below root but not in its config dir cfg.
func outsideCfg(t *testing.T, root, cfg string) []string {
	var out []string
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != root {
			if p == cfg {
				return filepath.SkipDir
			}
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestMoveOfManyFilesKilledAtRandom is TestWriteSafety6MoveKilledAtRandom
// for a session of 150 sidecar files, written eight at a time beside the
// move's backup: kill -9 at a random moment of the move (spread over its
// whole run, measured first), or (every other round) at the n-th file of
// its backup or of its temps (n drawn), then the rerun and a restore. After the
// rerun the session is whole in one place (every sidecar's bytes as they
// were), after the restore whole where it was, the transcript byte for
// byte; no temp file of ccsurgeon's is left, and nothing is made outside
// the config dir.
func TestMoveOfManyFilesKilledAtRandom(t *testing.T) {
	rounds := trialRounds(12)
	newProj := func(m *malEnv) string { return filepath.Join(m.cfg, "projects", "-home-u-new") }
	// how long a move of such a session runs, in the helper process
	m, id := moveEnvCLI(t)
	manySidecars(t, m, id)
	cmd, out := startCLI(m, "move", id, "--to", "/home/u/new")
	start := time.Now()
	require.NoError(t, cmd.Run(), out.String())
	whole := time.Since(start)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("a whole move runs %v in the helper; kill moments drawn with seed %d", whole, seed)
	counts := map[string]int{}
	for i := range rounds {
		m, id := moveEnvCLI(t)
		was := manySidecars(t, m, id)
		outside := outsideCfg(t, m.root, m.cfg)
		cmd, out := startCLI(m, "move", id, "--to", "/home/u/new")
		var at any
		if i%2 == 1 {
			// every other round killed at the n-th file of the backup
			// or of the temps: in the phase that writes several at once
			at = fmt.Sprintf("%s#%d", []string{"backup-copying", "move-temp-made"}[i/2%2], 1+rng.IntN(len(was)))
			cmd.Env = append(cmd.Env, "CCSURGEON_SAFETY_HELPER=none", "CCSURGEON_SAFETY_KILL_AT="+at.(string))
		}
		require.NoError(t, cmd.Start())
		if i%2 == 0 {
			d := time.Duration(rng.Int64N(int64(whole)))
			time.Sleep(d)
			cmd.Process.Signal(syscall.SIGKILL)
			at = d
		}
		code := exitCode(cmd.Wait())
		if i%2 == 1 {
			require.NotEqual(t, 0, code, "round %d: not killed at %v\n%s", i, at, out.String())
		}
		backdate(t, m.root)
		r := m.cli(t, "move", id, "--to", "/home/u/new")
		where := "new"
		got := sessionFiles(t, newProj(m), id)
		if len(got) == 0 {
			where, got = "old", sessionFiles(t, m.proj, id)
		} else {
			assert.Empty(t, sessionFiles(t, m.proj, id), "round %d (killed at %v): the session in two places", i, at)
		}
		require.Len(t, got, len(was), "round %d (killed at %v, exit %d; rerun %d: %s): files lost\n%s", i, at, code, r.code, r.stderr, out.String())
		for rel, b := range was {
			if !strings.HasSuffix(rel, ".jsonl") || where == "old" {
				assert.Equal(t, b, got[rel], "round %d (killed at %v): %s changed", i, at, rel)
			}
		}
		backdate(t, m.root)
		rr := m.cli(t, "restore", id)
		if where == "new" {
			require.Equal(t, 0, rr.code, "round %d: %s", i, rr.stderr)
		}
		assert.Equal(t, was, sessionFiles(t, m.proj, id), "round %d (killed at %v): the restore did not put the session back as it was", i, at)
		assert.Empty(t, leftovers(t, m.cfg), "round %d (killed at %v): left behind (move exit %d, rerun %d: %s, restore %d: %s)\n%s", i, at, code, r.code, r.stderr, rr.code, rr.stderr, out.String())
		assert.Equal(t, outside, outsideCfg(t, m.root, m.cfg), "round %d: made outside the config dir", i)
		assert.Equal(t, 0, m.cli(t, "validate", id).code, "round %d", i)
		if r.code != 0 {
			t.Logf("round %d (killed at %v): the rerun says: %s", i, at, r.stderr)
		}
		counts[fmt.Sprintf("killed=%v rerun=%d", code != 0, r.code)]++
	}
	t.Logf("trial: a move of 150 sidecars killed at a random moment, %d rounds: %v", rounds, counts)
}
