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
	env        *Env // the env it runs in: its mock answers the turns
}

// StartTUI starts the client c interactively (args appended, e.g.
// "--dangerously-skip-permissions") in the env's cwd with the env's environment, in a
// detached tmux session of width x height cells. Call Close when done.
func (e *Env) StartTUI(c Client, width, height int, args ...string) (*TUI, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, fmt.Errorf("tmux not found (apt-get install tmux): %w", err)
	}
	t := &TUI{Socket: filepath.Join(filepath.Dir(e.Home), "tmux.sock"), Session: "cc", env: e}
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

// Submit types text, waits until the client has drawn it in its input box
// and a moment more (so the input is not taken for a paste), presses Enter,
// and waits until the text has left the input box. On a busy machine a
// fixed pause was not enough: the client had not read the text yet, took
// the Enter with it as part of a paste, and the prompt stayed in the box
// unsent (a turn then timed out with the prompt still typed). Enter is
// pressed again only while the text is still in the box.
func (t *TUI) Submit(text string) error {
	if err := t.Type(text); err != nil {
		return err
	}
	want := squash(text)
	if _, err := t.WaitFor("typed "+text, TUIStep, func(s string) bool {
		return strings.Contains(squash(inputBox(s)), want)
	}); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond)
	for try := 0; ; try++ {
		if err := t.Keys("Enter"); err != nil {
			return err
		}
		_, err := t.WaitFor("sent "+text, 10*time.Second, func(s string) bool {
			return !strings.Contains(squash(inputBox(s)), want)
		})
		if err != nil && !t.Alive() {
			return nil // it was sent: /exit and the like end the client
		}
		if err == nil || !errors.Is(err, ErrWaitTimeout) || try == 2 {
			return err
		}
	}
}

// inputBox is the text of the client's input box: the lines between the
// last two of its borders, the prompt mark left out ("" when no box is
// drawn, as while a menu or dialog replaces it).
func inputBox(s string) string {
	lines := strings.Split(s, "\n")
	end := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(lines[i], "───") {
			continue
		}
		if end < 0 {
			end = i
			continue
		}
		box := strings.Join(lines[i+1:end], " ")
		return strings.Replace(box, "❯", "", 1)
	}
	return ""
}

// squash leaves out all white space (a long prompt wraps in the box,
// between words or inside one).
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

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

// TUIStep bounds one step of a TUI scenario: a start, a turn, a screen.
const TUIStep = 60 * time.Second

// Idle reports whether the TUI waits for input: the input box is drawn
// and nothing is running (the client runs with
// --dangerously-skip-permissions, whose notice shows under the box).
func Idle(s string) bool {
	_, ok := InputLine(s)
	return ok && strings.Contains(s, "bypass permissions on") && !strings.Contains(s, "esc to interrupt")
}

// InputLine is PromptLine, but only if the input box is drawn (the line is
// between two of the box's borders), so that the prompts in the transcript
// and the lines of a list do not count.
func InputLine(s string) (string, bool) {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 2; i >= 1; i-- {
		if strings.HasPrefix(lines[i], "❯") && strings.HasPrefix(lines[i+1], "───") && strings.HasPrefix(lines[i-1], "───") {
			return PromptLine(lines[i])
		}
	}
	return "", false
}

// WaitIdle waits until the client waits for input (Idle) and its screen
// has not changed for a second: the start-up is over.
func (t *TUI) WaitIdle(what string) error {
	_, err := t.WaitStable(what, TUIStep, time.Second, Idle)
	return err
}

// Select moves the cursor of a list with key until the selected line
// contains want. The selected line of a list is marked by an indented "❯"
// (the prompts of the transcript start with "❯" at column 0).
func (t *TUI) Select(key, want string) error {
	for i := 0; i < 12; i++ {
		s, err := t.Capture()
		if err != nil {
			return err
		}
		for _, l := range strings.Split(s, "\n") {
			if tl := strings.TrimLeft(l, " "); len(tl) < len(l) && strings.HasPrefix(tl, "❯") && strings.Contains(tl, want) {
				return nil
			}
		}
		if err := t.Keys(key); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
	}
	return fmt.Errorf("could not select %q with %s; screen:\n%s", want, key, t.Snapshot("select-"+want))
}

// Turn queues replies on the mock, submits prompt and waits until the
// screen shows answer, the client is idle and every reply was used; it
// fails on a request the API rules refuse.
func (t *TUI) Turn(prompt, answer string, replies ...Reply) error {
	t.env.Mock.Enqueue(replies...)
	if err := t.Submit(prompt); err != nil {
		return err
	}
	_, err := t.WaitStable("answer "+answer, TUIStep, time.Second, func(s string) bool {
		return strings.Contains(s, answer) && Idle(s) && t.env.Mock.Pending(KindMain) == 0
	})
	if err != nil {
		return fmt.Errorf("turn %q: %w", prompt, err)
	}
	t.Snapshot("after " + prompt)
	if vs := t.env.Mock.Violations(); len(vs) > 0 {
		return fmt.Errorf("turn %q: API-rule violations: %v", prompt, vs)
	}
	return nil
}

// Compact runs /compact and waits until the client sent the summary
// request and is idle again.
func (t *TUI) Compact() error {
	before := len(t.env.Mock.RequestsOf(KindCompact))
	if err := t.Submit("/compact"); err != nil {
		return err
	}
	_, err := t.WaitStable("compacted", TUIStep, 2*time.Second, func(s string) bool {
		return Idle(s) && len(t.env.Mock.RequestsOf(KindCompact)) > before
	})
	t.Snapshot("after /compact")
	return err
}

// Exit quits the client with /exit (Ctrl-C twice if that does not end it)
// and waits until it is gone.
func (t *TUI) Exit() error {
	if err := t.Submit("/exit"); err != nil {
		return err
	}
	if err := t.WaitExit(30 * time.Second); err != nil {
		_ = t.Keys("C-c")
		time.Sleep(300 * time.Millisecond)
		_ = t.Keys("C-c")
		return t.WaitExit(15 * time.Second)
	}
	return nil
}
