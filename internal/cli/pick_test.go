//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal of 24×100: the master end (what a
// terminal emulator reads and types into) and the slave end (the
// terminal a program runs on).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	require.NoError(t, err)
	var unlock int32
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock)))
	require.Zero(t, e, "unlockpt")
	var n uint32
	_, _, e = syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n)))
	require.Zero(t, e, "ptsname")
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	ws := [4]uint16{24, 100, 0, 0}
	_, _, e = syscall.Syscall(syscall.SYS_IOCTL, s.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	require.Zero(t, e, "window size")
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// screen collects what a program writes to a terminal.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitForMatch waits until what the screen shows from byte from on
// matches re: a frame is drawn in several writes, and its rows may come
// after its header.
func (s *screen) waitForMatch(t *testing.T, re string, from int) {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(10 * time.Second)
	for !rx.MatchString(s.String()[from:]) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", re, s.String()[from:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor waits until the screen shows want n times.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q %d times; it shows %q", want, n, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPickOnATerminal: on a terminal, --pick lists this folder's
// project's sessions newest first (id, age, size, tokens, title) and the
// arrow keys choose one; the list is erased and the terminal left as it
// was. Off a terminal it is a numbered list and the number is read.
func TestPickOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("stty"); err != nil {
		t.Fatal("stty is needed to put a terminal in raw mode")
	}
	cfg, older, newer := twoSessionsOfThisFolder(t)

	master, slave := openPTY(t)
	before, err := stty(slave, "-g")
	require.NoError(t, err)
	var scr screen
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			scr.mu.Lock()
			scr.b.Write(buf[:n])
			scr.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	var out bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "info", "--pick"}, slave, &out, slave)
	}()
	scr.waitFor(t, "Enter to choose", 1)
	scr.waitForMatch(t, `\n\r  `+idOf(older)[:8], 0) // the last row of the first frame
	frame := scr.String()
	assert.Regexp(t, `ID\s+AGE\s+SIZE\s+RECORDED\s+TITLE OR FIRST PROMPT`, frame)
	assert.Regexp(t, `\x1b\[7m> `+idOf(newer)[:8]+`\s+1h ago\s+[\d.]+ KB\s+[\d,]+\s+\S`, frame, "the newest first, highlighted")
	assert.Regexp(t, `\n\r  `+idOf(older)[:8]+`\s+3h ago`, frame)
	_, err = master.Write([]byte("\x1b[B")) // arrow down
	require.NoError(t, err)
	scr.waitForMatch(t, `\x1b\[7m> `+idOf(older)[:8], len(frame)) // the highlight moved down
	_, err = master.Write([]byte("\r"))
	require.NoError(t, err)
	select {
	case code := <-done:
		assert.Equal(t, 0, code, "screen: %q", scr.String())
	case <-time.After(20 * time.Second):
		t.Fatal("ccsurgeon did not finish after Enter")
	}
	assert.Contains(t, out.String(), "session      "+idOf(older), "info of the session picked")
	after, err := stty(slave, "-g")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the terminal is left as it was")
	time.Sleep(50 * time.Millisecond)
	assert.True(t, strings.HasSuffix(scr.String(), "\x1b[J\x1b[?25h"), "the list is erased and the cursor shown: %q", scr.String())

	// q cancels: exit 1, nothing done
	out.Reset()
	go func() {
		done <- run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "info", "--pick"}, slave, &out, slave)
	}()
	scr.waitFor(t, "Enter to choose", 3)
	_, err = master.Write([]byte("q"))
	require.NoError(t, err)
	assert.Equal(t, 1, <-done)
	assert.Empty(t, out.String())
	scr.waitFor(t, "ccsurgeon: no session picked", 1)

	// off a terminal: a numbered list, the number read from stdin
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "info", "--pick"}, strings.NewReader("2\n"), &o, &e)
	assert.Equal(t, 0, code, e.String())
	// the number read is echoed (no terminal did), so what follows starts
	// a line: the prompt is no longer followed by the output or an error
	assert.Regexp(t, `(?s)^\s+ID\s+AGE.*\n\s+1\s+`+idOf(newer)[:8]+`.*\n\s+2\s+`+idOf(older)[:8]+`.*session \(1-2\): 2\n$`, e.String())
	assert.Contains(t, o.String(), "session      "+idOf(older))
	e.Reset()
	code = run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "info", "--pick"}, strings.NewReader(""), &o, &e)
	assert.Equal(t, 2, code)
	assert.Regexp(t, `session \(1-2\): \nccsurgeon: no session picked: want a number from 1 to 2, got ""\nccsurgeon: hint: [^\n]+\n$`, e.String())

	// a clone has its original's title: the list says which it is
	_, e2, code := cliRun(t, "--config-dir", cfg, "clone", older)
	require.Equal(t, 0, code, e2)
	e.Reset()
	run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "info", "--pick"}, strings.NewReader("\n"), &o, &e)
	assert.Regexp(t, `\(clone of `+idOf(older)[:8]+`\) Run some shell commands`, e.String())
}

func stty(f *os.File, args ...string) (string, error) {
	cmd := exec.Command("stty", args...)
	cmd.Stdin = f
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// Trial finding (2026-11-23): the README says every command that takes
// SESSION takes --pick; turns refused it ("unknown flag --pick"). Off a
// terminal the number is read from stdin.
func TestTurnsPick(t *testing.T) {
	cfg, older, newer := twoSessionsOfThisFolder(t)
	for n, want := range map[string]string{"1": newer, "2": older} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "--json", "turns", "--pick"}, strings.NewReader(n+"\n"), &out, &errb)
		require.Equal(t, 0, code, errb.String())
		var direct bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "--json", "turns", idOf(want)}, strings.NewReader(""), &direct, &errb))
		assert.JSONEq(t, direct.String(), out.String(), "pick %s", n)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"ccsurgeon", "--config-dir", cfg, "turns", "--pick", idOf(newer)}, strings.NewReader("1\n"), &out, &errb)
	assert.Equal(t, 2, code, "--pick and a SESSION: %s", errb.String())
}
