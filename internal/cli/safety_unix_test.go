//go:build unix

package cli

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Finding 8: the owner changes when root rewrites another user's session.
func TestSafetyOwnerAndModeAreKept(t *testing.T) {
	m := safeEnv(t)
	// as root: another user's session, owner and group both foreign. As a
	// user, a file can only be one's own (the owner kept is not checked:
	// it is the writer's anyway), but its group can be any group the user
	// is in: a group other than the primary one, which a new file gets,
	// is kept only if ccsurgeon keeps it. The mode 0640 is not what a new
	// file of ccsurgeon gets (0600) in either case.
	uid, gid, ownerChecked, groupChecked := 4242, 4343, true, true
	if !isRoot() {
		uid, gid, ownerChecked = os.Getuid(), os.Getgid(), false
		groupChecked = false
		groups, _ := os.Getgroups()
		for _, g := range groups {
			if g != os.Getgid() {
				gid, groupChecked = g, true
				break
			}
		}
	}
	require.NoError(t, os.Chown(m.session(), uid, gid))
	require.NoError(t, os.Chmod(m.session(), 0o640))
	check := func(what string) {
		t.Helper()
		fi, err := os.Stat(m.session())
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		if ownerChecked {
			assert.Equal(t, uint32(uid), st.Uid, "%s: the owner", what)
		}
		if groupChecked {
			assert.Equal(t, uint32(gid), st.Gid, "%s: the group", what)
		}
		assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "%s: the mode", what)
	}
	require.Equal(t, 0, m.cli(t, "strip-thinking", malSession).code)
	check("strip-thinking")
	backdate(t, m.root)
	require.Equal(t, 0, m.cli(t, "restore", malSession).code)
	check("restore")
	if !ownerChecked {
		t.Logf("not checked: the owner (a user can own a file only as themselves; root runs that part)")
	}
	if !groupChecked {
		t.Logf("not checked: the group (the user is in no group but the primary one, %d)", os.Getgid())
	}
}

// Finding 9: a FIFO hangs ls, info and validate.
func TestSafetyFifosNeverHang(t *testing.T) {
	m := newMalEnv(t)
	id, agent := copySubagentSession(t, m)
	require.NoError(t, syscall.Mkfifo(filepath.Join(m.proj, "aaaa0000-0000-4000-8000-000000000000.jsonl"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(filepath.Dir(agent), "agent-fifo.jsonl"), 0o644))
	t.Cleanup(func() {
		// unblock a reader that hung, so the test binary can end
		for _, p := range []string{filepath.Join(m.proj, "aaaa0000-0000-4000-8000-000000000000.jsonl"), filepath.Join(filepath.Dir(agent), "agent-fifo.jsonl")} {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	})
	for _, args := range [][]string{{"ls"}, {"info", id}, {"validate", id}, {"strip-thinking", id, "--dry-run"}} {
		done := make(chan ran, 1)
		go func() { done <- m.cli(t, args...) }()
		select {
		case r := <-done:
			assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		case <-time.After(10 * time.Second):
			t.Fatalf("%v hangs on a fifo", args)
		}
	}
}

// Trial finding (2026-11-23): "-o NODE --force" replaced a device node or
// a FIFO with a regular file (as root, the machine's /dev/null). -o names
// a regular file: a FIFO, a socket, a character device or a folder is
// refused, with or without --force, and stays what it was.
func TestSafetyOutputIsNeverANode(t *testing.T) {
	m := safeEnv(t)
	fifo := filepath.Join(m.root, "out.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	dir := filepath.Join(m.root, "adir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	sock := filepath.Join(m.root, "out.sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	nodes := map[string]string{fifo: "not a regular file", dir: "is a folder", sock: "not a regular file"}
	if os.Getuid() == 0 { // a character device like /dev/null (making one needs root)
		dev := filepath.Join(m.root, "nulldev")
		require.NoError(t, syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3))
		nodes[dev] = "not a regular file"
	}
	for node, msg := range nodes {
		st0, err := os.Lstat(node)
		require.NoError(t, err)
		for _, force := range []bool{false, true} {
			args := []string{"strip-thinking", malSession, "-o", node}
			if force {
				args = append(args, "--force")
			}
			h0 := hashTree(t, m.root)
			r := m.cli(t, args...)
			checkRun(t, strings.Join(args, " "), r, want{1, "", msg})
			assert.Contains(t, r.stderr, "ccsurgeon: hint:", "%v", args)
			assert.NotContains(t, r.stderr, "--force to replace", "%v: the hint must not offer --force", args)
			st, err := os.Lstat(node)
			require.NoError(t, err, "%v", args)
			assert.Equal(t, st0.Mode(), st.Mode(), "%v: %s changed kind", args, node)
			assert.Empty(t, changes(h0, hashTree(t, m.root)), "%v", args)
		}
	}
}

// Attack finding (2026-11-27), family "a file the client keeps beside a
// session, read by its name": a subagent's meta.json, the registry of
// running clients sessions/<pid>.json and a project's sessions-index.json
// were read whole with os.ReadFile, so a FIFO at that name (or a link to
// one, or to a device) hung every command that reads it: info and doctor
// (meta.json), every in-place write (the live-client guard reads the
// registry), clone and move (the index). Each member is named by the file
// and the command that hung; each command still does its work.
func TestSafetyFilesBesideASessionThatAreFifosNeverHang(t *testing.T) {
	type member struct {
		name  string
		fifo  func(m *malEnv, id, agent string) string // where the FIFO goes
		args  func(m *malEnv, id string) []string
		wants int
	}
	members := []member{
		{"subagent meta.json read by info", func(m *malEnv, id, agent string) string {
			p := strings.TrimSuffix(agent, ".jsonl") + ".meta.json"
			require.NoError(t, os.Remove(p))
			return p
		}, func(m *malEnv, id string) []string { return []string{"info", id} }, 0},
		{"subagent meta.json read by doctor", func(m *malEnv, id, agent string) string {
			p := strings.TrimSuffix(agent, ".jsonl") + ".meta.json"
			require.NoError(t, os.Remove(p))
			return p
		}, func(m *malEnv, id string) []string { return []string{"doctor", id} }, -1},
		{"registry sessions/<pid>.json read by the live guard of an in-place write", func(m *malEnv, id, agent string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(m.cfg, "sessions"), 0o700))
			return filepath.Join(m.cfg, "sessions", "4242.json")
		}, func(m *malEnv, id string) []string { return []string{"compress", id} }, 0},
		{"ccsurgeon's list of a killed run's new files (.*.ccsurgeon-files) in a project folder, read by the sweep of a clone", func(m *malEnv, id, agent string) string {
			return filepath.Join(m.proj, ".x.ccsurgeon-files")
		}, func(m *malEnv, id string) []string { return []string{"clone", id} }, 0},
		{"ccsurgeon's marker of an incomplete folder (.ccsurgeon-incomplete) in a project folder, read by the sweep of a clone", func(m *malEnv, id, agent string) string {
			d := filepath.Join(m.proj, "aaaa0000-0000-4000-8000-000000000001")
			require.NoError(t, os.MkdirAll(d, 0o700))
			return filepath.Join(d, ".ccsurgeon-incomplete")
		}, func(m *malEnv, id string) []string { return []string{"clone", id} }, 0},
		{"sessions-index.json read by clone", func(m *malEnv, id, agent string) string {
			return filepath.Join(m.proj, "sessions-index.json")
		}, func(m *malEnv, id string) []string { return []string{"clone", id} }, 0},
		{"sessions-index.json read by move", func(m *malEnv, id, agent string) string {
			return filepath.Join(m.proj, "sessions-index.json")
		}, func(m *malEnv, id string) []string {
			return []string{"move", id, "--to", filepath.Join(m.root, "elsewhere")}
		}, 0},
	}
	for _, mb := range members {
		t.Run(mb.name, func(t *testing.T) {
			m := newMalEnv(t)
			id, agent := copySubagentSession(t, m)
			backdate(t, m.root)
			fifo := mb.fifo(m, id, agent)
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			t.Cleanup(func() { // unblock a reader that hung, so the test binary can end
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
			args := mb.args(m, id)
			done := make(chan ran, 1)
			go func() { done <- m.cli(t, args...) }()
			select {
			case r := <-done:
				if mb.wants >= 0 {
					assert.Equal(t, mb.wants, r.code, "%v: %s", args, r.stderr)
				}
				assert.NotContains(t, r.stderr, "panic")
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: %v hangs on a FIFO at %s", mb.name, args, fifo)
			}
			st, err := os.Lstat(fifo)
			require.NoError(t, err, "%s: the FIFO is gone", mb.name)
			assert.Equal(t, os.ModeNamedPipe, st.Mode().Type(), "%s: the FIFO was replaced", mb.name)
		})
	}
}

// Attack finding (2026-11-27), family "a move the file system will not
// let finish": a session in a project folder the user cannot write (a
// read-only folder) was copied to its new folder, the move marked
// committed, and only then did removing the old copy fail: the session
// was left twice (one id, two files: every command naming it by its id
// became ambiguous) and the committed journal made every later move fail
// on finishing it. Members: move SESSION --to, and doctor --fix moving a
// stranded session it picked itself. The move is refused before anything
// changes: exit 1, the session where it was (byte for byte), no copy
// elsewhere, and a later move works. As root (whom permissions do not
// stop), the commands run as another user on files that user owns.
func TestSafetyMoveFromAFolderThatCannotBeWrittenChangesNothing(t *testing.T) {
	asUser := os.Geteuid() == 0
	for _, mb := range []struct {
		name string
		args func(cfg, proj, id string) []string
	}{
		{"move SESSION --to", func(cfg, proj, id string) []string { return []string{"move", id, "--to", proj} }},
		{"doctor --fix moving a stranded session", func(cfg, proj, id string) []string { return []string{"doctor", "--fix"} }},
	} {
		t.Run(mb.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "cfg")
			proj := filepath.Join(root, "src", "proj")
			require.NoError(t, os.MkdirAll(proj, 0o755))
			path, b := installSessionOf(t, cfg, "-stranded", proj)
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			ro := filepath.Dir(path)
			bin := filepath.Join(root, "ccsurgeon.test") // where the other user can run it
			run := func(args ...string) ran {
				args = append([]string{"--config-dir=" + cfg}, args...)
				if !asUser {
					return runCLI(t, args...)
				}
				cmd := exec.Command(bin, "-test.run=^TestSafetyHelperProcess$", "-test.count=1")
				cmd.Env = append(os.Environ(), "CCSURGEON_SAFETY_HELPER=-", "CCSURGEON_SAFETY_ARGS="+strings.Join(args, "\x1f"))
				cmd.Dir = root
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else {
					require.NoError(t, err)
				}
				return ran{stdout: out.String(), stderr: errb.String(), code: code}
			}
			if asUser {
				self, err := os.ReadFile(os.Args[0])
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(bin, self, 0o755))
				for d := root; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
					require.NoError(t, os.Chmod(d, 0o755)) // the other user reaches the tree
				}
				require.NoError(t, filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
					if err != nil {
						return err
					}
					return os.Lchown(p, 65534, 65534)
				}))
			}
			require.NoError(t, os.Chmod(ro, 0o555))
			t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })

			r := run(mb.args(cfg, proj, id)...)
			assert.Equal(t, 1, r.code, "%s: %s%s", mb.name, r.stdout, r.stderr)
			got, err := os.ReadFile(path)
			require.NoError(t, err, "%s: the session is gone from its folder", mb.name)
			assert.True(t, bytes.Equal(b, got), "%s: the session changed", mb.name)
			sessions, err := chain.FindSessions(cfg, id)
			require.NoError(t, err)
			assert.Equal(t, []string{path}, sessions, "%s: the session is now in two places: %s%s", mb.name, r.stdout, r.stderr)

			// nothing pending: a later move (here, back where it is) is not
			// stopped by a half-done one
			require.NoError(t, os.Chmod(ro, 0o755))
			r = run("move", id, "--to", proj)
			assert.Equal(t, 0, r.code, "%s: the move once the folder is writable: %s%s", mb.name, r.stdout, r.stderr)
			assert.NotContains(t, r.stderr, "interrupted", mb.name)
		})
	}
}

// Attack finding (2026-11-27), family "a file named like a session that
// is not one": a FIFO is never opened (TestSafetyFifosNeverHang), but a
// huge file with no session line (a disk image, a core dump named
// *.jsonl; here 1 TB, sparse) was read to its end by every listing before
// it was skipped: doctor took 12 s on a 4 GB one, ls 2 s, and a listing of
// 1 TB ran for minutes. Each member (ls, doctor, an id prefix that names
// the real session) is named; each finishes quickly and lists only the
// real session.
func TestSafetyHugeFileThatIsNoSessionIsNotReadToItsEnd(t *testing.T) {
	m := newMalEnv(t)
	m.write(t, join(malLines(), "\n"))
	backdate(t, m.root)
	huge := filepath.Join(m.proj, "aaaa0000-0000-4000-8000-000000000000.jsonl")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<40))
	require.NoError(t, f.Close())
	for _, args := range [][]string{{"ls"}, {"doctor"}, {"info", malSession[:8]}} {
		done := make(chan ran, 1)
		go func() { done <- m.cli(t, args...) }()
		select {
		case r := <-done:
			assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
			assert.NotContains(t, r.stdout, "aaaa0000", "%v lists a file that is no session", args)
		case <-time.After(20 * time.Second):
			t.Fatalf("%v reads a 1 TB file that holds no session line to its end", args)
		}
	}
}

// Attack finding (2026-11-27), family "our own bookkeeping names a path
// outside the config dir": the journal of an interrupted move names its
// files by absolute path, and the next move of the config dir finishes or
// rolls it back without asking whose they are. A config dir copied (or
// restored from a backup) with a journal pending made a move in the copy
// finish the move in the original, or remove the original's backups and
// temps. Each member is the step the original's move was killed at; a
// move in the copy changes nothing in the original, names the journal it
// left alone, and does its own work.
func TestSafetyAJournalOfAnotherConfigDirIsNotActedOn(t *testing.T) {
	for _, step := range []string{"move-after-backup", "move-after-temps", "move-after-commit-mark"} {
		t.Run(step, func(t *testing.T) {
			root := t.TempDir()
			m := &malEnv{root: root, cfg: filepath.Join(root, "cfg")}
			proj := filepath.Join(root, "src", "proj")
			require.NoError(t, os.MkdirAll(proj, 0o755))
			path, _ := installSessionOf(t, m.cfg, chain.ProjectSlug(proj), proj)
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			require.True(t, runKilled(t, m, step, "move", id, "--to", filepath.Join(root, "new")), "the move was not killed at %s", step)
			cp := filepath.Join(root, "copy")
			require.NoError(t, copyTreeKeepingTimes(m.cfg, cp))
			before := hashTree(t, m.cfg)
			r := runCLI(t, "--config-dir="+cp, "move", id, "--to", filepath.Join(root, "elsewhere"))
			assert.Equal(t, before, hashTree(t, m.cfg), "%s: a move in the copy changed the original config dir: %s%s", step, r.stdout, r.stderr)
			assert.Equal(t, 0, r.code, "%s: %s", step, r.stderr)
			assert.Contains(t, r.stderr, filepath.Join(cp, "ccsurgeon", "journal"), "%s: the journal left alone is not named", step)
		})
	}
}

// The same family, the journal of an in-place change (commit.json in the
// session's backups): a change of two files killed between its renames,
// in a config dir then copied, was finished by the next change of the
// session in the copy by renaming the original's temp over the original's
// file. The original is not touched; the copy's journal is named.
func TestSafetyACommitJournalOfAnotherConfigDirIsNotActedOn(t *testing.T) {
	m := newMalEnv(t)
	id, agent := copySubagentSession(t, m)
	// a thinking block in the main transcript and in the subagent's: a
	// change of two files, so that it can be killed between its renames
	for _, p := range []string{filepath.Join(m.proj, id+".jsonl"), agent} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var out []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if strings.Contains(l, `"role":"assistant"`) {
				l = strings.Replace(l, `"message":{"content":[`, `"message":{"content":[{"type":"thinking","thinking":"hm","signature":"c2ln"},`, 1)
			}
			out = append(out, l)
		}
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(out, "")), 0o644))
	}
	backdate(t, m.root)
	require.True(t, runKilled(t, m, "between-renames", "strip-thinking", id), "the change was not killed between its renames")
	cp := filepath.Join(m.root, "copy")
	require.NoError(t, copyTreeKeepingTimes(m.cfg, cp))
	before := hashTree(t, m.cfg)
	r := runCLI(t, "--config-dir="+cp, "strip-thinking", id, "--force")
	assert.Equal(t, before, hashTree(t, m.cfg), "a change in the copy changed the original config dir: %s%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, filepath.Join(cp, "ccsurgeon", "backups"), "the journal left alone is not named")
}
