package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

// The shapes issue 12 lists that the first generated corpus lacked: parallel
// calls of 4 and 5 tools finishing out of order, a denied permission, an
// interrupted turn, an image, hooks, a background task, an automatic
// compaction and a long tool loop.
//
// Folders: shapes/ holds what TestShapesResumeWithSpec resumes with the real
// clients; inprocess/ holds what only the in-process spec check
// (TestSpecEveryOperationEverySession, which walks all of testdata/sessions)
// reads: more permutations of a shape already in shapes/, and the long
// session, so that the real-client tests stay fast.

const inprocess = "inprocess"

func init() {
	shape := func(sc scenario) scenario { sc.sub = "shapes"; return sc }
	par := func(tools []string, order []int, sub string, onlyNew bool) scenario {
		name := fmt.Sprintf("parallel%d-order-%s", len(tools), strings.ReplaceAll(orderString(order), ",", ""))
		sc := parallelScenario(name, tools, order)
		sc.sub, sc.onlyNew = sub, onlyNew
		return sc
	}
	old := func(sc scenario, sub string) scenario { sc.oldSub = sub; return sc }
	bash := func(n int) []string { return strings.Split(strings.Repeat("Bash,", n-1)+"Bash", ",") }
	scenarios = append(scenarios,
		// two calls finishing in their own order (parallel-out-of-order is
		// the other order)
		par(bash(2), []int{0, 1}, inprocess, false),
		// four and five calls: reversed, and interleaved. The interleaved
		// 5 is resumed by the real 2.1.x client; 2.0.x chains results in a
		// line whatever the order, so its files are read in process only.
		par(bash(4), []int{3, 2, 1, 0}, inprocess, true),
		par(bash(4), []int{1, 3, 0, 2}, inprocess, true),
		par(bash(5), []int{4, 3, 2, 1, 0}, inprocess, true),
		old(par(bash(5), []int{2, 0, 4, 1, 3}, "shapes", false), inprocess),

		// an is_error tool_result like tool-errors': in process only
		scenario{name: "permission-denied", sub: inprocess, desc: "print mode without --dangerously-skip-permissions: a Bash call the default permission mode refuses (is_error result), a Read it allows, then a 2nd turn", run: runPermissionDenied},
		shape(scenario{name: "interrupted", desc: "a turn whose Bash call (sleep 30) is interrupted by SIGINT to the print-mode client, then a 2nd turn resuming it", run: runInterrupted}),
		// an image block inside a tool_result: checked with the real
		// clients by the CCSURGEON_SHAPES=all run, in process by default
		scenario{name: "image", sub: inprocess, desc: "Read of a PNG file: the tool_result carries an image block; then a 2nd turn", run: runImage},
		old(shape(scenario{name: "hooks", desc: "project .claude/settings.json with PostToolUse and Stop hooks: the Stop hook blocks once (exit 2), so the client answers its feedback; then a 2nd turn", run: runHooks}), inprocess),
		scenario{name: "background-task", sub: inprocess, desc: "Bash with run_in_background, then reading its output (2.1.x: Read of the output file, 2.0.x: BashOutput); then a 2nd turn", run: runBackground},
		shape(scenario{name: "auto-compact", desc: "2 turns, the 2nd reporting input tokens near the context window: the client compacts on its own after the 3rd prompt, before answering it", run: runAutoCompact}),
		old(shape(scenario{name: "image-prompt", desc: "a prompt holding an image block and a question (sent with --input-format stream-json), then a 2nd turn", run: runImagePrompt}), inprocess),
		scenario{name: "long-turns", sub: inprocess, desc: "150 turns sent to one print-mode process (--input-format stream-json), each a prompt and a text answer", run: runLongTurns},
		scenario{name: "long-tool-loop", sub: inprocess, desc: "one turn of 200 sequential Bash calls (short outputs), then a 2nd turn", run: runLongToolLoop},
	)
}

func runPermissionDenied(g *gen) (string, error) {
	f := filepath.Join(g.env.Cwd, "data.txt")
	if err := os.WriteFile(f, []byte("alpha\n"), 0o644); err != nil {
		return "", err
	}
	sid, err := g.turnArgs("", "Delete the build folder and read data.txt.", []harness.Reply{
		harness.Bash("rm -rf build && echo removed"),
		harness.Read(f),
		harness.Text("I was not allowed to run rm; data.txt says alpha."),
	}, "--permission-mode", "default")
	if err != nil {
		return "", err
	}
	g.log = append(g.log, fmt.Sprintf("permission_denials: %v", g.last.Raw["permission_denials"]))
	if !strings.Contains(fmt.Sprint(g.last.Raw["permission_denials"]), "Bash") && !g.c.IsOld() {
		return "", fmt.Errorf("the Bash call was not denied: %s", g.last.Stdout)
	}
	_, err = g.turnArgs(sid, "Fine, leave it.", []harness.Reply{harness.Text("Left as is.")}, "--permission-mode", "default")
	return sid, err
}

// runInterrupted starts a print-mode turn whose Bash call sleeps, sends the
// client SIGINT (Ctrl-C) while the call runs, then resumes the session.
func runInterrupted(g *gen) (string, error) {
	sid, err := g.turn("", "Say hello.", []harness.Reply{harness.Text("Hello.")})
	if err != nil {
		return "", err
	}
	marker := filepath.Join(g.env.Cwd, "started")
	g.env.Mock.Enqueue(harness.Bash("touch "+marker+" && sleep 30 && echo slow-done"), harness.Text("never sent"))
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	cmd := g.c.Command(ctx, "-p", "Run the slow job.", "--output-format", "json", "--dangerously-skip-permissions", "--resume", sid)
	cmd.Dir, cmd.Env = g.env.Cwd, g.env.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return "", fmt.Errorf("the slow Bash call never started: %s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	werr := cmd.Wait()
	g.log = append(g.log, fmt.Sprintf("after SIGINT: %v, output %q", werr, out.String()))
	data, _ := os.ReadFile(g.env.SessionPath(sid))
	g.log = append(g.log, "after SIGINT the file ends with: "+lastTypes(data, 4))
	g.env.Mock.Reset()
	_, err = g.turn(sid, "What happened?", []harness.Reply{harness.Text("The slow job was interrupted.")})
	return sid, err
}

// png writes a small PNG (a 16x16 gradient).
func writePNG(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := 0; x < 16; x++ {
		for y := 0; y < 16; y++ {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 16), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func runImage(g *gen) (string, error) {
	f := filepath.Join(g.env.Cwd, "logo.png")
	if err := writePNG(f); err != nil {
		return "", err
	}
	sid, err := g.turn("", "Look at logo.png.", []harness.Reply{harness.Read(f), harness.Text("It is a small gradient.")})
	if err != nil {
		return "", err
	}
	data, _ := os.ReadFile(g.env.SessionPath(sid))
	if !bytes.Contains(data, []byte(`"type":"image"`)) {
		return "", fmt.Errorf("no image block in the session")
	}
	_, err = g.turn(sid, "Thanks.", []harness.Reply{harness.Text("You are welcome.")})
	return sid, err
}

func runHooks(g *gen) (string, error) {
	dir := filepath.Join(g.env.Cwd, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	flag := filepath.Join(g.env.Cwd, "stop-hook-blocked")
	settings := map[string]any{"hooks": map[string]any{
		"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "echo post-tool-use hook ran"}}}},
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": "cat >/dev/null; if [ -f " + flag + " ]; then echo stop hook passed; exit 0; fi; touch " + flag + "; echo 'stop hook: say the word done first' >&2; exit 2"}}}},
	}}
	b, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o644); err != nil {
		return "", err
	}
	sid, err := g.turn("", "Run a command.", []harness.Reply{
		harness.Bash("echo hooked"),
		harness.Text("Ran it."),
		harness.Text("done"),
	})
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(flag); err != nil {
		return "", fmt.Errorf("the Stop hook did not run")
	}
	_, err = g.turn(sid, "Thanks.", []harness.Reply{harness.Text("You are welcome.")})
	return sid, err
}

// runBackground answers with a background Bash call, then a call of the
// output tool naming the id the client returned in the tool result.
func runBackground(g *gen) (string, error) {
	step := 0
	var outTool string
	g.env.Mock.SetHandler(func(r *harness.RecordedRequest) (harness.Reply, bool) {
		if r.Kind != harness.KindMain || step >= 3 {
			return harness.Reply{}, false
		}
		// the last message holding a tool result (2.1.x sends system
		// messages after it)
		last := ""
		for _, m := range r.Messages() {
			if bytes.Contains(m, []byte(`"tool_result"`)) {
				last = string(m)
			}
		}
		switch step {
		case 0:
			step++
			return harness.Blocks(harness.ToolUse("Bash", map[string]any{"command": "sleep 1 && echo background-done", "description": "background job", "run_in_background": true})), true
		case 1:
			step++
			// neither output tool waits: give the job time to finish
			time.Sleep(1500 * time.Millisecond)
			if g.c.IsOld() {
				// 2.0.x: "<bash_id>...", read with BashOutput
				id := backgroundID(last)
				g.log = append(g.log, fmt.Sprintf("background id %q from %s", id, last))
				outTool = "BashOutput"
				return harness.Blocks(harness.ToolUse(outTool, map[string]any{"bash_id": id})), true
			}
			// 2.1.x has no output tool: "Output is being written to: PATH.
			// ... use Read on that file path."
			m := outputPathRe.FindStringSubmatch(last)
			if m == nil {
				g.log = append(g.log, "no output path in: "+last)
				return harness.Reply{}, false
			}
			outTool = "Read"
			return harness.Read(m[1]), true
		default:
			step++
			g.log = append(g.log, fmt.Sprintf("%s result: %s", outTool, last))
			return harness.Text("The background job finished."), true
		}
	})
	sid, err := g.turn("", "Start the job in the background.", nil)
	g.env.Mock.SetHandler(nil)
	if err != nil {
		return "", err
	}
	if step != 3 {
		return "", fmt.Errorf("background scenario stopped at step %d", step)
	}
	_, err = g.turn(sid, "Thanks.", []harness.Reply{harness.Text("You are welcome.")})
	return sid, err
}

var outputPathRe = regexp.MustCompile(`Output is being written to: (\S+?\.output)`)

// backgroundID finds the id of a background shell in a tool result text
// ("... with ID: b1a2c3 ..." or "<bash_id>...</bash_id>").
func backgroundID(s string) string {
	s = strings.ReplaceAll(s, `\n`, "\n")
	for _, key := range []string{"with ID: ", "ID: ", "<bash_id>", "task_id", "shell_id"} {
		if k := strings.Index(s, key); k >= 0 {
			rest := strings.TrimLeft(s[k+len(key):], `": =`)
			end := strings.IndexFunc(rest, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
			})
			if end > 0 {
				return rest[:end]
			}
		}
	}
	return ""
}

func runAutoCompact(g *gen) (string, error) {
	sid, err := g.turn("", "Remember the number 42.", []harness.Reply{harness.Text("Noted: 42.")})
	if err != nil {
		return "", err
	}
	// above the threshold of the model's context window (1M tokens for
	// 2.1.x's default model, 200k for 2.0.x's)
	big := harness.Text("Done.")
	big.InputTokens = 990000
	if g.c.IsOld() {
		big.InputTokens = 195000
	}
	if _, err := g.turn(sid, "Run a command.", []harness.Reply{harness.Bash("echo before-compact"), big}); err != nil {
		return "", err
	}
	_, err = g.turn(sid, "What number did I say?", []harness.Reply{harness.Text("You said 42.")})
	if err != nil {
		return "", err
	}
	if len(g.env.Mock.RequestsOf(harness.KindCompact)) == 0 {
		return "", fmt.Errorf("no automatic compaction request")
	}
	return sid, nil
}

func runLongToolLoop(g *gen) (string, error) {
	const n = 200
	var rs []harness.Reply
	for k := 1; k <= n; k++ {
		rs = append(rs, harness.Blocks(harness.ToolUse("Bash", map[string]any{"command": fmt.Sprintf("echo %d", k), "description": "step"})))
	}
	rs = append(rs, harness.Text("Counted to 200."))
	sid, err := g.turn("", "Count to 200, one command each.", rs, "--max-turns", "1000")
	if err != nil {
		return "", err
	}
	_, err = g.turn(sid, "Thanks.", []harness.Reply{harness.Text("You are welcome.")})
	return sid, err
}

// runLongTurns sends 150 prompts to one print-mode process.
func runLongTurns(g *gen) (string, error) {
	const n = 150
	var prompts []any
	for k := 1; k <= n; k++ {
		g.env.Mock.Enqueue(harness.Text(fmt.Sprintf("Answer %d.", k)))
		prompts = append(prompts, fmt.Sprintf("Turn %d.", k))
	}
	return streamTurns(g, prompts)
}

// runImagePrompt sends a prompt holding an image block (as a pasted
// screenshot is sent), then a text prompt.
func runImagePrompt(g *gen) (string, error) {
	f := filepath.Join(g.env.Cwd, "shot.png")
	if err := writePNG(f); err != nil {
		return "", err
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", err
	}
	g.env.Mock.Enqueue(harness.Text("A small gradient."), harness.Text("You are welcome."))
	return streamTurns(g, []any{
		[]any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(b)}},
			map[string]any{"type": "text", "text": "What is in this screenshot?"},
		},
		"Thanks.",
	})
}

// streamTurns sends prompts (each a string or a list of content blocks)
// to one print-mode process (--input-format stream-json), each after the
// answer to the one before (prompts queued while a turn runs are merged
// into one): each is a turn of its own, without the ~40 KB of records
// every new 2.1.x process writes.
func streamTurns(g *gen, prompts []any) (string, error) {
	n := len(prompts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := g.c.Command(ctx, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions")
	cmd.Dir, cmd.Env = g.env.Cwd, g.env.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for k := 1; k <= n; k++ {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompts[k-1]}})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			return "", fmt.Errorf("turn %d: %v\n%s", k, err, errb.String())
		}
		for {
			if !sc.Scan() {
				return "", fmt.Errorf("turn %d: the client stopped: %v\n%s", k, sc.Err(), errb.String())
			}
			var ev struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "result" {
				break
			}
		}
	}
	stdin.Close()
	for sc.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("stream-json run: %v\n%s", err, errb.String())
	}
	if p := g.env.Mock.Pending(harness.KindMain); p > 0 {
		return "", fmt.Errorf("%d answers unused after %d prompts\nstderr: %s", p, n, errb.String())
	}
	ids, err := g.env.SessionIDs()
	if err != nil || len(ids) != 1 {
		return "", fmt.Errorf("want 1 session, got %v (%v)", ids, err)
	}
	return ids[0], nil
}
