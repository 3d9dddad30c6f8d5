package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Trial finding 4: Claude Code 2.1.x keeps a large tool output only in
// <project>/<session-id>/tool-results/<id>.txt (the transcript holds a
// preview). redact-secrets must scan and redact those files like the
// transcript, with the same numbering: "safe to share" is about every file
// of the session.
const (
	sidecarSecretShared = "ghp_R4wL1neT0kenZ9y8X7w6V5u4T3s2R1q0P9o8" // in the transcript and the sidecar
	sidecarSecretOwn    = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2" // in the sidecar only
)

type sidecarEnv struct {
	cfg, proj, id, main, side string
}

// newSidecarEnv installs the real 2.1.x session with a tool-results
// sidecar, the shared secret in the transcript's preview of the large
// output and at the end of its sidecar file with a second secret.
func newSidecarEnv(t *testing.T) *sidecarEnv {
	t.Helper()
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	e := &sidecarEnv{cfg: cfg, proj: filepath.Dir(main), main: main, id: strings.TrimSuffix(filepath.Base(main), ".jsonl")}
	e.side = filepath.Join(e.proj, e.id, "tool-results", "bctrnos8p.txt")
	b, err := os.ReadFile(main)
	require.NoError(t, err)
	const row = `row 00003 of the large output`
	// the preview is in the tool_result and in toolUseResult
	require.Equal(t, 2, bytes.Count(b, []byte(row+`\n`)), "the transcript's preview of the large output")
	b = bytes.ReplaceAll(b, []byte(row+`\n`), []byte(row+` token `+sidecarSecretShared+`\n`))
	require.NoError(t, os.WriteFile(main, b, 0o600))
	f, err := os.OpenFile(e.side, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("export GITHUB_TOKEN=" + sidecarSecretShared + "\nexport GH_BACKUP=" + sidecarSecretOwn + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	backdate(t, cfg)
	return e
}

func (e *sidecarEnv) cli(t *testing.T, args ...string) ran {
	t.Helper()
	return runCLI(t, append([]string{"--config-dir=" + e.cfg}, args...)...)
}

// filesHolding lists the files under root that hold one of the secrets.
func filesHolding(t *testing.T, root string, secrets ...string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				out = append(out, p)
				break
			}
		}
		return nil
	}))
	return out
}

func TestRedactSecretsCoversTheToolResultsSidecar(t *testing.T) {
	t.Parallel()
	t.Run("--check fails naming the sidecar file", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		h0 := hashTree(t, e.cfg)
		r := e.cli(t, "redact-secrets", e.id, "--check")
		assert.Equal(t, 1, r.code, "--check passed a session whose tool-results hold secrets\n%s%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, filepath.Join("tool-results", "bctrnos8p.txt"))
		assert.Contains(t, r.stdout, "github-pat")
		assert.Contains(t, r.stderr, "4 secrets found")
		assert.Contains(t, r.stderr, "redact it in place", "the hint: -o FILE would leave the sidecar's secrets")
		assert.NotContains(t, r.stderr, "-o redacted.jsonl", "the hint: -o FILE would leave the sidecar's secrets")
		assert.Empty(t, changes(h0, hashTree(t, e.cfg)), "--check wrote")
	})
	t.Run("in place: no secret left in any file of the session, one placeholder per secret, backup restorable", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		origMain, _ := os.ReadFile(e.main)
		origSide, _ := os.ReadFile(e.side)
		r := e.cli(t, "redact-secrets", e.id)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Empty(t, filesHolding(t, filepath.Join(e.cfg, "projects"), sidecarSecretShared, sidecarSecretOwn))
		m, _ := os.ReadFile(e.main)
		s, _ := os.ReadFile(e.side)
		assert.Contains(t, string(m), "token [REDACTED:github-pat:1]")
		assert.Contains(t, string(s), "export GITHUB_TOKEN=[REDACTED:github-pat:1]\nexport GH_BACKUP=[REDACTED:github-pat:2]\n")
		assert.True(t, bytes.HasPrefix(s, origSide[:len(origSide)-len(sidecarSecretShared)-len(sidecarSecretOwn)-40]), "the rest of the sidecar changed")
		assert.Contains(t, r.stdout, "backup:")
		// the backup holds both files as they were (and says so)
		assert.Contains(t, r.stdout, "still hold")
		assert.Len(t, filesHolding(t, filepath.Join(e.cfg, "ccsurgeon", "backups"), sidecarSecretOwn), 1, "the sidecar's backup")

		r = e.cli(t, "redact-secrets", e.id, "--check")
		assert.Equal(t, 0, r.code, r.stdout+r.stderr)

		backdate(t, e.cfg)
		r = e.cli(t, "restore", e.id)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		m, _ = os.ReadFile(e.main)
		s, _ = os.ReadFile(e.side)
		assert.Equal(t, string(origMain), string(m), "restore: transcript")
		assert.Equal(t, string(origSide), string(s), "restore: sidecar")
	})
	t.Run("killed between the sidecar's rename and the transcript's: the next run finishes it", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		require.True(t, runKilled(t, &malEnv{cfg: e.cfg}, "between-renames", "redact-secrets", e.id))
		s, _ := os.ReadFile(e.side)
		require.NotContains(t, string(s), sidecarSecretOwn, "the sidecar goes first: it is renamed when the kill comes")
		r := e.cli(t, "backups", e.id) // a command that takes the session's lock finishes what was killed
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "interrupted")
		r = e.cli(t, "redact-secrets", e.id, "--check")
		assert.Equal(t, 0, r.code, "after recovery the session is the redacted one in every file\n%s%s", r.stdout, r.stderr)
		assert.Empty(t, filesHolding(t, filepath.Join(e.cfg, "projects"), sidecarSecretShared, sidecarSecretOwn))
	})
	t.Run("--no-backup leaves no copy in the config dir", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		r := e.cli(t, "redact-secrets", e.id, "--no-backup")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Empty(t, filesHolding(t, e.cfg, sidecarSecretShared, sidecarSecretOwn))
	})
	t.Run("-o: the note and --json say the sidecar was not written and what it holds", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		h0 := hashTree(t, e.cfg)
		out := filepath.Join(t.TempDir(), "share.jsonl")
		r := e.cli(t, "--json", "redact-secrets", e.id, "-o", out)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Empty(t, filesHolding(t, filepath.Dir(out), sidecarSecretShared, sidecarSecretOwn))
		assert.Empty(t, changes(h0, hashTree(t, e.cfg)), "-o changed the session")
		var res app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		assert.Equal(t, 2, res.SidecarSecretsNotWritten)
		assert.Contains(t, strings.Join(res.Notes, "\n"), "tool-results")
		inSide := 0
		for _, rd := range res.Redactions {
			if rd.File == e.side {
				inSide++
				assert.Equal(t, "github-pat", rd.Rule)
			}
		}
		assert.Equal(t, 2, inSide, "the sidecar's secrets in redactions")

		r = e.cli(t, "redact-secrets", e.id, "-o", "-")
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, sidecarSecretShared)
		assert.Contains(t, r.stderr, "1 tool-results file was")
		assert.Contains(t, r.stderr, "still holds 2 secrets")
		r = e.cli(t, "--json", "redact-secrets", e.id, "-o", "-")
		require.Equal(t, 0, r.code, r.stderr)
		res = app.WriteResult{}
		require.NoError(t, json.Unmarshal([]byte(r.stderr), &res), "the summary goes to stderr: %s", r.stderr)
		assert.Equal(t, 2, res.SidecarSecretsNotWritten)
	})
	t.Run("--new: the copied tool-results hold no secret", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		h0 := hashTree(t, e.cfg)
		r := e.cli(t, "--json", "redact-secrets", e.id, "--new")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		var res app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		newSide := filepath.Join(e.proj, res.SessionID, "tool-results", "bctrnos8p.txt")
		b, err := os.ReadFile(newSide)
		require.NoError(t, err)
		assert.Contains(t, string(b), "export GH_BACKUP=[REDACTED:github-pat:2]\n")
		assert.Empty(t, filesHolding(t, filepath.Join(e.proj, res.SessionID), sidecarSecretShared, sidecarSecretOwn))
		assert.Empty(t, filesHolding(t, res.Path, sidecarSecretShared, sidecarSecretOwn))
		assert.Zero(t, res.SidecarSecretsNotWritten)
		h1 := hashTree(t, e.cfg)
		for p, h := range h0 {
			assert.Equal(t, h, h1[p], "--new changed %s", p)
		}
	})
	t.Run("text that is not UTF-8: replaced where the secret stands in ASCII, else reported", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		// Latin-1 "café", then a secret right after a byte that could lead
		// a two-byte character (Shift JIS)
		data := []byte("caf\xe9 token " + sidecarSecretOwn + "\n\x82" + sidecarSecretShared + "\n")
		require.NoError(t, os.WriteFile(e.side, data, 0o600))
		backdate(t, e.cfg)
		r := e.cli(t, "--json", "redact-secrets", e.id)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		got, _ := os.ReadFile(e.side)
		assert.Equal(t, "caf\xe9 token [REDACTED:github-pat:2]\n\x82"+sidecarSecretShared+"\n", string(got))
		var res app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		assert.Equal(t, 1, res.Counts["secrets_left_in_place"])
		assert.Contains(t, strings.Join(res.Notes, "\n"), "not UTF-8")
		r = e.cli(t, "redact-secrets", e.id, "--check")
		assert.Equal(t, 1, r.code, "--check passed a secret left in place")
	})
	t.Run("a binary file in tool-results: reported, never rewritten", func(t *testing.T) {
		t.Parallel()
		e := newSidecarEnv(t)
		bin := filepath.Join(filepath.Dir(e.side), "blob.bin")
		data := append([]byte("\x00\x01\xfe"), "key="+sidecarSecretOwn+"\x00\xff"...)
		require.NoError(t, os.WriteFile(bin, data, 0o600))
		require.NoError(t, os.WriteFile(e.side, []byte("plain output\n"), 0o600))
		backdate(t, e.cfg)

		r := e.cli(t, "redact-secrets", e.id, "--check")
		assert.Equal(t, 1, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout, "blob.bin")

		r = e.cli(t, "--json", "redact-secrets", e.id)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		got, _ := os.ReadFile(bin)
		assert.Equal(t, data, got, "a binary file was rewritten")
		var res app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
		assert.Equal(t, 1, res.Counts["secrets_left_in_place"])
		assert.Contains(t, strings.Join(res.Notes, "\n"), "blob.bin")
	})
}

// TestRedactCheckIsNotCleanWhenAToolResultsFileWasNotRead: a file of the
// session's tool-results/ folder that is a symlink is not read (it is not
// the session's own file): --check named it in a note but exited 0, as
// if the session were clean. A check that could not read everything is
// not clean: exit 1, the note kept, nothing written.
func TestRedactCheckIsNotCleanWhenAToolResultsFileWasNotRead(t *testing.T) {
	testlink.Need(t)
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	id := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	side := filepath.Join(filepath.Dir(main), id, "tool-results", "bctrnos8p.txt")
	r := runCLI(t, "--config-dir="+cfg, "redact-secrets", id, "--check")
	require.Equal(t, 0, r.code, "the session is clean as installed\n%s%s", r.stdout, r.stderr)

	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	require.NoError(t, os.WriteFile(outside, []byte("export GITHUB_TOKEN="+sidecarSecretOwn+"\n"), 0o600))
	require.NoError(t, os.Remove(side))
	require.NoError(t, os.Symlink(outside, side))
	backdate(t, cfg)
	h0 := hashTree(t, cfg)
	for _, json := range []bool{false, true} {
		args := []string{"--config-dir=" + cfg, "redact-secrets", id, "--check"}
		if json {
			args = append(args, "--json")
		}
		r := runCLI(t, args...)
		checkRun(t, fmt.Sprintf("--check (json %v)", json), r, want{1, "bctrnos8p.txt is not a regular file: it was not scanned for secrets", "1 tool-results file could not be scanned"})
		assert.Regexp(t, `(?m)^ccsurgeon: hint: `, r.stderr)
		assert.NotContains(t, r.stdout+r.stderr, sidecarSecretOwn)
	}
	assert.Empty(t, changes(h0, hashTree(t, cfg)), "--check wrote")
}
