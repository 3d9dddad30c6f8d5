package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The trials of issue 13: two ccsurgeon writers at once, a process that
// appends to the session while ccsurgeon rewrites it, and kill -9 at every
// step of a write. Each logs its counts ("trial: …"); scripts/trials.sh
// runs them with more rounds (CCSURGEON_TRIALS=N).

func trialRounds(def int) int {
	if n, err := strconv.Atoi(os.Getenv("CCSURGEON_TRIALS")); err == nil && n > 0 {
		return n
	}
	return def
}

// trialSession has thinking (for strip-thinking) and an old long tool
// result (for compress-old-turns --keep-turns 0).
func trialSession(t *testing.T) *malEnv {
	m := newMalEnv(t)
	ls := malLines()
	ls[4] = malLine("assistant", 5, 4, `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]`)
	ls = append(ls, malLine("user", 6, 5, `[{"type":"tool_result","tool_use_id":"toolu_1","content":"`+strings.Repeat("y", 8000)+`"}]`),
		malLine("assistant", 7, 6, `[{"type":"text","text":"ok"}]`))
	m.write(t, join(ls, "\n"))
	backdate(t, m.root)
	return m
}

func startCLI(m *malEnv, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSafetyHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CCSURGEON_SAFETY_HELPER=-", "CCSURGEON_SAFETY_ARGS="+strings.Join(append([]string{"--config-dir=" + m.cfg}, args...), "\x1f"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestTrialTwoWriters runs strip-thinking and compress-old-turns on one
// session at the same moment. Whatever the order, every run that reports
// success has its change in the final file, the file validates, and a run
// that is refused names the other ccsurgeon.
func TestTrialTwoWriters(t *testing.T) {
	rounds := trialRounds(10)
	counts := map[string]int{}
	for i := range rounds {
		m := trialSession(t)
		a, aout := startCLI(m, "strip-thinking", malSession, "--force")
		b, bout := startCLI(m, "compress-old-turns", malSession, "--keep-turns", "0", "--max-result", "100B", "--force")
		require.NoError(t, a.Start())
		require.NoError(t, b.Start())
		ea, eb := exitCode(a.Wait()), exitCode(b.Wait())
		data, err := os.ReadFile(m.session())
		require.NoError(t, err)
		for _, r := range []struct {
			code int
			out  string
			done bool
		}{{ea, aout.String(), !bytes.Contains(data, []byte("let me think"))}, {eb, bout.String(), !bytes.Contains(data, []byte(strings.Repeat("y", 8000)))}} {
			switch {
			case r.code == 0:
				assert.True(t, r.done, "round %d: a run succeeded but its change is not in the file:\n%s", i, r.out)
			case r.code == 1 && strings.Contains(r.out, "another ccsurgeon"):
				assert.NotContains(t, r.out, "Claude Code", "round %d: the refusal blames Claude Code", i)
			default:
				t.Errorf("round %d: exit %d:\n%s", i, r.code, r.out)
			}
		}
		assert.Equal(t, 0, m.cli(t, "validate", m.session()).code, "round %d", i)
		counts[fmt.Sprintf("exit %d+%d", ea, eb)]++
	}
	t.Logf("trial: two writers, %d rounds: %v (exit 1 = refused: another ccsurgeon holds the session)", rounds, counts)
}

// appender appends numbered lines to path until stopped: with held, on one
// O_APPEND descriptor opened before ccsurgeon starts; else opening the file
// by name for each line (as Claude Code does), pausing pause between
// lines. It returns how many lines it wrote successfully.
func appender(t *testing.T, path string, held bool, pause string, stop <-chan struct{}) <-chan int {
	// a separate process, so that ccsurgeon sees it as another writer
	script := `i=0; while [ ! -e "$2" ]; do i=$((i+1)); printf '{"type":"queue-operation","operation":"enqueue","content":"appended %d","sessionId":"%s"}\n' $i "$3" >&3 || exit 1; echo $i > "$4"; done`
	if !held {
		script = `i=0; while [ ! -e "$2" ]; do i=$((i+1)); printf '{"type":"queue-operation","operation":"enqueue","content":"appended %d","sessionId":"%s"}\n' $i "$3" >> "$1" || exit 1; echo $i > "$4"; sleep ` + pause + `; done`
	}
	dir := t.TempDir()
	stopFile, countFile := filepath.Join(dir, "stop"), filepath.Join(dir, "count")
	cmd := exec.Command("sh", "-c", script, "sh", path, stopFile, malSession, countFile)
	if held {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		defer f.Close()
		cmd.ExtraFiles = []*os.File{f} // fd 3
	}
	require.NoError(t, cmd.Start())
	done := make(chan int, 1)
	go func() {
		<-stop
		os.WriteFile(stopFile, nil, 0o600)
		cmd.Wait()
		b, _ := os.ReadFile(countFile)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		done <- n
	}()
	return done
}

// TestTrialAppender rewrites a session in place while another process
// appends to it, both ways a process can append. No appended line is ever
// lost: either the rewrite is refused (nothing replaced) or every line is
// in the final file.
func TestTrialAppender(t *testing.T) {
	rounds := trialRounds(10)
	for _, mode := range []struct {
		held  bool
		pause string
	}{{true, ""}, {false, "0"}, {false, "0.05"}} {
		held := mode.held
		counts := map[string]int{}
		lost := 0
		for i := range rounds {
			m := trialSession(t)
			stop := make(chan struct{})
			got := appender(t, m.session(), held, mode.pause, stop)
			time.Sleep(time.Duration(i%5) * 3 * time.Millisecond)
			r := m.cli(t, "strip-thinking", malSession, "--force")
			time.Sleep(20 * time.Millisecond) // lines after the rewrite too
			close(stop)
			n := <-got
			data, err := os.ReadFile(m.session())
			require.NoError(t, err)
			missing := 0
			for k := 1; k <= n; k++ {
				if !bytes.Contains(data, []byte(fmt.Sprintf(`"appended %d"`, k))) {
					missing++
				}
			}
			lost += missing
			assert.Zero(t, missing, "round %d (held %v): %d of %d appended lines lost; exit %d\n%s%s", i, held, missing, n, r.code, r.stdout, r.stderr)
			switch {
			case r.code == 0:
				counts["rewritten"]++
				if strings.Contains(r.stdout, "carried over") {
					counts["rewritten, lines carried over"]++
				}
				assert.NotContains(t, string(data), "let me think")
			case strings.Contains(r.stderr, "open for writing in another process"):
				counts["refused: open for writing"]++
			case strings.Contains(r.stderr, "session changed while ccsurgeon was working"):
				counts["refused: changed"]++
			default:
				t.Errorf("round %d: exit %d: %s", i, r.code, r.stderr)
			}
			if n < 2 {
				t.Logf("round %d: the appender wrote only %d lines", i, n)
			}
		}
		how := "by name, one open per line, pausing " + mode.pause + " s"
		if held {
			how = "on one O_APPEND descriptor held open"
		}
		t.Logf("trial: appender %s, %d rounds: %v, lines lost: %d", how, rounds, counts, lost)
	}
}

// TestTrialKill9 kills the CLI (SIGKILL) at every named step of an
// in-place multi-file change, a restore and a new session, then runs the
// next command: the session is always the original or the complete
// result, validates, and nothing is left behind or listed.
func TestTrialKill9(t *testing.T) {
	steps := []string{"backup-copying", "after-backup", "after-fsync", "before-rename", "between-renames", "before-removals", "after-rename", "create-before-link", "new-after-sidecars"}
	cmds := [][]string{
		{"drop-tool-calls", "SID", "--tool", "Agent"},
		{"compress-old-turns", "SID", "--keep-turns", "0"},
		{"clone", "SID"},
	}
	var mu sync.Mutex
	counts := map[string]int{}
	for _, c := range cmds {
		for _, step := range steps {
			t.Run(c[0]+"@"+step, func(t *testing.T) {
				t.Parallel()
				m := newMalEnv(t)
				id, _ := copySubagentSession(t, m)
				orig := hashTree(t, m.proj)
				args := append([]string{}, c...)
				args[1] = id
				killed := runKilled(t, m, step, args...)
				// the next command on the session finishes or removes what
				// was left
				r := m.cli(t, "backups", id)
				require.Equal(t, 0, r.code, r.stderr)
				r = m.cli(t, "--json", "ls")
				require.Equal(t, 0, r.code, r.stderr)
				sessions := strings.Count(r.stdout, `"id"`)
				now := hashTree(t, m.proj)
				state := "original"
				if len(changes(orig, now)) > 0 {
					state = "result"
				}
				if c[0] == "clone" {
					assert.Equal(t, orig[filepath.Join(m.proj, id+".jsonl")], now[filepath.Join(m.proj, id+".jsonl")], "clone changed its original")
					if sessions == 2 {
						state = "result"
					} else {
						assert.Equal(t, 1, sessions, r.stdout)
						assert.Empty(t, changes(orig, now), "a killed clone left files")
					}
				}
				for p := range now {
					assert.NotContains(t, p, ".ccsurgeon-", "left behind: %s", p)
				}
				assert.Equal(t, 0, m.cli(t, "validate", id).code)
				if state == "result" && c[0] != "clone" {
					// the complete result: the same as a run that was not killed
					m2 := newMalEnv(t)
					id2, _ := copySubagentSession(t, m2)
					require.Equal(t, 0, m2.cli(t, append([]string{args[0], id2}, args[2:]...)...).code)
					want := hashTree(t, m2.proj)
					assert.Equal(t, len(want), len(now), "files of the result")
					for p, h := range want {
						assert.Equal(t, h, now[strings.Replace(p, m2.proj, m.proj, 1)], "%s differs from the complete result", p)
					}
				}
				// a partial backup is never listed; every listed one restores
				list, err := backup.List(m.cfg, id)
				require.NoError(t, err)
				for _, b := range list {
					_, err := os.Stat(filepath.Join(b.Dir, "manifest.json"))
					assert.NoError(t, err)
				}
				mu.Lock()
				counts[fmt.Sprintf("killed=%v %s", killed, state)]++
				mu.Unlock()
			})
		}
	}
	t.Cleanup(func() { t.Logf("trial: kill -9 at %d steps × %d commands: %v", len(steps), len(cmds), counts) })
}
