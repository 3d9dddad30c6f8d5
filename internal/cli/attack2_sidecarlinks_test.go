package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attack2Secret is the secret of a file OUTSIDE the config dir that a
// sidecar link points to: no command may read it, print it or report it.
const attack2Secret = "ghp_Q9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"

// TestNoSidecarLinkIsReadThrough: a sidecar of a session (a subagent
// transcript, a tool-results file, a file-history backup) that is a
// symbolic link is another file's bytes, perhaps outside the config dir.
// The attack round found `redact --check`, `validate` and `info` reading a
// linked subagent transcript (--check reported the secret of a file
// outside the config dir): chain.SubagentFiles listed links as what they
// point to. Every command × every sidecar kind, with a link planted: the
// target is never read (its secret never printed nor counted), nothing is
// changed, a read-only command names the link it left unread, and an
// in-place change refuses.
func TestNoSidecarLinkIsReadThrough(t *testing.T) {
	testlink.Need(t) // every member plants a link
	type kind struct {
		name  string
		plant func(t *testing.T, m *malEnv, id, agent, outside string) string // the link's path
	}
	kinds := []kind{
		{"subagent transcript", func(t *testing.T, m *malEnv, id, agent, outside string) string {
			b, err := os.ReadFile(agent)
			require.NoError(t, err)
			b = bytes.Replace(b, []byte("Run echo from-subagent"), []byte("Run echo "+attack2Secret), 1)
			require.Contains(t, string(b), attack2Secret)
			require.NoError(t, os.WriteFile(outside, b, 0o644))
			require.NoError(t, os.Remove(agent))
			require.NoError(t, os.Symlink(outside, agent))
			return agent
		}},
		{"legacy subagent transcript", func(t *testing.T, m *malEnv, id, agent, outside string) string {
			b, err := os.ReadFile(agent)
			require.NoError(t, err)
			b = bytes.Replace(b, []byte("Run echo from-subagent"), []byte("Run echo "+attack2Secret), 1)
			require.NoError(t, os.WriteFile(outside, b, 0o644))
			link := filepath.Join(m.proj, "agent-0badc0de.jsonl")
			require.NoError(t, os.Symlink(outside, link))
			return link
		}},
		{"tool-results file", func(t *testing.T, m *malEnv, id, agent, outside string) string {
			require.NoError(t, os.WriteFile(outside, []byte("export GITHUB_TOKEN="+attack2Secret+"\n"), 0o644))
			dir := filepath.Join(m.proj, id, "tool-results")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			link := filepath.Join(dir, "linked0001.txt")
			require.NoError(t, os.Symlink(outside, link))
			return link
		}},
		{"file-history backup", func(t *testing.T, m *malEnv, id, agent, outside string) string {
			require.NoError(t, os.WriteFile(outside, []byte("GITHUB_TOKEN="+attack2Secret+"\n"), 0o644))
			dir := filepath.Join(m.cfg, "file-history", id)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			link := filepath.Join(dir, "0123456789abcdef@v1")
			require.NoError(t, os.Symlink(outside, link))
			return link
		}},
	}
	type command struct {
		args     []string
		readOnly bool
		reads    map[string]bool // the sidecar kinds the command reads (and so must name when linked)
	}
	sub := map[string]bool{"subagent transcript": true, "legacy subagent transcript": true}
	commands := []command{
		{[]string{"validate", "ID"}, true, sub},
		{[]string{"validate", "ID", "--json"}, true, sub},
		{[]string{"info", "ID"}, true, sub},
		{[]string{"info", "ID", "--json"}, true, sub},
		{[]string{"turns", "ID"}, true, nil},
		{[]string{"redact-secrets", "ID", "--check"}, true, map[string]bool{"subagent transcript": true, "legacy subagent transcript": true, "tool-results file": true}},
		{[]string{"redact-secrets", "ID", "--check", "--json"}, true, map[string]bool{"subagent transcript": true, "legacy subagent transcript": true, "tool-results file": true}},
		{[]string{"doctor"}, true, sub},
		{[]string{"doctor", "--json"}, true, sub},
		{[]string{"redact-secrets", "ID"}, false, nil},
		{[]string{"strip-thinking", "ID"}, false, nil},
		// copies: the link is neither read nor copied (its bytes nowhere)
		{[]string{"clone", "ID"}, true, sub},
		{[]string{"fork", "ID", "1"}, true, sub},
		{[]string{"strip-thinking", "ID", "--new"}, true, sub},
		{[]string{"redact-secrets", "ID", "-o", "OUT/share/"}, true, sub},
		{[]string{"strip-thinking", "ID", "-o", "OUT/copy.jsonl"}, true, sub},
		{[]string{"repair", "ID", "--dry-run"}, true, nil},
	}
	for _, k := range kinds {
		for _, c := range commands {
			name := k.name + "/" + strings.Join(c.args, " ")
			t.Run(name, func(t *testing.T) {
				m := newMalEnv(t)
				id, agent := copySubagentSession(t, m)
				outside := filepath.Join(m.root, "outside-"+strings.ReplaceAll(k.name, " ", "-"))
				link := k.plant(t, m, id, agent, outside)
				backdate(t, m.root)
				h0 := hashTree(t, m.root)
				outDir := t.TempDir()
				args := make([]string, len(c.args))
				for i, a := range c.args {
					args[i] = strings.ReplaceAll(strings.ReplaceAll(a, "ID", id), "OUT", outDir)
				}
				r := m.cli(t, args...)
				out := r.stdout + r.stderr
				assert.NotContains(t, out, attack2Secret, "the link's target was read and printed")
				assert.NotContains(t, out, "ghp_", "the link's target was read (a secret of it reported)")
				copies := c.args[0] == "clone" || c.args[0] == "fork" || strings.Contains(strings.Join(c.args, " "), "--new") || strings.Contains(strings.Join(c.args, " "), "-o")
				if !copies {
					assert.Empty(t, changes(h0, hashTree(t, m.root)), "files changed\n%s", out)
				}
				for _, root := range []string{m.root, outDir} {
					require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
						if err != nil || !d.Type().IsRegular() || p == outside {
							return nil
						}
						b, _ := os.ReadFile(p)
						assert.NotContains(t, string(b), attack2Secret, "%s holds the bytes of the link's target", p)
						return nil
					}))
				}
				fi, err := os.Lstat(link)
				require.NoError(t, err)
				assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link was replaced")
				if c.reads[k.name] {
					assert.Contains(t, out, filepath.Base(link), "a link left unread is named")
				}
				if !c.readOnly && (k.name == "subagent transcript" || k.name == "legacy subagent transcript") {
					assert.NotEqual(t, 0, r.code, "an in-place change of a session with a linked subagent transcript must refuse\n%s", out)
					assert.Contains(t, r.stderr, "symlink")
				}
				if strings.Contains(strings.Join(c.args, " "), "--check") && c.reads[k.name] {
					assert.Equal(t, 1, r.code, "a check that could not read every file is not clean\n%s", out)
				}
			})
		}
	}
}
