package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// TUI is an interactive Claude Code client running in a private tmux server (its own
// socket, so other tmux sessions are never touched). It is the way to produce what print
// mode does not write: /rewind branches, file-history-* entries.
type TUI struct {
	Socket  string // tmux socket path (tmux -S)
	Session string // tmux session name
	// CaptureDir, if set, receives a numbered screen capture for every Snapshot call and
	// for every failed wait (debug aid).
	CaptureDir string
	nCapture   int
}

// StartTUI starts the client c interactively (args appended, e.g.
// "--dangerously-skip-permissions") in the env's cwd with the env's environment, in a
// detached tmux session of width x height cells. Call Close when done.
func (e *Env) StartTUI(c Client, width, height int, args ...string) (*TUI, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, fmt.Errorf("tmux not found (apt-get install tmux): %w", err)
	}
	t := &TUI{Socket: filepath.Join(filepath.Dir(e.Home), "tmux.sock"), Session: "cc"}
	// The command is run without a shell (several arguments): env -i gives the client
	// exactly Env.Environ(), not the tmux server's environment.
	argv := []string{"new-session", "-d", "-s", t.Session, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", e.Cwd, "--", "env", "-i"}
	argv = append(argv, e.Environ()...)
	argv = append(argv, c.Argv...)
	argv = append(argv, args...)
	if out, err := t.tmux(argv...); err != nil {
		return nil, fmt.Errorf("tmux new-session: %v: %s", err, out)
	}
	return t, nil
}

func (t *TUI) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", t.Socket}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// Alive reports whether the client is still running.
func (t *TUI) Alive() bool {
	_, err := t.tmux("has-session", "-t", t.Session)
	return err == nil
}

// Capture returns the visible screen as text.
func (t *TUI) Capture() (string, error) {
	out, err := t.tmux("capture-pane", "-p", "-t", t.Session)
	if err != nil {
		return "", fmt.Errorf("capture-pane: %v: %s", err, out)
	}
	return out, nil
}

// Snapshot writes the current screen to CaptureDir (if set) as NN-label.txt and returns it.
func (t *TUI) Snapshot(label string) string {
	s, err := t.Capture()
	if err != nil {
		s = "capture failed: " + err.Error()
	}
	if t.CaptureDir != "" {
		t.nCapture++
		_ = os.MkdirAll(t.CaptureDir, 0o755)
		name := fmt.Sprintf("%02d-%s.txt", t.nCapture, strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return '_'
		}, label))
		_ = os.WriteFile(filepath.Join(t.CaptureDir, name), []byte(s), 0o644)
	}
	return s
}

// Keys sends tmux key names (Enter, Escape, Up, C-u ...).
func (t *TUI) Keys(keys ...string) error {
	out, err := t.tmux(append([]string{"send-keys", "-t", t.Session}, keys...)...)
	if err != nil {
		return fmt.Errorf("send-keys %v: %v: %s", keys, err, out)
	}
	return nil
}

// Type sends literal text (no Enter).
func (t *TUI) Type(text string) error {
	out, err := t.tmux("send-keys", "-t", t.Session, "-l", text)
	if err != nil {
		return fmt.Errorf("send-keys -l %q: %v: %s", text, err, out)
	}
	return nil
}

// Submit types text, waits a moment (so the input is not taken for a paste) and presses
// Enter.
func (t *TUI) Submit(text string) error {
	if err := t.Type(text); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond)
	return t.Keys("Enter")
}

// ErrWaitTimeout is wrapped by WaitFor errors.
var ErrWaitTimeout = errors.New("timed out waiting for the screen")

// WaitFor polls the screen until cond holds and returns that screen. On timeout (or if
// the client exits) the last screen is saved with Snapshot and returned in the error.
func (t *TUI) WaitFor(what string, timeout time.Duration, cond func(screen string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		s, err := t.Capture()
		if err == nil {
			last = s
			if cond(s) {
				return s, nil
			}
		} else if !t.Alive() {
			return last, fmt.Errorf("waiting for %s: the client exited; last screen:\n%s", what, last)
		}
		if time.Now().After(deadline) {
			t.Snapshot("timeout-" + what)
			return last, fmt.Errorf("%w: %s (after %s); last screen:\n%s", ErrWaitTimeout, what, timeout, last)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// WaitText waits until the screen contains every one of the strings.
func (t *TUI) WaitText(timeout time.Duration, want ...string) (string, error) {
	return t.WaitFor(strings.Join(want, "+"), timeout, func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// WaitStable waits until the screen satisfies cond and has not changed for quiet.
func (t *TUI) WaitStable(what string, timeout, quiet time.Duration, cond func(string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	var prev string
	since := time.Now()
	for {
		s, err := t.WaitFor(what, time.Until(deadline), cond)
		if err != nil {
			return s, err
		}
		if s != prev {
			prev, since = s, time.Now()
		} else if time.Since(since) >= quiet {
			return s, nil
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// WaitExit waits until the client has exited (the tmux session is gone).
func (t *TUI) WaitExit(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for t.Alive() {
		if time.Now().After(deadline) {
			t.Snapshot("timeout-exit")
			return fmt.Errorf("%w: client exit (after %s)", ErrWaitTimeout, timeout)
		}
		time.Sleep(150 * time.Millisecond)
	}
	return nil
}

// Close kills this TUI's private tmux server (and so the client, if still running).
func (t *TUI) Close() {
	_, _ = t.tmux("kill-server")
	_ = os.Remove(t.Socket)
}

// PromptLine returns the text after the input prompt "❯ " on the last line of the screen
// that starts with it (the input box), trimmed, and whether such a line was found.
func PromptLine(screen string) (string, bool) {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "❯"); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// FileHistoryDir returns <config>/file-history/<sessionId>, where 2.1.x keeps the file
// backups behind /rewind "restore code".
func (e *Env) FileHistoryDir(sessionID string) string {
	return filepath.Join(e.ConfigDir, "file-history", sessionID)
}

// InstallFileHistory copies a folder of file-history backups (e.g.
// testdata/sessions/2.1.328/rewind-file-history) to <config>/file-history/<sessionId>/.
func (e *Env) InstallFileHistory(srcDir, sessionID string) error {
	return CopyDir(srcDir, e.FileHistoryDir(sessionID))
}
