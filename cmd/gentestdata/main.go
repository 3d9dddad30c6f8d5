// Command gentestdata drives the real Claude Code clients against the harness mock and
// copies the resulting session files into testdata/sessions/<client-version>/<name>.jsonl
// (plus a <name>/ sidecar folder for subagent transcripts).
//
// Usage: go run ./cmd/gentestdata [-out testdata/sessions] [-only NAME] [-client VERSION]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/ccsurgeon/ccsurgeon/internal/harness"
)

type gen struct {
	c   harness.Client
	env *harness.Env
	log []string
	// last is the result of the last print-mode turn.
	last harness.RunResult
}

type scenario struct {
	name    string
	desc    string
	onlyNew bool
	// sub, if set, is a folder under <out>/<version> for the session (shapes
	// that only the spec tests read, so that the tests which resume every
	// session of a version stay fast).
	sub string
	// oldSub, if set, replaces sub for 2.0.x clients (a shape the old
	// client writes like one already resumed in the real-client tests)
	oldSub string
	run    func(g *gen) (string, error)
	// extra, if set, runs after the session is exported to dir (<out>/<version>).
	extra func(g *gen, sid, dir, name string) error
}

// turn runs one print-mode turn (resuming sid if non-empty) with the given main replies.
func (g *gen) turn(sid, prompt string, replies []harness.Reply, extra ...string) (string, error) {
	return g.turnArgs(sid, prompt, replies, append([]string{"--dangerously-skip-permissions"}, extra...)...)
}

// turnArgs is turn without the permission flag: args are all the options
// after -p PROMPT --output-format json.
func (g *gen) turnArgs(sid, prompt string, replies []harness.Reply, extra ...string) (string, error) {
	res, err := g.env.TurnErr(g.c, sid, prompt, replies, extra...)
	g.last = res
	if err != nil {
		return "", err
	}
	return res.SessionID, nil
}

func agentTool(c harness.Client) string {
	if c.IsOld() {
		return "Task"
	}
	return "Agent"
}

const fakeEnv = `DATABASE_URL=postgres://admin:S3cr3tPassw0rd!@db.internal.example:5432/prod
GITHUB_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8
ANTHROPIC_API_KEY=sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-AAAAAA
AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
`

var scenarios = []scenario{
	{name: "multi-turn", desc: "3 human turns, each answered with a signed thinking block and text", run: func(g *gen) (string, error) {
		sid, err := g.turn("", "What is a JSONL file?", []harness.Reply{harness.Thinking("The user asks about JSONL. One JSON value per line.", "JSONL is JSON Lines: one JSON value per line.")})
		if err != nil {
			return "", err
		}
		if _, err := g.turn(sid, "Why do session logs use it?", []harness.Reply{harness.Thinking("Append-only logging is cheap with JSONL.", "Because appending a line is cheap and crash-safe.")}); err != nil {
			return "", err
		}
		_, err = g.turn(sid, "Give one drawback.", []harness.Reply{harness.Thinking("A torn last line is the classic drawback.", "A write cut short leaves a torn last line.")})
		return sid, err
	}},
	{name: "tools", desc: "Bash, Write, Read, Edit tool calls, a failing Bash (is_error) and a ~30 KB Bash output", run: func(g *gen) (string, error) {
		sid, err := g.turn("", "Run some shell commands.", []harness.Reply{
			harness.Bash("echo hello from bash && pwd"),
			harness.Bash("ls /nonexistent-ccsurgeon-dir"),
			harness.Text("The first command worked; the second failed."),
		})
		if err != nil {
			return "", err
		}
		f := filepath.Join(g.env.Cwd, "notes.txt")
		if _, err := g.turn(sid, "Create notes.txt, read it back and fix the typo.", []harness.Reply{
			harness.Write(f, "line one\nline twoo\nline three\n"),
			harness.Read(f),
			harness.Edit(f, "line twoo", "line two"),
			harness.Text("notes.txt is created and fixed."),
		}); err != nil {
			return "", err
		}
		_, err = g.turn(sid, "Print a long listing.", []harness.Reply{
			harness.Bash("seq -f 'row %05g of the large output' 1 1200"),
			harness.Text("That was a large output."),
		})
		return sid, err
	}},
	{name: "parallel-tools", desc: "one assistant message with 3 parallel tool_use blocks (Bash, Read, Bash)", run: func(g *gen) (string, error) {
		f := filepath.Join(g.env.Cwd, "data.txt")
		if err := os.WriteFile(f, []byte("alpha\nbeta\n"), 0o644); err != nil {
			return "", err
		}
		return g.turn("", "Check three things at once.", []harness.Reply{
			harness.Blocks(
				harness.TextBlock("I will run three tools in parallel."),
				harness.ToolUse("Bash", map[string]any{"command": "echo first", "description": "first"}),
				harness.ToolUse("Read", map[string]any{"file_path": f}),
				harness.ToolUse("Bash", map[string]any{"command": "echo third", "description": "third"}),
			),
			harness.Text("All three finished."),
		})
	}},
	{name: "subagent", desc: "an Agent (2.1.x) / Task (2.0.x) call whose subagent runs its own Bash call", run: func(g *gen) (string, error) {
		g.env.Mock.EnqueueSubagent(harness.Bash("echo from-subagent"), harness.Text("Subagent report: the command printed from-subagent."))
		sid, err := g.turn("", "Delegate a check to a subagent.", []harness.Reply{
			harness.Blocks(harness.ToolUse(agentTool(g.c), map[string]any{
				"description": "Run a check", "prompt": "Run echo from-subagent and report.", "subagent_type": "general-purpose",
				"run_in_background": false})),
			harness.Text("The subagent reported back."),
		})
		if err != nil {
			return "", err
		}
		if n := g.env.Mock.Pending(harness.KindSubagent); n > 0 {
			return "", fmt.Errorf("subagent replies unused: %d", n)
		}
		return sid, nil
	}},
	{name: "compact", desc: "2 turns (one with a Bash call), then /compact, then 1 more turn", run: func(g *gen) (string, error) {
		sid, err := g.turn("", "Remember the number 42.", []harness.Reply{harness.Text("Noted: 42.")})
		if err != nil {
			return "", err
		}
		if _, err := g.turn(sid, "Run a command.", []harness.Reply{harness.Bash("echo before-compact"), harness.Text("Done.")}); err != nil {
			return "", err
		}
		if _, err := g.turn(sid, "/compact", nil); err != nil {
			return "", err
		}
		if len(g.env.Mock.RequestsOf(harness.KindCompact)) == 0 {
			return "", fmt.Errorf("/compact sent no summarization request")
		}
		// One turn after the compaction: every print-mode run of 2.1.328 adds ~40 KB of
		// prompt_snapshot/api-request-shape entries, so more turns would make the file big.
		_, err = g.turn(sid, "What number did I say?", []harness.Reply{harness.Text("You said 42.")})
		return sid, err
	}},
	{name: "secrets", desc: "fake secrets in a prompt, a Bash command and output, and a Read of .env", run: func(g *gen) (string, error) {
		if err := os.WriteFile(filepath.Join(g.env.Cwd, ".env"), []byte(fakeEnv), 0o600); err != nil {
			return "", err
		}
		sid, err := g.turn("", "My token is ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2 and my key is sk-ant-api03-PROMPTfakeKEY0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH. Check the db.", []harness.Reply{
			harness.Bash("export PGPASSWORD=hunter2-Sup3rS3cret && echo connecting to postgres://app:hunter2-Sup3rS3cret@localhost:5432/app as AKIAZZZZEXAMPLE12345"),
			harness.Text("I ran the connection check."),
		})
		if err != nil {
			return "", err
		}
		_, err = g.turn(sid, "Read the .env file.", []harness.Reply{
			harness.Read(filepath.Join(g.env.Cwd, ".env")),
			harness.Text("The .env file holds database and cloud credentials."),
		})
		return sid, err
	}},
	{name: "thinking-tool-loop", desc: "ends inside a tool loop with thinking: thinking+tool_use, tool_result, then --max-turns stops the run", run: func(g *gen) (string, error) {
		sid, err := g.turn("", "Explore the project.", []harness.Reply{harness.Thinking("Start by greeting.", "Sure, I will explore.")})
		if err != nil {
			return "", err
		}
		g.env.Mock.Enqueue(
			harness.Blocks(harness.ThinkingBlock("I should list the files first."), harness.ToolUse("Bash", map[string]any{"command": "ls -la", "description": "list files"})),
			harness.Blocks(harness.ThinkingBlock("Now look at the disk usage."), harness.ToolUse("Bash", map[string]any{"command": "du -sh .", "description": "disk usage"})),
		)
		res, err := g.env.Exec(g.c, "Keep exploring with tools.", "--resume", sid, "--max-turns", "2")
		if err != nil {
			return "", err
		}
		g.log = append(g.log, fmt.Sprintf("max-turns run: subtype=%s is_error=%v", res.Subtype, res.IsError))
		g.env.Mock.Reset()
		return sid, nil
	}},
}

func main() {
	out := flag.String("out", "", "output folder (default <repo>/testdata/sessions)")
	only := flag.String("only", "", "comma-separated scenario names")
	client := flag.String("client", "", "only this client version")
	keep := flag.Bool("keep", false, "keep the temporary environments")
	flag.BoolVar(&verbose, "v", false, "print what the scenarios logged")
	flag.Parse()
	if *out == "" {
		root, err := harness.RepoRoot()
		if err != nil {
			fatal(err)
		}
		*out = filepath.Join(root, "testdata", "sessions")
	}
	versions := []string{harness.LatestVersion, harness.OldVersion}
	if *client != "" {
		versions = strings.Split(*client, ",")
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	failed := 0
	for _, v := range versions {
		c, err := harness.EnsureClient(v)
		if err != nil {
			fatal(err)
		}
		for _, sc := range scenarios {
			if len(want) > 0 && !want[sc.name] {
				continue
			}
			if sc.onlyNew && c.IsOld() {
				continue
			}
			start := time.Now()
			if err := runScenario(c, sc, *out, *keep); err != nil {
				failed++
				fmt.Fprintf(os.Stderr, "FAIL %s/%s: %v\n", v, sc.name, err)
				continue
			}
			fmt.Printf("ok   %s/%s (%s)\n", v, sc.name, time.Since(start).Round(time.Millisecond))
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func runScenario(c harness.Client, sc scenario, out string, keep bool) error {
	// A fixed root keeps the cwd recorded in the files stable across regenerations.
	root := filepath.Join(os.TempDir(), "ccsurgeon-gen", c.Version, sc.name)
	_ = os.RemoveAll(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(root)
	}
	m, err := harness.StartMockServer()
	if err != nil {
		return err
	}
	defer m.Close()
	env, err := harness.NewEnvAt(root, m)
	if err != nil {
		return err
	}
	g := &gen{c: c, env: env}
	sid, err := sc.run(g)
	if verbose {
		for _, l := range g.log {
			fmt.Printf("     %s/%s: %s\n", c.Version, sc.name, l)
		}
	}
	if err != nil {
		return err
	}
	// a line's sessions live in one folder (harness.SessionsFolder): 2.1.330
	// writes beside 2.1.328's
	sub := sc.sub
	if sc.oldSub != "" && c.IsOld() {
		sub = sc.oldSub
	}
	dir := filepath.Join(out, harness.SessionsFolder(c.Version), sub)
	if err := export(env, sid, sc.name, dir); err != nil {
		return err
	}
	if sc.extra != nil {
		return sc.extra(g, sid, dir, sc.name)
	}
	return nil
}

var verbose bool

// export copies <sid>.jsonl to <dir>/<name>.jsonl, and the sidecar: <sid>/ (2.1.x)
// and agent-*.jsonl files that belong to the session (2.0.x, warmup agents excluded) into
// <dir>/<name>/.
func export(env *harness.Env, sid, name, dir string) error {
	dst := filepath.Join(dir, name+".jsonl")
	side := filepath.Join(dir, name)
	_ = os.RemoveAll(side)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(env.SessionPath(sid))
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Join(env.ProjectDir(), sid)); err == nil && fi.IsDir() {
		if err := harness.CopyDir(filepath.Join(env.ProjectDir(), sid), side); err != nil {
			return err
		}
	}
	agents := listdir.Matching(env.ProjectDir(), "agent-*.jsonl")
	sort.Strings(agents)
	for _, a := range agents {
		b, err := os.ReadFile(a)
		if err != nil {
			return err
		}
		if !belongsTo(b, sid) {
			continue
		}
		if err := os.MkdirAll(side, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(side, filepath.Base(a)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// belongsTo reports whether an agent transcript is a real subagent of session sid (not a
// warmup: 2.0.x writes one agent file per "Warmup" request).
func belongsTo(data []byte, sid string) bool {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines {
		var e struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Message   struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &e) != nil || e.SessionID != sid {
			continue
		}
		if e.Type == "user" && !strings.Contains(string(e.Message.Content), "Warmup") {
			return true
		}
	}
	return false
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gentestdata:", err)
	os.Exit(1)
}
