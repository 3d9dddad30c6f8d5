package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zeebo/xxh3"
)

// Issue 13: one test per numbered finding. Each names the shape that broke.

// safeEnv is a config dir with the clean two-turn session of the
// malformed table, backdated past the live guard.
func safeEnv(t *testing.T) *malEnv {
	t.Helper()
	m := newMalEnv(t)
	m.write(t, join(malLines(), "\n"))
	backdate(t, m.root)
	return m
}

// backdate moves every file under root an hour back (the live guard
// refuses files written in the last 5 s).
func backdate(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			_ = os.Chtimes(p, old, old)
		}
		return nil
	})
}

func (m *malEnv) cli(t *testing.T, args ...string) ran {
	t.Helper()
	return runCLI(t, append([]string{"--config-dir=" + m.cfg}, args...)...)
}

// copySubagentSession puts testdata's subagent session (with its subagent
// transcript) into the project folder and returns its id.
func copySubagentSession(t *testing.T, m *malEnv) (id, agent string) {
	t.Helper()
	src := filepath.Join("testdata", "sessions", "2.1.328")
	b, err := os.ReadFile(filepath.Join(src, "subagent.jsonl"))
	require.NoError(t, err)
	id = "60c29b7a-b186-4044-907e-793b3e107fae"
	require.NoError(t, os.WriteFile(filepath.Join(m.proj, id+".jsonl"), b, 0o644))
	sub := filepath.Join(m.proj, id, "subagents")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	ents, err := os.ReadDir(filepath.Join(src, "subagent", "subagents"))
	require.NoError(t, err)
	for _, e := range ents {
		d, err := os.ReadFile(filepath.Join(src, "subagent", "subagents", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(sub, e.Name()), d, 0o644))
		if strings.HasSuffix(e.Name(), ".jsonl") {
			agent = filepath.Join(sub, e.Name())
		}
	}
	backdate(t, m.root)
	return id, agent
}

// Finding 1: any file is taken for a session and written in place.
func TestSafetyFileWithoutSessionEntriesIsRefused(t *testing.T) {
	m := safeEnv(t)
	etc := filepath.Join(m.root, "etc")
	require.NoError(t, os.MkdirAll(etc, 0o755))
	files := map[string]string{
		"passwd":        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
		"notes.txt":     "two words\n",
		"log.jsonl":     `{"type":"info","msg":"started"}` + "\n" + `{"level":"warn"}` + "\n",
		"package.jsonl": `{"name":"x","version":"1.0.0"}` + "\n",
	}
	for name, data := range files {
		p := filepath.Join(etc, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	backdate(t, m.root)
	for name := range files {
		p := filepath.Join(etc, name)
		// through ../ too, as in the report
		rel, err := filepath.Rel(m.proj, p)
		require.NoError(t, err)
		for _, args := range [][]string{{"strip-thinking", p}, {"clone", p}, {"info", p}, {"validate", p}, {"redact-secrets", rel}} {
			h0 := hashTree(t, m.root)
			wd, _ := os.Getwd()
			if args[0] == "redact-secrets" {
				require.NoError(t, os.Chdir(m.proj))
			}
			r := m.cli(t, args...)
			require.NoError(t, os.Chdir(wd))
			checkRun(t, name+" "+args[0], r, want{1, "", "is not a Claude Code session"})
			assert.Empty(t, changes(h0, hashTree(t, m.root)), "%s %s changed files", args[0], name)
		}
	}
}

// Finding 1: --new puts the session where the client finds it.
func TestSafetyNewSessionGoesToTheProjectOfItsCwd(t *testing.T) {
	m := safeEnv(t)
	loose := looseSessionWithCwd(t, m, "/home/ana/my.app_v2 x")
	r := m.cli(t, "--json", "clone", loose)
	require.Equal(t, 0, r.code, r.stderr)
	var out struct{ Path, SessionID string }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &struct {
		Path      *string `json:"path"`
		SessionID *string `json:"session_id"`
	}{&out.Path, &out.SessionID}))
	assert.Equal(t, filepath.Join(m.cfg, "projects", "-home-ana-my-app-v2-x", out.SessionID+".jsonl"), out.Path)
	_, err := os.Stat(out.Path)
	assert.NoError(t, err)
	entries, _ := os.ReadDir(filepath.Dir(loose))
	assert.Len(t, entries, 1, "nothing written beside the loose file")
}

// Finding 2: restore trusts the backup's manifest.
func TestSafetyRestoreDerivesPathsAndValidates(t *testing.T) {
	t.Run("manifest names another folder", func(t *testing.T) {
		m := safeEnv(t)
		r := m.cli(t, "strip-thinking", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		list, err := backup.List(m.cfg, malSession)
		require.NoError(t, err)
		require.Len(t, list, 1)
		evil := filepath.Join(m.root, "home", ".ssh")
		require.NoError(t, os.MkdirAll(evil, 0o700))
		mf := filepath.Join(list[0].Dir, "manifest.json")
		b, _ := os.ReadFile(mf)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(b, &raw))
		raw["projectDir"] = evil
		files := raw["files"].([]any)
		files[0].(map[string]any)["rel"] = "authorized_keys"
		require.NoError(t, os.Rename(filepath.Join(list[0].Dir, malSession+".jsonl"), filepath.Join(list[0].Dir, "authorized_keys")))
		b, _ = json.Marshal(raw)
		require.NoError(t, os.WriteFile(mf, b, 0o600))
		backdate(t, m.root)
		r = m.cli(t, "restore", malSession)
		assert.Equal(t, 1, r.code, r.stderr)
		_, err = os.Stat(filepath.Join(evil, "authorized_keys"))
		assert.True(t, os.IsNotExist(err), "restore wrote outside the session's files")
	})
	t.Run("planted future-dated backup is not the newest", func(t *testing.T) {
		m := safeEnv(t)
		orig, _ := os.ReadFile(m.session())
		// a backup dated 2099, holding another session, put there before
		// ccsurgeon's own backup
		other := []byte(join(malLines()[:3], "\n"))
		planted := filepath.Join(m.cfg, "ccsurgeon", "backups", malSession, "20991231T000000.000Z-strip-thinking")
		require.NoError(t, os.MkdirAll(planted, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(planted, malSession+".jsonl"), other, 0o600))
		mf, _ := json.Marshal(map[string]any{"version": 1, "op": "strip-thinking", "time": "2099-12-31T00:00:00Z", "sessionId": malSession,
			"projectDir": m.proj, "created": []any{},
			"files": []any{map[string]any{"rel": malSession + ".jsonl", "path": m.session(), "size": len(other), "sha256": shaHex(other), "mode": 0o600}}})
		require.NoError(t, os.WriteFile(filepath.Join(planted, "manifest.json"), mf, 0o600))
		time.Sleep(20 * time.Millisecond)
		require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
		backdate(t, m.proj)
		r := m.cli(t, "restore", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		got, _ := os.ReadFile(m.session())
		assert.Equal(t, string(orig), string(got), "restore took the planted backup")
	})
	t.Run("torn file with a matching checksum", func(t *testing.T) {
		m := safeEnv(t)
		require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
		list, _ := backup.List(m.cfg, malSession)
		torn := []byte(join(malLines()[:4], "\n") + malLines()[4][:30])
		require.NoError(t, os.WriteFile(filepath.Join(list[0].Dir, malSession+".jsonl"), torn, 0o600))
		mf := filepath.Join(list[0].Dir, "manifest.json")
		b, _ := os.ReadFile(mf)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(b, &raw))
		f0 := raw["files"].([]any)[0].(map[string]any)
		f0["size"], f0["xxh128"] = len(torn), xxh128Hex(torn)
		b, _ = json.Marshal(raw)
		require.NoError(t, os.WriteFile(mf, b, 0o600))
		backdate(t, m.proj)
		before, _ := os.ReadFile(m.session())
		r := m.cli(t, "restore", malSession)
		checkRun(t, "restore", r, want{1, "", "would not resume"})
		after, _ := os.ReadFile(m.session())
		assert.Equal(t, string(before), string(after))
	})
}

func shaHex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func xxh128Hex(b []byte) string { s := xxh3.Hash128(b).Bytes(); return hex.EncodeToString(s[:]) }

// Finding 3: symlinks lead writes out.
func TestSafetySymlinksAreNeverWrittenThrough(t *testing.T) {
	testlink.Need(t)
	t.Run("subagent symlinked outside, redact", func(t *testing.T) {
		m := newMalEnv(t)
		id, agent := copySubagentSession(t, m)
		b, _ := os.ReadFile(agent)
		outside := filepath.Join(m.root, "outside.jsonl")
		require.NoError(t, os.WriteFile(outside, bytes.Replace(b, []byte("Run echo from-subagent"), []byte("Run echo ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"), 1), 0o644))
		require.NoError(t, os.Remove(agent))
		require.NoError(t, os.Symlink(outside, agent))
		backdate(t, m.root)
		h0 := hashTree(t, m.root)
		r := m.cli(t, "redact-secrets", id)
		checkRun(t, "redact", r, want{1, "", "symlink"})
		assert.Empty(t, changes(h0, hashTree(t, m.root)))
	})
	t.Run("subagent symlinked outside, drop-tool-calls", func(t *testing.T) {
		m := newMalEnv(t)
		id, agent := copySubagentSession(t, m)
		outside := filepath.Join(m.root, "outside.jsonl")
		require.NoError(t, os.Rename(agent, outside))
		require.NoError(t, os.Symlink(outside, agent))
		backdate(t, m.root)
		h0 := hashTree(t, m.root)
		r := m.cli(t, "drop-tool-calls", id, "--tool", "Agent")
		checkRun(t, "drop-tool-calls", r, want{1, "", "symlink"})
		assert.Empty(t, changes(h0, hashTree(t, m.root)))
	})
	// the hint said "write the result elsewhere with -o" to someone who had
	// (-o /dev/stdout, a link to /proc/self/fd/1)
	t.Run("-o onto a symlink", func(t *testing.T) {
		m := safeEnv(t)
		real := filepath.Join(m.root, "real.jsonl")
		require.NoError(t, os.WriteFile(real, []byte("mine\n"), 0o644))
		link := filepath.Join(m.root, "link.jsonl")
		require.NoError(t, os.Symlink(real, link))
		h0 := hashTree(t, m.root)
		r := m.cli(t, "strip-thinking", malSession, "-o", link, "--force")
		checkRun(t, "-o link", r, want{1, "", "is a symlink"})
		assert.Contains(t, r.stderr, "\nccsurgeon: hint: name the file it points to ("+real+"), or '-o -' for standard output\n")
		assert.Empty(t, changes(h0, hashTree(t, m.root)))
	})
	t.Run("sessions-index.json symlinked, clone --new", func(t *testing.T) {
		m := safeEnv(t)
		real := filepath.Join(m.root, "index-elsewhere.json")
		require.NoError(t, os.WriteFile(real, []byte(`{"version":1,"entries":[]}`), 0o644))
		idx := filepath.Join(m.proj, "sessions-index.json")
		require.NoError(t, os.Symlink(real, idx))
		r := m.cli(t, "clone", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		fi, err := os.Lstat(idx)
		require.NoError(t, err)
		assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link was replaced")
		b, _ := os.ReadFile(real)
		assert.Equal(t, `{"version":1,"entries":[]}`, string(b), "the link's target was written")
		assert.Contains(t, r.stderr, "symlink")
	})
}

// Finding 4: backups are keyed by the file's base name.
func TestSafetyLooseFilesWithTheSameNameHaveTheirOwnBackups(t *testing.T) {
	m := safeEnv(t)
	var paths []string
	var contents [][]byte
	for i, dir := range []string{"a", "b"} {
		p := filepath.Join(m.root, dir, "export.jsonl")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		ls := malLines()
		ls[0] = strings.Replace(ls[0], "hello", fmt.Sprintf("hello from %s", dir), 1)
		data := []byte(join(ls, "\n"))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths, contents = append(paths, p), append(contents, data)
		_ = i
	}
	backdate(t, m.root)
	for _, p := range paths {
		require.Equal(t, 0, m.cli(t, "strip-thinking", p).code)
	}
	backdate(t, m.root)
	r := m.cli(t, "restore", paths[0])
	require.Equal(t, 0, r.code, r.stderr)
	got, _ := os.ReadFile(paths[0])
	assert.Equal(t, string(contents[0]), string(got), "restore of a/export.jsonl")
	r = m.cli(t, "--json", "backups", paths[1])
	require.Equal(t, 0, r.code, r.stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows))
	assert.Len(t, rows, 1, "b/export.jsonl has its own one backup")
}

// Finding 5: -o over another session replaces it silently.
func TestSafetyOutputDoesNotReplaceWithoutForce(t *testing.T) {
	m := safeEnv(t)
	other := filepath.Join(m.proj, "0ther000-0000-4000-8000-000000000000.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(join(malLines()[:3], "\n")), 0o644))
	plain := filepath.Join(m.root, "notes.txt")
	require.NoError(t, os.WriteFile(plain, []byte("keep me\n"), 0o644))
	for dst, w := range map[string]want{
		other: {2, "", "under the config dir's projects folder"}, // never -o there, new file or not
		plain: {1, "", "already exists"},
	} {
		h0 := hashTree(t, m.root)
		r := m.cli(t, "strip-thinking", malSession, "-o", dst)
		checkRun(t, "-o "+dst, r, w)
		assert.Empty(t, changes(h0, hashTree(t, m.root)))
	}
	r := m.cli(t, "strip-thinking", malSession, "-o", plain, "--force")
	require.Equal(t, 0, r.code, r.stderr)
	b, _ := os.ReadFile(plain)
	assert.Contains(t, string(b), "hi there")
}

// Finding 6: no lock between ccsurgeon processes; the message blames
// Claude Code.
func TestSafetyOneWriterPerSession(t *testing.T) {
	m := safeEnv(t)
	l, err := backup.Lock(m.cfg, backup.KeyFor(m.cfg, malSession, m.proj), "test-holder")
	require.NoError(t, err)
	h0 := hashTree(t, m.root)
	r := m.cli(t, "strip-thinking", malSession)
	checkRun(t, "strip-thinking", r, want{1, "", "another ccsurgeon"})
	assert.Contains(t, r.stderr, fmt.Sprintf("pid %d", os.Getpid()))
	assert.NotContains(t, r.stderr, "Claude Code")
	assert.Empty(t, changes(h0, hashTree(t, m.root)))
	l.Unlock()
	assert.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
}

// Finding 7: leftovers of killed runs are never cleaned, partial backups
// are never listed.
func TestSafetyLeftoversOfKilledRunsAreCleaned(t *testing.T) {
	cases := []struct {
		name, killAt string
		args         []string
	}{
		{"clone --new killed after the subagents", "new-after-sidecars", []string{"clone", "SID"}},
		{"clone --new killed with a new file's temp written", "create-before-link", []string{"clone", "SID"}},
		{"in place killed while backing up", "backup-copying", []string{"drop-tool-calls", "SID", "--tool", "Agent"}},
		{"drop-tool-calls killed after the main rename", "before-removals", []string{"drop-tool-calls", "SID", "--tool", "Agent"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newMalEnv(t)
			id, agent := copySubagentSession(t, m)
			args := append([]string{}, c.args...)
			args[1] = id
			h0 := hashTree(t, m.root)
			killed := runKilled(t, m, c.killAt, args...)
			require.True(t, killed, "the child was not killed at %s", c.killAt)
			// ls never lists what the killed run left
			r := m.cli(t, "--json", "ls")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, 1, strings.Count(r.stdout, `"id"`), "ls lists one session: %s", r.stdout)
			// the next run on the session (here: backups) finishes or
			// removes it
			r = m.cli(t, "backups", id)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stderr, "an earlier run was interrupted")
			r = m.cli(t, "validate", id)
			require.Equal(t, 0, r.code, r.stderr)
			h1 := hashTree(t, m.root)
			for _, p := range changes(h0, h1) {
				if strings.HasPrefix(p, filepath.Join(m.cfg, "ccsurgeon", "backups")) && !strings.HasSuffix(p, ".lock") {
					// only complete backups stay
					dir := p
					for filepath.Dir(filepath.Dir(dir)) != filepath.Join(m.cfg, "ccsurgeon", "backups") {
						dir = filepath.Dir(dir)
					}
					_, err := os.Stat(filepath.Join(dir, "manifest.json"))
					assert.NoError(t, err, "partial backup left: %s", p)
					continue
				}
				if strings.HasSuffix(p, ".lock") {
					continue
				}
				if c.killAt == "before-removals" && (p == m.session() || p == filepath.Join(m.proj, id+".jsonl") || strings.HasPrefix(p, filepath.Join(m.proj, id))) {
					continue // the change itself, finished
				}
				t.Errorf("left behind: %s", p)
			}
			if c.killAt == "before-removals" {
				_, err := os.Stat(agent)
				assert.True(t, os.IsNotExist(err), "the dropped subagent transcript is still there")
			}
		})
	}
}

// runKilled runs the CLI in a child that SIGKILLs itself at step.
func runKilled(t *testing.T, m *malEnv, step string, args ...string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSafetyHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CCSURGEON_SAFETY_HELPER="+step, "CCSURGEON_SAFETY_ARGS="+strings.Join(append([]string{"--config-dir=" + m.cfg}, args...), "\x1f"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return false
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		t.Logf("child: %v\n%s", err, out.String())
		return false
	}
	return ws.Signal() == syscall.SIGKILL
}

// TestSafetyHelperProcess is not a test: runKilled and the trials run the
// CLI in a child with it.
func TestSafetyHelperProcess(t *testing.T) {
	step := os.Getenv("CCSURGEON_SAFETY_HELPER")
	if step == "" {
		return
	}
	pause := os.Getenv("CCSURGEON_SAFETY_PAUSE")    // a file to make at step, then wait to be killed
	killAt := os.Getenv("CCSURGEON_SAFETY_KILL_AT") // with a pause at step: the later step to be killed at
	// "step#n": killed at its n-th call (a step of files written
	// several at a time is called from several goroutines)
	killNth := int64(1)
	if s, n, ok := strings.Cut(killAt, "#"); ok {
		killAt = s
		killNth, _ = strconv.ParseInt(n, 10, 64)
	}
	var killSeen atomic.Int64
	if step != "-" {
		backup.TestHook = func(s string) {
			if s == killAt && killSeen.Add(1) == killNth {
				killSelf()
			}
			if s == step && pause != "" {
				_ = os.WriteFile(pause, nil, 0o600)
				// with a go file: carry on once it appears
				if goOn := os.Getenv("CCSURGEON_SAFETY_GO"); goOn != "" {
					for {
						if _, err := os.Stat(goOn); err == nil {
							return
						}
						time.Sleep(time.Millisecond)
					}
				}
				select {}
			}
			if s == step {
				killSelf()
			}
		}
	}
	args := strings.Split(os.Getenv("CCSURGEON_SAFETY_ARGS"), "\x1f")
	os.Exit(run(t.Context(), append([]string{"ccsurgeon"}, args...), strings.NewReader(""), os.Stdout, os.Stderr))
}

// Finding 10: a no-op rewrites the file and takes a backup; --keep 1
// silently removes the one useful backup.
func TestSafetyNoChangeNoWriteNoBackup(t *testing.T) {
	m := safeEnv(t)
	require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
	backdate(t, m.root)
	fi0, _ := os.Stat(m.session())
	for range 3 {
		r := m.cli(t, "strip-thinking", malSession)
		checkRun(t, "no-op", r, want{0, "nothing to change", ""})
	}
	fi1, _ := os.Stat(m.session())
	assert.True(t, os.SameFile(fi0, fi1), "the file was replaced")
	assert.Equal(t, fi0.ModTime(), fi1.ModTime())
	list, _ := backup.List(m.cfg, malSession)
	assert.Len(t, list, 1)
}

// -o - promises stdout to the session: with nothing to change, the
// "nothing to change" line (or the --json object) went to stdout, so
// 'ccsurgeon strip-thinking S -o - > copy.jsonl' made a .jsonl of a message.
// Now stdout holds the session as it is (issue 27, finding 10: -o always
// writes its output) and the words go to stderr.
func TestSafetyNothingToChangeKeepsStdoutForTheSession(t *testing.T) {
	m := safeEnv(t)
	require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
	backdate(t, m.root)
	for _, args := range [][]string{
		{"strip-thinking", malSession, "-o", "-"},
		{"--json", "strip-thinking", malSession, "-o", "-"},
		{"repair", malSession, "-o", "-"},
		{"--json", "repair", malSession, "-o", "-"},
	} {
		h0 := hashTree(t, m.root)
		r := m.cli(t, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		orig, err := os.ReadFile(m.session())
		require.NoError(t, err)
		assert.True(t, r.stdout == string(orig), "%v: stdout holds the session", args)
		assert.Regexp(t, "no change; wrote an identical copy to stdout|\"nothing_to_change\": true", r.stderr, "%v: it says so on stderr", args)
		if args[0] == "--json" {
			var v map[string]any
			assert.NoError(t, json.Unmarshal([]byte(r.stderr), &v), "%v: the summary on stderr is JSON", args)
		}
		assert.Empty(t, changes(h0, hashTree(t, m.root)), "%v", args)
	}
}

func TestSafetyKeepOneKeepsTheOriginal(t *testing.T) {
	m := trialSession(t)
	orig, _ := os.ReadFile(m.session())
	for _, args := range [][]string{
		{"strip-thinking", malSession, "--keep", "1"},
		{"compress-old-turns", malSession, "--keep-turns", "0", "--max-result", "100B", "--keep", "1"},
		{"drop-tool-calls", malSession, "--tool", "Bash", "--keep", "1"},
	} {
		backdate(t, m.root)
		r := m.cli(t, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		if args[0] == "drop-tool-calls" {
			assert.Contains(t, r.stdout, "removed 1 old backup: ", "pruning says what it removed")
		}
	}
	list, _ := backup.List(m.cfg, malSession)
	require.Len(t, list, 2, "the last made and the original")
	d, _ := os.ReadFile(filepath.Join(list[1].Dir, malSession+".jsonl"))
	assert.Equal(t, string(orig), string(d), "--keep 1 removed the backup of the original session")
	assert.True(t, list[1].Original)
}

// Finding 11: --keep-turns 0 panics; --diff without --dry-run writes;
// restore right after a change blames Claude Code.
func TestSafetyFlagsMeanOneThing(t *testing.T) {
	t.Run("compress --keep-turns 0 compresses every turn", func(t *testing.T) {
		for _, args := range [][]string{{"compress-old-turns", malSession, "--keep-turns", "0", "--max-result", "4B"}, {"rewrite", malSession, "--compress-old-turns", "0", "--max-result", "4B"}} {
			m := newMalEnv(t)
			ls := malLines()
			ls[4] = malLine("assistant", 5, 4, `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"`+strings.Repeat("x", 4000)+`"}}]`)
			ls = append(ls, strings.Replace(malLine("user", 6, 5, `[{"type":"tool_result","tool_use_id":"toolu_1","content":"`+strings.Repeat("y", 4000)+`"}]`), `"role":"user"`, `"role":"user"`, 1),
				malLine("assistant", 7, 6, `[{"type":"text","text":"ok"}]`))
			m.write(t, join(ls, "\n"))
			backdate(t, m.root)
			r := m.cli(t, args...)
			require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
			b, _ := os.ReadFile(m.session())
			assert.NotContains(t, string(b), strings.Repeat("y", 4000), "%v: the last turn is compressed too", args)
		}
	})
	// '-o a.jsonl -o b.jsonl' wrote b.jsonl and said nothing of a.jsonl;
	// '--before-turn 2 --before-turn 3' took 3: a flag with one value is
	// given once
	t.Run("a flag given twice is refused", func(t *testing.T) {
		m := safeEnv(t)
		a, b := filepath.Join(m.root, "a.jsonl"), filepath.Join(m.root, "b.jsonl")
		for _, args := range [][]string{
			{"strip-thinking", malSession, "-o", a, "-o", b},
			{"strip-thinking", malSession, "--output", a, "-o=" + b},
			{"strip-thinking", malSession, "--before-turn", "2", "--before-turn", "3"},
			{"strip-thinking", malSession, "--config-dir", m.cfg},
		} {
			h0 := hashTree(t, m.root)
			r := m.cli(t, args...)
			checkRun(t, strings.Join(args, " "), r, want{2, "", "given twice"})
			assert.Empty(t, changes(h0, hashTree(t, m.root)), "%v", args)
		}
		r := m.cli(t, "drop-tool-calls", malSession, "--tool", "A", "--tool", "B", "--dry-run")
		assert.Equal(t, 0, r.code, "a flag that takes several values takes them: %s", r.stderr)
	})
	// '-o share.jsonl --no-backup' and '--new --keep 3' were taken without
	// a word, the backup flags meaning nothing there: they are for a change
	// in place
	t.Run("backup flags without an in-place change are refused", func(t *testing.T) {
		m := safeEnv(t)
		out := filepath.Join(m.root, "out.jsonl")
		for _, args := range [][]string{
			{"strip-thinking", malSession, "-o", "-", "--no-backup"},
			{"strip-thinking", malSession, "-o", out, "--keep", "3"},
			{"strip-thinking", malSession, "--new", "--no-backup"},
			{"clone", malSession, "--keep", "2"},
			{"strip-thinking", malSession, "--keep", "3", "--no-backup"},
		} {
			h0 := hashTree(t, m.root)
			r := m.cli(t, args...)
			checkRun(t, strings.Join(args, " "), r, want{2, "", "--"})
			// clone takes no backup flag at all (issue 27, finding 13)
			assert.Regexp(t, `^ccsurgeon: (unknown flag )?--(keep|no-backup)`, r.stderr, "%v", args)
			assert.Empty(t, r.stdout, "%v", args)
			assert.Empty(t, changes(h0, hashTree(t, m.root)), "%v", args)
		}
		r := m.cli(t, "strip-thinking", malSession, "--dry-run", "--no-backup")
		assert.Equal(t, 0, r.code, "the preview of an in-place change takes its flags: %s", r.stderr)
	})
	t.Run("--diff without --dry-run previews only", func(t *testing.T) {
		m := safeEnv(t)
		h0 := hashTree(t, m.root)
		r := m.cli(t, "strip-thinking", malSession, "--diff")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "@@ -1,5 +1,4 @@")
		assert.Contains(t, r.stdout, "nothing was written")
		assert.Empty(t, changes(h0, hashTree(t, m.root)))
	})
	t.Run("restore right after a change", func(t *testing.T) {
		m := safeEnv(t)
		orig, _ := os.ReadFile(m.session())
		require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
		r := m.cli(t, "restore", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		got, _ := os.ReadFile(m.session())
		assert.Equal(t, string(orig), string(got))
	})
}

// Issue 14: the backups of an in-place redact keep every secret.
func TestSafetyRedactInPlaceSaysTheBackupsHoldTheSecrets(t *testing.T) {
	const secret = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
	setup := func(t *testing.T) *malEnv {
		m := newMalEnv(t)
		ls := malLines()
		ls[3] = malLine("user", 4, 3, `"my token is `+secret+`"`)
		m.write(t, join(ls, "\n"))
		backdate(t, m.root)
		return m
	}
	backups := func(m *malEnv) string { return filepath.Join(m.cfg, "ccsurgeon", "backups") }
	grepTree := func(t *testing.T, root string) bool {
		for _, h := range hashTree(t, root) {
			_ = h
		}
		found := false
		_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				found = found || bytes.Contains(b, []byte(secret))
			}
			return nil
		})
		return found
	}
	t.Run("note and purge", func(t *testing.T) {
		m := setup(t)
		r := m.cli(t, "redact-secrets", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		out := r.stdout + r.stderr
		assert.Contains(t, out, "still hold")
		assert.Contains(t, out, "--no-backup")
		assert.Contains(t, out, "ccsurgeon backups --purge "+malSession)
		assert.True(t, grepTree(t, backups(m)), "the backup holds the secret (as said)")
		r = m.cli(t, "backups", "--purge", malSession)
		require.Equal(t, 0, r.code, r.stderr)
		assert.False(t, grepTree(t, m.cfg), "a secret is left in the config dir after the purge")
	})
	t.Run("--no-backup", func(t *testing.T) {
		m := setup(t)
		r := m.cli(t, "redact-secrets", malSession, "--no-backup")
		require.Equal(t, 0, r.code, r.stderr)
		assert.False(t, grepTree(t, m.cfg), "a secret is left in the config dir")
	})
}

// Finding 7, an older client's layout: a clone killed before its main
// transcript leaves no agent-*.jsonl beside the original.
func TestSafetyKilledCloneOfALegacySessionLeavesNoAgentFiles(t *testing.T) {
	m := newMalEnv(t)
	id, agent := copySubagentSession(t, m)
	legacy := filepath.Join(m.proj, filepath.Base(agent))
	require.NoError(t, os.Rename(agent, legacy))
	require.NoError(t, os.RemoveAll(filepath.Join(m.proj, id)))
	backdate(t, m.root)
	h0 := hashTree(t, m.root)
	require.True(t, runKilled(t, m, "new-after-sidecars", "clone", id))
	left := changes(h0, hashTree(t, m.root))
	require.NotEmpty(t, left, "the killed clone wrote its agent files")
	r := m.cli(t, "backups", id)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, changes(h0, hashTree(t, m.root)), "left behind")
}

// Trial finding (2026-11-23): clone and --new wrote a new session through
// a symlinked project folder, outside the config dir (move refused the
// same folder). Every way a new session is made refuses a project folder
// that is a symlink, and writes nothing.
func TestSafetyNewSessionsAreNotWrittenThroughASymlinkedFolder(t *testing.T) {
	testlink.Need(t)
	for _, args := range [][]string{
		{"clone", "LOOSE"},
		{"strip-thinking", "LOOSE", "--new"},
		{"fork-at-turn", "LOOSE", "1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			m := safeEnv(t)
			loose := looseSessionWithCwd(t, m, "/tmp/trial/evil2")
			outside := filepath.Join(m.root, "outside", "pd")
			require.NoError(t, os.MkdirAll(outside, 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(m.cfg, "projects", "-tmp-trial-evil2")))
			backdate(t, m.root)
			h0 := hashTree(t, m.root)
			a := append([]string(nil), args...)
			a[1] = loose
			r := m.cli(t, a...)
			checkRun(t, strings.Join(a, " "), r, want{1, "", "symlink"})
			entries, _ := os.ReadDir(outside)
			assert.Empty(t, entries, "written through the link")
			assert.Empty(t, changes(h0, hashTree(t, m.root)))
		})
	}
}

// Trial finding (2026-11-23): a session ccsurgeon had just made (clone,
// fork) was refused by the live guard for 5 s ("modified 1.6s ago; Claude
// Code may still be writing it"): the guard takes ccsurgeon's own writes
// for the client's only for files it changed in place.
func TestSafetyANewSessionCanBeChangedAtOnce(t *testing.T) {
	for _, make := range [][]string{{"clone", malSession}, {"fork-at-turn", malSession, "1"}} {
		t.Run(make[0], func(t *testing.T) {
			m := safeEnv(t)
			r := m.cli(t, append([]string{"--json"}, make...)...)
			require.Equal(t, 0, r.code, r.stderr)
			var out struct {
				SessionID string `json:"session_id"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
			require.NotEmpty(t, out.SessionID)
			r = m.cli(t, "strip-thinking", out.SessionID)
			assert.Equal(t, 0, r.code, "a change right after %s: %s", make[0], r.stderr)
			assert.NotContains(t, r.stderr, "may still be writing")
		})
	}
}

// looseSessionWithCwd writes the clean session of the malformed table,
// working in cwd, as a loose file outside the config dir.
func looseSessionWithCwd(t *testing.T, m *malEnv, cwd string) string {
	t.Helper()
	loose := filepath.Join(m.root, "elsewhere", "export.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(loose), 0o755))
	lines := malLines()
	for i := range lines {
		lines[i] = strings.Replace(lines[i], `"sessionId"`, `"cwd":"`+cwd+`","sessionId"`, 1)
	}
	require.NoError(t, os.WriteFile(loose, []byte(join(lines, "\n")), 0o644))
	return loose
}

// Review finding: an empty flag value was read as the flag not given, so
// 'strip-thinking S -o "$OUT"' with OUT unset changed S in place, and
// '--config-dir "$DIR"' with DIR unset worked on ~/.claude. An empty
// value is a usage error, named with what the flag wants; nothing changes.
func TestSafetyAnEmptyValueIsNotNotGiven(t *testing.T) {
	m := safeEnv(t)
	h0 := hashTree(t, m.root)
	for _, args := range [][]string{
		{"strip-thinking", malSession, "-o", ""}, // said "--o"
		{"strip-thinking", malSession, "--output="},
		{"strip-thinking", "--project", ""},
		{"clone", malSession, "--leaf", ""},
		{"drop-tool-calls", malSession, "--tool", ""},
		{"drop-tool-calls", malSession, "--tool", "Bash", "--turns", ""},
		{"compress", malSession, "--max-result", ""},
		{"redact", malSession, "--rule", ""},
		{"move", malSession, "--to", ""},
		{"ls", "--project", ""},
		{"ls", "--sort", ""},
	} {
		r := m.cli(t, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Regexp(t, `^ccsurgeon: --?[a-z-]+ "": want `, r.stderr, "%v", args)
	}
	assert.Empty(t, changes(h0, hashTree(t, m.root)))
	r := m.cli(t, "strip-thinking", malSession, "-o", "")
	assert.Regexp(t, `^ccsurgeon: -o "": want PATH: `, r.stderr, "the flag as it was typed")
	_, errs, code := cliRun(t, "--config-dir", "", "ls")
	assert.Equal(t, 2, code, errs)
	assert.Regexp(t, `^ccsurgeon: --config-dir "": want DIR`, errs)
}

// TestLooseFileWhoseNameMakesNoBackupFolder: a loose session file named
// "..jsonl" cannot be changed in place (its backups would go to a folder
// named "."): the error says so in a sentence, with what to do, and the
// file is left as it was.
func TestLooseFileWhoseNameMakesNoBackupFolder(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "..jsonl")
	b, err := os.ReadFile(filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	_, errs, code := cliRun(t, "--config-dir", t.TempDir(), "drop-tool-calls", p, "--tool", "Bash")
	require.Equal(t, 1, code, errs)
	require.Regexp(t, `^ccsurgeon: cannot keep backups of a session file named "\.\.jsonl" .*-o\n$`, errs)
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, b, after)
}

// TestSymlinkedLockFileSaysSoOnce: a lock file that is a symlink was
// refused with the path twice and Go's wording ("open lock P: open P: too
// many levels of symbolic links"). It is one line that says what is
// wrong, and a hint; the link and what it names are left alone.
func TestSymlinkedLockFileSaysSoOnce(t *testing.T) {
	testlink.Need(t)
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	id := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	root := backup.BackupsRoot(cfg)
	require.NoError(t, os.MkdirAll(root, 0o700))
	lock := filepath.Join(root, id+".lock")
	target := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.Symlink(target, lock))
	h0 := hashTree(t, cfg)
	for _, args := range [][]string{{"strip-thinking", id}, {"restore", id}, {"backups", "--purge", id}} {
		r := runCLI(t, append([]string{"--config-dir=" + cfg}, args...)...)
		checkRun(t, args[0], r, want{1, "", "is a symlink"})
		assert.Regexp(t, `^ccsurgeon: [^\n]*\nccsurgeon: hint: [^\n]*\n$`, r.stderr, "%s: one line and a hint", args[0])
		first, _, _ := strings.Cut(r.stderr, "\n")
		assert.Equal(t, 1, strings.Count(first, lock), "%s: the lock's path once: %s", args[0], first)
		assert.NotContains(t, r.stderr, "too many levels", args[0])
		assert.NoFileExists(t, target, args[0])
	}
	assert.Empty(t, changes(h0, hashTree(t, cfg)))
}

// TestBackupFolderNamesAreOneLine: a session file whose name holds a
// newline got a backup folder whose name held it too (a listing of the
// backups folder, a log line naming it, broke in two). Backup folder
// names are one line (the copy inside keeps the file's name); backups lists such a session's backups and
// restore puts them back, for a loose file and for a file of a project
// folder.
func TestBackupFolderNamesAreOneLine(t *testing.T) {
	src := filepath.Join("testdata", "sessions", "2.1.328", "thinking-tool-loop.jsonl")
	orig, err := os.ReadFile(src)
	require.NoError(t, err)
	cfg := t.TempDir()
	proj := filepath.Join(cfg, "projects", "-tmp-proj")
	loose := filepath.Join(t.TempDir(), "my\nsession.jsonl")
	inProject := filepath.Join(proj, "tab\there\r\u2028.jsonl")
	require.NoError(t, os.MkdirAll(proj, 0o700))
	for _, p := range []string{loose, inProject} {
		require.NoError(t, os.WriteFile(p, orig, 0o600))
	}
	backdate(t, filepath.Dir(loose))
	backdate(t, cfg)
	for _, p := range []string{loose, inProject} {
		r := runCLI(t, "--config-dir="+cfg, "strip-thinking", p)
		require.Equal(t, 0, r.code, "%q: %s%s", p, r.stdout, r.stderr)
		changed, _ := os.ReadFile(p)
		require.NotEqual(t, orig, changed)
		// every folder, and what is named after the session in backups/
		// (its lock, its record of written files); a copy in a backup is
		// named as the file it copies
		root := backup.BackupsRoot(cfg)
		require.NoError(t, filepath.Walk(filepath.Join(cfg, "ccsurgeon"), func(q string, fi os.FileInfo, err error) error {
			if err == nil && (fi.IsDir() || filepath.Dir(q) == root) {
				assert.False(t, strings.ContainsAny(q, "\n\r\t\u2028"), "a name under ccsurgeon/ is not one line: %q", q)
			}
			return err
		}))
		r = runCLI(t, "--config-dir="+cfg, "backups", p)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "strip-thinking (original)")
		backdate(t, filepath.Dir(p))
		r = runCLI(t, "--config-dir="+cfg, "restore", p)
		require.Equal(t, 0, r.code, "%q: %s%s", p, r.stdout, r.stderr)
		back, _ := os.ReadFile(p)
		assert.Equal(t, orig, back, "%q: restore", p)
		r = runCLI(t, "--config-dir="+cfg, "backups", p)
		assert.Equal(t, 2, strings.Count(r.stdout, "\n")-1, "%q: the change's backup and the restore's: %s", p, r.stdout)
	}
	// a deleted session of a project folder, named by its path
	require.NoError(t, os.Remove(inProject))
	r := runCLI(t, "--config-dir="+cfg, "restore", inProject)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	back, _ := os.ReadFile(inProject)
	assert.NotEqual(t, orig, back, "the last made backup: the state before the restore")
	assert.NotEmpty(t, back)
}

// TestLockHolderIsNamedByItsCommand: a change refused because another
// ccsurgeon holds the session's lock said "(pid N, edit, since …)"
// whatever that one was doing. It names the command that holds it.
func TestLockHolderIsNamedByItsCommand(t *testing.T) {
	cfg := t.TempDir()
	main := installSession(t, cfg, "-tmp-proj", filepath.Join("testdata", "sessions", "2.1.328", "tools.jsonl"))
	id := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	paused := filepath.Join(t.TempDir(), "paused")
	holder := exec.Command(os.Args[0], "-test.run=^TestSafetyHelperProcess$", "-test.count=1")
	holder.Env = append(os.Environ(), "CCSURGEON_SAFETY_HELPER=after-backup", "CCSURGEON_SAFETY_PAUSE="+paused,
		"CCSURGEON_SAFETY_ARGS="+strings.Join([]string{"--config-dir=" + cfg, "drop-tool-calls", id, "--tool", "Bash"}, "\x1f"))
	require.NoError(t, holder.Start())
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	require.Eventually(t, func() bool { _, err := os.Stat(paused); return err == nil }, 20*time.Second, 20*time.Millisecond, "the holder never reached its backup")
	for _, args := range [][]string{{"strip-thinking", id}, {"redact-secrets", id}, {"restore", id}} {
		r := runCLI(t, append([]string{"--config-dir=" + cfg}, args...)...)
		checkRun(t, args[0], r, want{1, "", fmt.Sprintf("is being changed by another ccsurgeon (pid %d, drop-tool-calls, since ", holder.Process.Pid)})
		assert.NotContains(t, r.stderr, "edit", args[0])
	}
}
