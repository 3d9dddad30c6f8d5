package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The session shapes that only the newest client's interactive UI writes:
// each is one recipe here, played by cmd/gentestdata into testdata/sessions
// (MakeTUIShape plays one in any Env, for a test that wants it made anew).

// TUIWidth and TUIHeight are the size of the terminal the TUI shapes and
// tests run the client in.
const TUIWidth, TUIHeight = 200, 50

// StartReady starts client c's TUI in e (TUIWidth x TUIHeight,
// --dangerously-skip-permissions and args) and waits until its start-up is
// over; screens are saved in captureDir when a wait fails. The caller
// closes it.
func (e *Env) StartReady(c Client, captureDir string, args ...string) (*TUI, error) {
	tui, err := e.StartTUI(c, TUIWidth, TUIHeight, append([]string{"--dangerously-skip-permissions"}, args...)...)
	if err != nil {
		return nil, err
	}
	tui.CaptureDir = captureDir
	if err := tui.WaitIdle("startup"); err != nil {
		tui.Close()
		return nil, err
	}
	return tui, nil
}

// TUIShape is a session shape the interactive client writes.
type TUIShape struct {
	Name, Desc string
	// Env is added to the client's environment.
	Env []string
	// Play drives the client after its start-up; the client is quit after.
	Play func(e *Env, c Client, tui *TUI) error
	// Session picks, once the client has quit, the session the shape is
	// about among those it wrote (Env.Cwd names the folder it is in).
	Session func(e *Env) (string, error)
	// Others names the other sessions the client wrote that are shapes too
	// (a suffix of the shape's name -> the session's id).
	Others func(e *Env, id string) (map[string]string, error)
}

// MakeTUIShape plays shape s with client c in e and returns the id of the
// session it is about. A background service the client started (/fork) is
// stopped before it returns, whatever happened.
func (e *Env) MakeTUIShape(c Client, s TUIShape, captureDir string) (id string, err error) {
	e.ExtraEnv = append(e.ExtraEnv, s.Env...)
	defer func() {
		if serr := e.StopBackground(c); serr != nil && err == nil {
			err = serr
		}
		if err != nil && captureDir != "" {
			err = fmt.Errorf("%s: %w\n(screen captures in %s)", s.Name, err, captureDir)
		}
	}()
	tui, err := e.StartReady(c, captureDir)
	if err != nil {
		return "", err
	}
	defer tui.Close()
	if err := s.Play(e, c, tui); err != nil {
		return "", err
	}
	if err := tui.Exit(); err != nil {
		return "", err
	}
	tui.Close()
	return s.Session(e)
}

// TUIShapes are the interactive shapes of issue 28; cmd/gentestdata plays
// them into testdata/sessions, where the tests read them.
var TUIShapes = []TUIShape{
	{
		Name: "branch", Desc: "/branch after two turns, then a third turn: the branch's file, whose entries keep their uuids and carry forkedFrom",
		Play: func(e *Env, c Client, tui *TUI) error {
			if err := twoTurnsThen(tui, "/branch"); err != nil {
				return err
			}
			return tui.Turn("Third question.", "Third answer.", Text("Third answer."))
		},
		Session: sessionWhose(`the file that starts with the copied conversation, with forkedFrom`, func(b []byte) bool {
			return bytes.HasPrefix(b, []byte(`{"parentUuid":null`)) && bytes.Contains(b, []byte(`"forkedFrom":{"sessionId":"`))
		}),
	},
	{
		Name: "rewind-before-clear", Desc: "two turns, /clear, a turn, /rewind to the point before /clear and a new turn: the file after /clear holds two branches that part at the /clear records",
		Play: func(e *Env, c Client, tui *TUI) error {
			if err := twoTurnsThen(tui, "/clear"); err != nil {
				return err
			}
			if err := tui.Turn("Third question.", "Third answer.", Text("Third answer.")); err != nil {
				return err
			}
			steps := []func() error{
				func() error { return tui.Type("/rewind") },
				func() error { _, err := tui.WaitText(TUIStep, "Restore"); return err },
				func() error { return tui.Keys("Enter") },
				func() error { _, err := tui.WaitText(TUIStep, "(current)"); return err },
				func() error { return tui.Select("Up", "/clear") },
				func() error { return tui.Keys("Enter") },
				func() error { _, err := tui.WaitText(TUIStep, "Restore conversation"); return err },
				func() error { return tui.Select("Down", "Restore conversation") },
				func() error { return tui.Keys("Enter") },
				func() error { return tui.WaitIdle("after /rewind") },
				func() error { return tui.Keys("C-u") },
			}
			for _, step := range steps {
				if err := step(); err != nil {
					return err
				}
			}
			time.Sleep(500 * time.Millisecond)
			return tui.Turn("Another question.", "Another answer.", Text("Another answer."))
		},
		Session: sessionWhose("the file after /clear, with both branches", func(b []byte) bool {
			return bytes.Contains(b, []byte(`"content":"Another question."`)) && bytes.Contains(b, []byte(`"content":"Third question."`))
		}),
	},
	{
		Name: "cd", Desc: "a turn, /cd into another folder (the session's file moves to its project folder, a relocated entry), a turn",
		Play: func(e *Env, c Client, tui *TUI) error {
			other := filepath.Join(filepath.Dir(e.Cwd), "other")
			if err := os.MkdirAll(other, 0o755); err != nil {
				return err
			}
			if err := tui.Turn("First question.", "First answer.", Text("First answer.")); err != nil {
				return err
			}
			if err := tui.Submit("/cd " + other); err != nil {
				return err
			}
			if _, err := tui.WaitText(TUIStep, "Yes, move here"); err != nil {
				return err
			}
			if err := tui.Select("Down", "Yes, move here"); err != nil {
				return err
			}
			if err := tui.Keys("Enter"); err != nil {
				return err
			}
			time.Sleep(2 * time.Second)
			if err := tui.WaitIdle("after /cd"); err != nil {
				return err
			}
			if err := tui.Turn("Second question.", "Second answer.", Text("Second answer.")); err != nil {
				return err
			}
			e.Cwd = other // where the session lives now, and where the client resumes it
			return nil
		},
		Session: sessionWhose("the one session in the new folder's project folder", func([]byte) bool { return true }),
	},
	{
		Name: "fork-session", Desc: "/fork PROMPT after two turns (agent view on, as by default): the client copies the conversation into a background session that the background service runs; that session's file (every uuid kept, no forkedFrom, the new prompt answered, then the client's <fork-source> notification)",
		Play: func(e *Env, c Client, tui *TUI) error {
			if err := twoTurns(tui); err != nil {
				return err
			}
			e.Mock.Enqueue(Text("Forked answer."))
			if err := tui.Submit("/fork Say the forked thing."); err != nil {
				return err
			}
			// the background session answers, then the client writes its
			// notification: stop the service there (it would go on alone)
			if err := waitFor(TUIStep, "the background session's answer and notification", func() bool {
				id, _ := sessionWith(e, func(b []byte) bool {
					return isForkSession(b) && bytes.Contains(b, []byte(`"text":"Forked answer."`)) && bytes.Contains(b, []byte(`<fork-source>`))
				})
				return id != ""
			}); err != nil {
				return err
			}
			if err := e.StopBackground(c); err != nil {
				return err
			}
			return tui.Turn("Third question.", "Third answer.", Text("Third answer."))
		},
		Session: sessionWhose("the background session's file", isForkSession),
		Others: func(e *Env, id string) (map[string]string, error) {
			ids, err := e.SessionIDs()
			if err != nil {
				return nil, err
			}
			for _, s := range ids {
				if s != id {
					return map[string]string{"parent": s}, nil
				}
			}
			return nil, fmt.Errorf("no parent session beside the fork %s", id)
		},
	},
	{
		Name: "fork-agent", Desc: "/fork DIRECTIVE after two turns with agent view off (CLAUDE_CODE_DISABLE_AGENT_VIEW=1): a worker fork, a subagent whose transcript starts with a fork-context-ref entry naming the parent's last entry; its <task-notification> answered, then a third turn",
		Env: []string{"CLAUDE_CODE_DISABLE_AGENT_VIEW=1"},
		Play: func(e *Env, c Client, tui *TUI) error {
			if err := twoTurns(tui); err != nil {
				return err
			}
			e.Mock.EnqueueSubagent(Text("Forked answer."))
			e.Mock.Enqueue(Text("Noted the fork."))
			if err := tui.Submit("/fork Say the forked thing."); err != nil {
				return err
			}
			if _, err := tui.WaitStable("the fork's notification answered", TUIStep, time.Second, func(s string) bool {
				return Idle(s) && strings.Contains(s, "Noted the fork.") && e.Mock.Pending(KindMain) == 0 && e.Mock.Pending(KindSubagent) == 0
			}); err != nil {
				return err
			}
			return tui.Turn("Third question.", "Third answer.", Text("Third answer."))
		},
		Session: sessionWhose("the session", func([]byte) bool { return true }),
	},
}

// twoTurnsThen plays twoTurns, then the command cmd, and waits until the
// client is idle after it.
func twoTurnsThen(tui *TUI, cmd string) error {
	if err := twoTurns(tui); err != nil {
		return err
	}
	if err := tui.Submit(cmd); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	return tui.WaitIdle("after " + cmd)
}

// twoTurns plays the two turns most shapes start with.
func twoTurns(tui *TUI) error {
	if err := tui.Turn("First question.", "First answer.", Text("First answer.")); err != nil {
		return err
	}
	return tui.Turn("Second question.", "Second answer.", Text("Second answer."))
}

// isForkSession: the file of a background session /fork started (it opens
// with the client's title and agent name records).
func isForkSession(b []byte) bool {
	return bytes.Contains(b, []byte(`{"type":"agent-name","agentName":"⑂ `))
}

// sessionWith returns the id of the one session of e's project folder
// whose file satisfies is, "" when none does.
func sessionWith(e *Env, is func([]byte) bool) (string, error) {
	ids, err := e.SessionIDs()
	if err != nil {
		return "", err
	}
	found := ""
	for _, id := range ids {
		b, err := os.ReadFile(e.SessionPath(id))
		if err != nil {
			return "", err
		}
		if is(b) {
			if found != "" {
				return "", fmt.Errorf("two sessions are the shape's: %s and %s", found, id)
			}
			found = id
		}
	}
	return found, nil
}

// sessionWhose is a TUIShape.Session that picks the one session whose file
// satisfies is.
func sessionWhose(what string, is func([]byte) bool) func(e *Env) (string, error) {
	return func(e *Env) (string, error) {
		id, err := sessionWith(e, is)
		if err == nil && id == "" {
			err = fmt.Errorf("no session in %s is %s", e.ProjectDir(), what)
		}
		return id, err
	}
}

// waitFor polls cond every 200 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// StopBackground stops the background service that client c started in e
// (2.1.332's /fork starts one; it outlives the TUI) and waits until it has
// let go of the config dir; without a service it does nothing.
func (e *Env) StopBackground(c Client) error {
	lock := filepath.Join(e.ConfigDir, "daemon.lock")
	if _, err := os.Stat(lock); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := c.Command(ctx, "daemon", "stop", "--any")
	cmd.Env = e.Environ()
	cmd.Dir = e.Cwd
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("claude daemon stop --any: %v: %s", err, out)
	}
	return waitFor(30*time.Second, "the background service to stop", func() bool {
		_, err := os.Stat(lock)
		return err != nil
	})
}
