package ops_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/ccsurgeon/ccsurgeon/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantedSecrets are the fake secrets cmd/gentestdata puts in the
// secrets sessions: in prompts, a Bash command and its output, and a .env
// file read with Read.
var plantedSecrets = []string{
	"ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2",
	"ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
	"sk-ant-api03-PROMPTfakeKEY0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH",
	"sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-AAAAAA",
	"AKIAIOSFODNN7EXAMPLE",
	"AKIAZZZZEXAMPLE12345",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"S3cr3tPassw0rd!",
	"hunter2-Sup3rS3cret",
}

// filesOf returns every file of a session: the transcript and its sidecars.
func filesOf(t *testing.T, projectDir, id string) []string {
	t.Helper()
	out := []string{filepath.Join(projectDir, id+".jsonl")}
	_ = filepath.WalkDir(filepath.Join(projectDir, id), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestRedactSecretsLeavesNoSecret redacts the secrets session of each
// client into a new session: no planted secret survives in any of its
// files (a byte search), the result validates, and resuming it sends no
// secret and passes the API rules.
func TestRedactSecretsLeavesNoSecret(t *testing.T) {
	t.Parallel()
	for _, c := range harness.Clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t, c, filepath.Join("..", "testdata", "sessions", c.Sessions, "secrets.jsonl"))
			orig, err := os.ReadFile(fx.env.SessionPath(fx.id))
			require.NoError(t, err)
			for _, s := range plantedSecrets[:2] {
				require.Contains(t, string(orig), s, "the fixture should hold the planted secret")
			}
			r := fx.ccsurgeon(t, func(a *app.Env) error {
				return a.RunOps(fx.id, app.OpSpec{Redact: true}, app.Dest{New: true})
			})
			require.NotEmpty(t, r.Redactions)
			for _, p := range filesOf(t, fx.env.ProjectDir(), r.SessionID) {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				for _, s := range plantedSecrets {
					assert.False(t, bytes.Contains(b, []byte(s)), "%s survives in %s", s, p)
				}
			}
			// the same secret gets the same placeholder everywhere
			ph := map[string]string{}
			for _, red := range r.Redactions {
				if prev, ok := ph[red.Fingerprint+red.Rule]; ok {
					assert.Equal(t, prev, red.Placeholder)
				}
				ph[red.Fingerprint+red.Rule] = red.Placeholder
				assert.NotContains(t, red.Placeholder, "ghp_")
			}
			s, err := chain.Load(r.Path)
			require.NoError(t, err)
			defer s.Close()
			assert.True(t, validate.Session(s).Valid())

			got := fx.resume(t, r.SessionID)
			body := string(got.Request.Body)
			for _, sec := range plantedSecrets {
				assert.NotContains(t, body, sec, "the resumed request sends a secret")
			}
			assert.Contains(t, body, "[REDACTED:")
		})
	}
}

// TestRedactCheck: --check finds the secrets and writes nothing (exit 1),
// and passes on the redacted copy.
func TestRedactCheck(t *testing.T) {
	t.Parallel()
	c := harness.Latest(t)
	fx := newFixture(t, c, filepath.Join("..", "testdata", "sessions", c.Sessions, "secrets.jsonl"))
	before, err := os.ReadFile(fx.env.SessionPath(fx.id))
	require.NoError(t, err)
	var out, errb strings.Builder
	a := &app.Env{ConfigDir: fx.env.ConfigDir, Out: &out, Err: &errb}
	err = a.RunRedactCheck(fx.id, app.OpSpec{})
	require.Error(t, err)
	assert.Regexp(t, `^[0-9]+ secrets? found`, err.Error())
	after, err := os.ReadFile(fx.env.SessionPath(fx.id))
	require.NoError(t, err)
	assert.Equal(t, before, after, "--check wrote to the session")
	entries, _ := os.ReadDir(fx.env.ProjectDir())
	assert.Len(t, entries, 1)

	red := filepath.Join(t.TempDir(), "redacted.jsonl")
	require.NoError(t, a.RunOps(fx.id, app.OpSpec{Redact: true}, app.Dest{Output: red}))
	assert.NoError(t, a.RunRedactCheck(red, app.OpSpec{}))
}
