package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/internal/listdir"

	"github.com/tidwall/gjson"
)

// RunTimeout bounds one client run (2.0.50 hangs forever on a parent cycle).
var RunTimeout = 120 * time.Second

// ResumePrompt is the prompt Env.Resume sends after resuming.
const ResumePrompt = "ccsurgeon-harness-resume-probe"

// Env is an isolated Claude Code environment: temp HOME, config dir, project cwd and mock.
type Env struct {
	Home      string // temp HOME
	ConfigDir string // $HOME/.claude, exported as CLAUDE_CONFIG_DIR
	Cwd       string // project working directory
	Mock      *MockServer
	// ExtraEnv is appended to the client environment (KEY=VALUE).
	ExtraEnv []string
	// gated: EnableGates turned feature gates on (see there)
	gated bool
	// Fresh makes every Resume start the client, even for an input it
	// already resumed in this env (see resumeKey); the result is still
	// remembered for later resumes without Fresh.
	Fresh bool

	label atomic.Value // the test that last asked this env for a resume, for the run log

	memoMu      sync.Mutex
	memo        map[string]ResumeResult // resumeKey -> result
	clientFiles map[string]string       // files the client wrote on a resume -> digest
}

// NewEnv creates an Env with a started mock; everything is removed at test cleanup.
func NewEnv(t testing.TB) *Env {
	t.Helper()
	m := NewMockServer(t)
	e, err := NewEnvAt(t.TempDir(), m)
	if err != nil {
		t.Fatalf("harness: NewEnv: %v", err)
	}
	return e
}

// NewEnvAt creates an Env under root (which must exist) using mock m (no testing.TB needed).
func NewEnvAt(root string, m *MockServer) (*Env, error) {
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	e := &Env{
		Home: filepath.Join(root, "home"),
		Cwd:  filepath.Join(root, "work", "project"),
		Mock: m,
	}
	e.ConfigDir = filepath.Join(e.Home, ".claude")
	for _, d := range []string{e.Home, e.ConfigDir, e.Cwd, e.ProjectDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding":        true,
		"lastOnboardingVersion":         LatestVersion,
		"numStartups":                   5,
		"autoUpdates":                   false,
		"bypassPermissionsModeAccepted": true,
		"hasAcknowledgedCostThreshold":  true,
		"customApiKeyResponses":         map[string]any{"approved": []string{"test"}, "rejected": []string{}},
		"projects": map[string]any{e.Cwd: map[string]any{
			"hasTrustDialogAccepted":        true,
			"hasCompletedProjectOnboarding": true,
			"allowedTools":                  []string{},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	for _, p := range []string{filepath.Join(e.Home, ".claude.json"), filepath.Join(e.ConfigDir, ".claude.json")} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
	}
	settings := map[string]any{"autoUpdates": false, "includeCoAuthoredBy": false}
	sb, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(e.ConfigDir, "settings.json"), sb, 0o644); err != nil {
		return nil, err
	}
	return e, nil
}

var slugRe = regexp.MustCompile(`[^A-Za-z0-9]`)

// Slug returns the project folder name Claude Code uses for a cwd.
func Slug(cwd string) string { return slugRe.ReplaceAllString(cwd, "-") }

// ProjectDir returns <config>/projects/<slug of Cwd>.
func (e *Env) ProjectDir() string { return filepath.Join(e.ConfigDir, "projects", Slug(e.Cwd)) }

// SessionPath returns the path of a session's JSONL file in the project folder.
func (e *Env) SessionPath(sessionID string) string {
	return filepath.Join(e.ProjectDir(), sessionID+".jsonl")
}

// Environ returns the environment the client runs with.
func (e *Env) Environ() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.Home,
		"CLAUDE_CONFIG_DIR=" + e.ConfigDir,
		"ANTHROPIC_BASE_URL=" + e.Mock.URL,
		"ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"CLAUDE_CODE_ENABLE_TELEMETRY=0",
		"IS_SANDBOX=1",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"USER=tester",
		"SHELL=/bin/bash",
	}
	if e.gated {
		// the client reads its feature gates only when it may talk to its
		// servers: let it, through a proxy that is a closed local port, so
		// that nothing leaves the machine (the mock is reached directly)
		env = slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=") || strings.HasPrefix(kv, "DISABLE_TELEMETRY=")
		})
		env = append(env, "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
			"http_proxy=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	}
	return append(env, e.ExtraEnv...)
}

// EnableGates turns feature gates of the client on, as the client's
// servers would for a real user: it writes them into the client's cache
// (cachedGrowthBookFeatures in .claude.json), which 2.1.x reads only when
// non-essential traffic is allowed. Real users of 2.1.37-2.1.39 ran with
// tengu_streaming_tool_execution2, say: parallel calls start while the
// model still writes the next one, so the calls' progress entries land
// between their tool_use entries.
func (e *Env) EnableGates(gates ...string) error {
	for _, p := range []string{filepath.Join(e.Home, ".claude.json"), filepath.Join(e.ConfigDir, ".claude.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var cfg map[string]any
		if err := json.Unmarshal(b, &cfg); err != nil {
			return err
		}
		feats, _ := cfg["cachedGrowthBookFeatures"].(map[string]any)
		if feats == nil {
			feats = map[string]any{}
		}
		for _, g := range gates {
			feats[g] = true
		}
		cfg["cachedGrowthBookFeatures"] = feats
		out, _ := json.MarshalIndent(cfg, "", "  ")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return err
		}
	}
	e.gated = true
	return nil
}

// runLabel is the name of the test that last asked any env for a resume:
// the run log's label for an env no test named (parallel tests
// interleave, so it is a hint only).
var runLabel atomic.Value

// logRun appends one line per client run to $CCSURGEON_RUN_LOG when set,
// tab-separated: version, wall seconds, CPU seconds (the client and the
// processes it waited for: robust to a busy machine), four digests of
// its input (the files of the project folder; the same with every uuid
// numbered by first appearance; that with the env's own root folder, as
// a path and as a slug, a placeholder too; the resumed session alone,
// resumedHash), the package, the test, the arguments after the prompt.
// Where the suite's time goes, and which runs repeat: the same version,
// first digest and arguments is the same run; the same second digest
// differs only by the ids an operation made up; the same third, by those
// and the test's temp folder; the same fourth and arguments, by the other
// files beside the session (another test's env).
func logRun(c Client, in, label string, args []string, d, cpu time.Duration) {
	p := os.Getenv("CCSURGEON_RUN_LOG")
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	wd, _ := os.Getwd()
	fmt.Fprintf(f, "%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\n", c.Version, d.Seconds(), cpu.Seconds(), in, filepath.Base(wd), label, strings.Join(args[min(len(args), 4):], " "))
}

// resumedHash is a digest of the session `--resume ID` names: its main
// transcript and its <ID>/ folder (names and bytes), "-" for a run that
// resumes nothing. The same digest and arguments with the same version, in
// two envs whose folders hold other files too, is the same session
// resumed twice (the shared originals of the tests take such a file for
// what the client sends whatever lies beside it).
func (e *Env) resumedHash(args []string) string {
	k := slices.Index(args, "--resume")
	if k < 0 || k+1 >= len(args) || strings.ContainsAny(args[k+1], `/\`) {
		return "-"
	}
	h := sha256.New()
	main := e.SessionPath(args[k+1])
	for _, p := range []string{main, strings.TrimSuffix(main, ".jsonl")} {
		e.hashFiles(h, p)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// hashFiles adds to h the name (from the project folder) and bytes of
// every file at or below root.
func (e *Env) hashFiles(h io.Writer, root string) {
	_ = filepath.Walk(root, func(q string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(e.ProjectDir(), q)
		b, _ := os.ReadFile(q)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
}

// inputHash is a digest of the files of the env's project folder (names
// and bytes): with the client and the arguments, what a run depends on.
func (e *Env) inputHash() string {
	h := sha256.New()
	e.hashFiles(h, e.ProjectDir())
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

var (
	debugUUID  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	debugAgent = regexp.MustCompile(`agent-[0-9a-f]{7,8}`)
)

// canonicalHash: inputHash with every uuid numbered by first appearance
// (the resumed session's id first), for counting runs that differ only by
// the ids an operation made up; with envFree, the env's root folder (as a
// path and as the slug of one) is a placeholder too, for counting runs
// of the same input in two tests' environments.
func (e *Env) canonicalHash(args []string, envFree bool) string {
	ids := map[string]string{}
	root := filepath.Dir(e.Home)
	ren := func(b []byte) []byte {
		if envFree {
			b = bytes.ReplaceAll(b, []byte(root), []byte("<ROOT>"))
			b = bytes.ReplaceAll(b, []byte(Slug(root)), []byte("<ROOTSLUG>"))
		}
		return debugUUID.ReplaceAllFunc(b, func(m []byte) []byte {
			k, ok := ids[string(m)]
			if !ok {
				k = fmt.Sprintf("<U%d>", len(ids))
				ids[string(m)] = k
			}
			return []byte(k)
		})
	}
	a := string(ren([]byte(strings.Join(args, " "))))
	type file struct {
		name string
		data []byte
	}
	var files []file
	_ = filepath.Walk(e.ProjectDir(), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(e.ProjectDir(), p)
		b, _ := os.ReadFile(p)
		files = append(files, file{debugAgent.ReplaceAllString(rel, "agent-X"), b})
		return nil
	})
	for i := range files {
		files[i].name = string(ren([]byte(files[i].name)))
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	h := sha256.New()
	h.Write([]byte(a))
	for _, f := range files {
		fmt.Fprintf(h, "\x00%s\x00", f.name)
		h.Write(ren(debugAgent.ReplaceAll(f.data, []byte("agent-X"))))
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// RunResult is the outcome of one print-mode run.
type RunResult struct {
	SessionID string         `json:"session_id"`
	IsError   bool           `json:"is_error"`
	Result    string         `json:"result"`
	Subtype   string         `json:"subtype"`
	NumTurns  int            `json:"num_turns"`
	Raw       map[string]any `json:"-"`
	Stdout    string         `json:"-"`
	Stderr    string         `json:"-"`
	ExitCode  int            `json:"-"` // -1 if killed by the timeout
	TimedOut  bool           `json:"-"`
	Hung      bool           `json:"-"` // ExecHangs killed it: it spun without a main request
	Duration  time.Duration  `json:"-"`
}

// Exec runs the client in print mode with -p prompt and extra args, without failing on
// errors (for command-line tools and negative tests).
func (e *Env) Exec(c Client, prompt string, extraArgs ...string) (RunResult, error) {
	args := []string{"-p", prompt, "--output-format", "json", "--dangerously-skip-permissions"}
	args = append(args, extraArgs...)
	return e.ExecArgs(c, args...)
}

// ExecArgs runs the client with exactly these arguments.
func (e *Env) ExecArgs(c Client, args ...string) (RunResult, error) {
	return e.ExecWithin(c, RunTimeout, args...)
}

// ExecWithin is ExecArgs with a timeout of its own instead of RunTimeout
// (a test that expects the client to hang waits less), logged in
// $CCSURGEON_RUN_LOG like every run.
func (e *Env) ExecWithin(c Client, timeout time.Duration, args ...string) (RunResult, error) {
	return e.exec(c, timeout, nil, args)
}

// HangCPU is the CPU time after which ExecHangs takes a client that has
// sent no request of the main conversation for a hung one. 2.0.50 hangs
// on a parent cycle (or a self-parent) in a spin: it sends its start-up
// requests (aux), then none, and its CPU time grows as long as it runs.
// A whole 2.0.50 run of the test sessions, main request and exit
// included, took at most 1.80 s of CPU (median 1.27 s, 205 runs of go test
// ./ops on a busy machine, $CCSURGEON_RUN_LOG, 2026-11-27), and sends its
// main request at about 1 s; HangCPU is 1.7 times the slowest whole run.
// The fixed 15-20 s windows of before cost that much CPU on a quiet
// machine (a spin takes a core) and 2.5-3.3 s on that busy one.
var HangCPU = 3 * time.Second

// HangWall is ExecHangs's wait where the process's CPU time cannot be read
// (not Linux): the fixed window the hang tests used before (15-20 s).
var HangWall = 20 * time.Second

// pollEvery is how often exec asks its stop function.
var pollEvery = 100 * time.Millisecond

// ExecHangs runs the client with args as ExecArgs does and reports whether
// it hangs: it is still running, has sent no request of the main
// conversation and has spent HangCPU of CPU time (where that cannot be
// read: still running after HangWall); it is killed then, and the result
// says Hung. A client that sends the main request or exits is waited for
// (RunTimeout) and reported as not hung. Before, the hang tests waited a
// fixed 15-20 s of wall time, spinning a core all along.
func (e *Env) ExecHangs(c Client, args ...string) (hung bool, res RunResult, err error) {
	before := len(e.Mock.RequestsOf(KindMain))
	start := time.Now()
	res, err = e.exec(c, RunTimeout, func(pid int) bool {
		if len(e.Mock.RequestsOf(KindMain)) > before {
			return false
		}
		if cpu, ok := processCPU(pid); ok {
			return cpu >= HangCPU
		}
		return time.Since(start) >= HangWall
	}, args)
	return res.Hung, res, err
}

// exec runs the client; stop, when not nil, is asked every 100 ms while
// the client runs whether to kill it (RunResult.Hung).
func (e *Env) exec(c Client, timeout time.Duration, stop func(pid int) bool, args []string) (RunResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := c.Command(ctx, args...)
	cmd.Dir = e.Cwd
	cmd.Env = e.Environ()
	cmd.Stdin = bytes.NewReader(nil)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	label, _ := e.label.Load().(string)
	if label == "" {
		label, _ = runLabel.Load().(string)
	}
	var in string
	if os.Getenv("CCSURGEON_RUN_LOG") != "" {
		in = e.inputHash() + "\t" + e.canonicalHash(args, false) + "\t" + e.canonicalHash(args, true) + "\t" + e.resumedHash(args)
	}
	start := time.Now()
	var stopped atomic.Bool
	err := cmd.Start()
	if err == nil {
		done := make(chan struct{})
		if stop != nil {
			go func() {
				tick := time.NewTicker(pollEvery)
				defer tick.Stop()
				for {
					select {
					case <-done:
						return
					case <-tick.C:
						if stop(cmd.Process.Pid) {
							stopped.Store(true)
							cancel()
							return
						}
					}
				}
			}()
		}
		err = cmd.Wait()
		close(done)
	}
	res := RunResult{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	logRun(c, in, label, args, res.Duration, cpu)
	if stopped.Load() {
		res.Hung = true
		res.ExitCode = -1
		return res, nil
	}
	if ctx.Err() == context.DeadlineExceeded {
		res.TimedOut = true
		res.ExitCode = -1
		return res, fmt.Errorf("client %s timed out after %s", c.Version, timeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		return res, err
	}
	out := strings.TrimSpace(res.Stdout)
	if i := strings.LastIndex(out, "\n{"); i >= 0 {
		out = out[i+1:]
	}
	if out != "" && json.Unmarshal([]byte(out), &res) == nil {
		_ = json.Unmarshal([]byte(out), &res.Raw)
	}
	return res, nil
}

// Run runs print mode and fails the test if the client cannot run, times out, or does
// not print a JSON result. It does not fail on is_error (check it yourself).
func (e *Env) Run(t testing.TB, c Client, prompt string, extraArgs ...string) RunResult {
	t.Helper()
	res, err := e.Exec(c, prompt, extraArgs...)
	if err != nil {
		t.Fatalf("harness: run %s: %v\nstderr: %s", c.Version, err, res.Stderr)
	}
	if res.Raw == nil {
		t.Fatalf("harness: run %s: no JSON result (exit %d)\nstdout: %s\nstderr: %s", c.Version, res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// TurnErr runs one print-mode turn with the given main replies queued on
// the mock: a new session when sid is empty, else `--resume sid` (the
// client appends to that file). args are the options after -p PROMPT
// --output-format json. It fails unless the client answered a session id
// (sid's own when resuming), used every queued reply and sent nothing the
// API rules refuse: a session made this way is one the client wrote.
func (e *Env) TurnErr(c Client, sid, prompt string, replies []Reply, args ...string) (RunResult, error) {
	e.Mock.Enqueue(replies...)
	all := append([]string{"-p", prompt, "--output-format", "json"}, args...)
	if sid != "" {
		all = append(all, "--resume", sid)
	}
	res, err := e.ExecArgs(c, all...)
	switch {
	case err != nil:
		return res, fmt.Errorf("turn %q: %v\nstderr: %s", prompt, err, res.Stderr)
	case res.SessionID == "":
		return res, fmt.Errorf("turn %q: no session id (exit %d)\nstdout: %s\nstderr: %s", prompt, res.ExitCode, res.Stdout, res.Stderr)
	case sid != "" && res.SessionID != sid:
		return res, fmt.Errorf("turn %q: resume of %s answered session %s", prompt, sid, res.SessionID)
	}
	if n := e.Mock.Pending(KindMain); n > 0 {
		return res, fmt.Errorf("turn %q: %d scripted replies unused (is_error=%v result=%q)", prompt, n, res.IsError, res.Result)
	}
	if vs := e.Mock.Violations(); len(vs) > 0 {
		return res, fmt.Errorf("turn %q: API-rule violations: %v", prompt, vs)
	}
	return res, nil
}

// Turn is TurnErr with --dangerously-skip-permissions that fails the test
// on error; it returns the session id. Tests make the sessions they need
// with it, at test time, with the client under test.
func (e *Env) Turn(t testing.TB, c Client, sid, prompt string, replies ...Reply) string {
	t.Helper()
	runLabel.Store(t.Name())
	e.label.Store(t.Name())
	res, err := e.TurnErr(c, sid, prompt, replies, "--dangerously-skip-permissions")
	if err != nil {
		t.Fatalf("harness: %s: %v", c.Version, err)
	}
	return res.SessionID
}

// SessionIDs lists the sessions (<id>.jsonl, not agent-*.jsonl) of the
// env's project folder: those a client made in it.
func (e *Env) SessionIDs() ([]string, error) {
	m := listdir.Matching(e.ProjectDir(), "*.jsonl")
	var ids []string
	for _, p := range m {
		if b := filepath.Base(p); !strings.HasPrefix(b, "agent-") {
			ids = append(ids, strings.TrimSuffix(b, ".jsonl"))
		}
	}
	return ids, nil
}

// InstallSession copies a session file (and its <id>/ sidecar folder if present) into the
// env's project folder, unchanged. It returns the session id (file name without .jsonl).
func (e *Env) InstallSession(t testing.TB, srcJSONL string) string {
	t.Helper()
	id, err := e.InstallSessionErr(srcJSONL)
	if err != nil {
		t.Fatalf("harness: InstallSession: %v", err)
	}
	return id
}

// InstallSessionErr is InstallSession returning an error.
//
// The session id is read from the file's entries (so testdata named e.g. tools.jsonl is
// installed as <sessionId>.jsonl); the sidecar folder <name>/ beside it is copied to
// <sessionId>/, except top-level agent-*.jsonl files (2.0.x subagent layout), which go
// to the project folder itself.
func (e *Env) InstallSessionErr(srcJSONL string) (string, error) {
	id, err := SessionIDOf(srcJSONL)
	if err != nil {
		return "", err
	}
	if err := copyFile(srcJSONL, e.SessionPath(id)); err != nil {
		return "", err
	}
	if err := e.registerSignatures(srcJSONL); err != nil {
		return "", err
	}
	side := strings.TrimSuffix(srcJSONL, ".jsonl")
	entries, err := os.ReadDir(side)
	if err != nil {
		return id, nil // no sidecar
	}
	for _, de := range entries {
		src := filepath.Join(side, de.Name())
		switch {
		case !de.IsDir() && strings.HasPrefix(de.Name(), "agent-") && strings.HasSuffix(de.Name(), ".jsonl"):
			err = copyFile(src, filepath.Join(e.ProjectDir(), de.Name()))
		case de.IsDir():
			err = CopyDir(src, filepath.Join(e.ProjectDir(), id, de.Name()))
		default:
			err = copyFile(src, filepath.Join(e.ProjectDir(), id, de.Name()))
		}
		if err != nil {
			return "", err
		}
	}
	return id, nil
}

// registerSignatures tells the mock that the signed thinking blocks of a
// session file being installed were issued as they stand: a real
// transcript's thinking carries signatures of the real API, which the
// mock cannot recompute. Only files installed from a source are trusted
// this way (InstallSessionBytes, used to plant edits, registers nothing),
// so an operation that edits such a block's text is still refused.
func (e *Env) registerSignatures(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(`"signature"`)) {
		return nil
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"thinking"`)) {
			continue
		}
		gjson.GetBytes(line, "message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "thinking" && b.Get("signature").Str != "" {
				e.Mock.RegisterSignature(b.Get("signature").Str, b.Get("thinking").Str)
			}
			return true
		})
	}
	return nil
}

// SessionIDOf returns the sessionId of the first entry of a session file that has one,
// else the file name without .jsonl.
func SessionIDOf(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var v struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(line, &v) == nil && v.SessionID != "" {
			return v.SessionID, nil
		}
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl"), nil
}

// InstallSessionBytes writes data as session id in the project folder.
func (e *Env) InstallSessionBytes(t testing.TB, id string, data []byte) {
	t.Helper()
	if err := os.WriteFile(e.SessionPath(id), data, 0o644); err != nil {
		t.Fatalf("harness: InstallSessionBytes: %v", err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CopyDir copies a directory tree.
func CopyDir(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(p, target)
	})
}
