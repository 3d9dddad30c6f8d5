package harness

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// ResumeResult is what a client rebuilt from a session file on --resume.
type ResumeResult struct {
	Client Client
	// Messages are the messages of the first main-conversation request sent after the
	// resume, minus the resume prompt the harness appended (and anything after it).
	Messages []json.RawMessage
	// Request is that first main-conversation request (nil if the client sent none).
	Request *RecordedRequest
	// Requests are all requests the mock received during the run.
	Requests []*RecordedRequest
	// Violations are the API-rule violations of the first main request (the mock answered
	// 400 with the first one).
	Violations []Violation
	Run        RunResult
	Err        error // run error (e.g. timeout)
	// Env is the environment the client ran in: its paths (cwd, home,
	// project slug) are in the messages, and AssertSameConversation maps
	// them to placeholders for each result on its own, so that two
	// results of different environments (a resume shared between tests)
	// compare equal.
	Env *Env
}

// OK reports whether the resume sent a main request without API-rule violations and the
// client exited 0.
func (r ResumeResult) OK() bool {
	return r.Err == nil && r.Request != nil && len(r.Violations) == 0 && r.Run.ExitCode == 0
}

// String summarizes the result for test failure messages.
func (r ResumeResult) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "client %s: exit=%d timedOut=%v err=%v messages=%d violations=%v",
		r.Client.Version, r.Run.ExitCode, r.Run.TimedOut, r.Err, len(r.Messages), r.Violations)
	if r.Request == nil {
		sb.WriteString(" (no main request sent)")
	}
	if s := strings.TrimSpace(r.Run.Stderr); s != "" {
		fmt.Fprintf(&sb, "\nstderr: %s", truncate(s, 2000))
	}
	if r.Run.IsError {
		fmt.Fprintf(&sb, "\nresult: %s", truncate(r.Run.Result, 2000))
	}
	return sb.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Resume runs `--resume sessionID` with ResumePrompt and returns what the client sent.
// The session file is restored to its previous bytes after the run.
// It does not fail the test on API-rule violations or client errors: inspect the result.
func (e *Env) Resume(t testing.TB, c Client, sessionID string, extraArgs ...string) ResumeResult {
	t.Helper()
	runLabel.Store(t.Name())
	e.label.Store(t.Name())
	return e.ResumeErr(c, sessionID, extraArgs...)
}

// ResumeErr is Resume without a testing.TB.
//
// A resume of an input this env already resumed (the same client,
// arguments, environment, files and mock state: resumeKey) returns the
// first run's result without starting the client again: the client sends
// the same conversation for the same input (TestGeneratedSessionsResume
// checks it, with Fresh set). A repair that gives back the original bytes,
// an operation that finds nothing to change, are such inputs.
func (e *Env) ResumeErr(c Client, sessionID string, extraArgs ...string) ResumeResult {
	args := append([]string{"--resume", sessionID}, extraArgs...)
	if e.Mock.scripted() {
		return e.resume(c, sessionID, args)
	}
	before, err := e.inputFiles()
	if err != nil {
		return e.resume(c, sessionID, args)
	}
	key := e.resumeKey(c, args, before)
	e.memoMu.Lock()
	r, ok := e.memo[key]
	e.memoMu.Unlock()
	if ok && !e.Fresh {
		return r
	}
	r = e.resume(c, sessionID, args)
	after, err := e.inputFiles()
	if r.Err != nil || err != nil {
		return r
	}
	e.memoMu.Lock()
	defer e.memoMu.Unlock()
	if e.memo == nil {
		e.memo = map[string]ResumeResult{}
		e.clientFiles = map[string]string{}
	}
	e.memo[key] = r
	for p, d := range after {
		if before[p] != d {
			e.clientFiles[p] = d
		}
	}
	return r
}

// inputFiles digests the files a resume reads: those of the config
// dir's projects and file-history folders and of the working directory.
// The client's own state files (.claude.json, todos) are left out: it
// writes them on every run, and resuming the same file twice sends the
// same conversation regardless.
func (e *Env) inputFiles() (map[string]string, error) {
	out := map[string]string{}
	for _, dir := range []string{filepath.Join(e.ConfigDir, "projects"), filepath.Join(e.ConfigDir, "file-history"), e.Cwd} {
		err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == dir {
					return nil
				}
				return err
			}
			h := sha256.New()
			fmt.Fprintf(h, "%v\x00", fi.Mode())
			switch {
			case fi.Mode()&os.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				h.Write([]byte(target))
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				h.Write(b)
			}
			out[p] = fmt.Sprintf("%x", h.Sum(nil))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resumeKey is what a resume depends on: the client, its arguments and
// environment, the signatures the mock accepts, its context limit, and the input files but
// those the client itself wrote on an earlier resume in this env (2.0.x
// leaves a subagent transcript per run) and are as it left them.
func (e *Env) resumeKey(c Client, args []string, files map[string]string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%q\x00%q\x00%q\x00%v\x00%d\x00", c.Version, c.Argv, args, e.Environ(), e.Mock.CheckRules, e.Mock.ContextLimit())
	sigs := e.Mock.Signatures()
	for _, k := range sortedKeys(sigs) {
		fmt.Fprintf(h, "sig\x00%s\x00%s\x00", k, sigs[k])
	}
	e.memoMu.Lock()
	defer e.memoMu.Unlock()
	for _, p := range sortedKeys(files) {
		if e.clientFiles[p] != files[p] {
			fmt.Fprintf(h, "file\x00%s\x00%s\x00", p, files[p])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// resume starts the client to resume a session.
func (e *Env) resume(c Client, sessionID string, args []string) ResumeResult {
	before := len(e.Mock.Requests())
	// The client appends the probe turn to the file: restore the file afterwards so that
	// resuming is repeatable and leaves the session under test unchanged.
	path := e.SessionPath(sessionID)
	orig, readErr := os.ReadFile(path)
	run, err := e.Exec(c, ResumePrompt, args...)
	if readErr == nil {
		if werr := os.WriteFile(path, orig, 0o644); werr != nil && err == nil {
			err = werr
		}
	}
	res := ResumeResult{Client: c, Run: run, Err: err, Env: e}
	res.Requests = e.Mock.Requests()[before:]
	for _, r := range res.Requests {
		if r.Kind == KindMain && isMessagesPath(r.Path) {
			res.Request = r
			break
		}
	}
	if res.Request != nil {
		res.Violations = res.Request.Violations
		res.Messages = StripPrompt(res.Request.Messages(), ResumePrompt)
	}
	return res
}

// MustResume is Resume that fails the test unless the resume succeeded without violations.
func (e *Env) MustResume(t testing.TB, c Client, sessionID string, extraArgs ...string) ResumeResult {
	t.Helper()
	r := e.Resume(t, c, sessionID, extraArgs...)
	if !r.OK() {
		t.Fatalf("harness: resume of %s failed: %s", sessionID, r)
	}
	return r
}

// StripPrompt removes the last occurrence of prompt (and everything after it) from msgs:
// a message whose content is the prompt is dropped; a block holding it is removed with
// the blocks after it and the <system-reminder> text blocks right before it, and the
// message is dropped if it becomes empty.
func StripPrompt(msgs []json.RawMessage, prompt string) []json.RawMessage {
	for i := len(msgs) - 1; i >= 0; i-- {
		if !strings.Contains(string(msgs[i]), prompt) {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(msgs[i], &m) != nil {
			return msgs[:i]
		}
		var blocks []json.RawMessage
		if json.Unmarshal(m["content"], &blocks) != nil {
			return msgs[:i] // string content
		}
		for j := len(blocks) - 1; j >= 0; j-- {
			if strings.Contains(string(blocks[j]), prompt) {
				blocks = blocks[:j]
				break
			}
		}
		// Reminders the client injected for the new prompt (e.g. 2.0.50's TodoWrite
		// reminder) sit right before it in the same message: drop them too. A
		// notification the file ends in (2.1.332's <task-notification>, which
		// it wraps in a reminder when it sends it) is part of the
		// conversation, not of the new prompt: it stays.
		for len(blocks) > 0 && isReminderBlock(blocks[len(blocks)-1]) && !strings.Contains(string(blocks[len(blocks)-1]), "<task-notification>") {
			blocks = blocks[:len(blocks)-1]
		}
		if len(blocks) == 0 {
			return msgs[:i]
		}
		m["content"], _ = json.Marshal(blocks)
		b, _ := json.Marshal(m)
		out := append([]json.RawMessage(nil), msgs[:i]...)
		return append(out, b)
	}
	return msgs
}

func isReminderBlock(b json.RawMessage) bool {
	var v struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	return json.Unmarshal(b, &v) == nil && v.Type == "text" &&
		strings.HasPrefix(strings.TrimSpace(v.Text), "<system-reminder>")
}

// Normalizer rewrites what legitimately varies between two resumes of equivalent files.
type Normalizer struct {
	// Replace maps literal strings to placeholders (e.g. env paths, session ids).
	Replace map[string]string
	// DropCacheControl removes cache_control markers (default true via NewNormalizer).
	DropCacheControl bool
}

// NewNormalizer returns a normalizer for resumes run in env e (nil allowed), also
// mapping the given session ids to stable placeholders (<SESSION-1>, ...).
func NewNormalizer(e *Env, sessionIDs ...string) *Normalizer {
	n := &Normalizer{Replace: map[string]string{}, DropCacheControl: true}
	if e != nil {
		n.Replace[e.Cwd] = "<CWD>"
		n.Replace[e.Home] = "<HOME>"
		n.Replace[Slug(e.Cwd)] = "<SLUG>"
	}
	for i, id := range sessionIDs {
		n.Replace[id] = fmt.Sprintf("<SESSION-%d>", i+1)
	}
	return n
}

var (
	reDate    = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	reISOTime = regexp.MustCompile(`\b20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?\b`)
	reTmp     = regexp.MustCompile(`/tmp/[A-Za-z0-9_.-]+/\d{3}`)
)

// Normalize returns normalized copies of msgs: placeholders for env paths and session
// ids, dates replaced by <DATE>, cache_control removed, JSON re-encoded with sorted keys.
func (n *Normalizer) Normalize(msgs []json.RawMessage) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var v any
		if json.Unmarshal(m, &v) != nil {
			out = append(out, string(m))
			continue
		}
		v = n.walk(v)
		b, _ := json.Marshal(v) // map keys are sorted by encoding/json
		out = append(out, string(b))
	}
	return out
}

func (n *Normalizer) str(s string) string {
	keys := make([]string, 0, len(n.Replace))
	for k := range n.Replace {
		if k != "" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, n.Replace[k])
	}
	s = reTmp.ReplaceAllString(s, "<TMP>")
	s = reISOTime.ReplaceAllString(s, "<TIME>")
	s = reDate.ReplaceAllString(s, "<DATE>")
	return s
}

func (n *Normalizer) walk(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if n.DropCacheControl {
			delete(x, "cache_control")
		}
		for k, val := range x {
			x[k] = n.walk(val)
		}
		return x
	case []any:
		for i := range x {
			x[i] = n.walk(x[i])
		}
		return x
	case string:
		return n.str(x)
	}
	return v
}

// DiffMessages compares two message lists after normalization and returns a readable
// description of the first differences ("" if equal).
func (n *Normalizer) DiffMessages(a, b []json.RawMessage) string {
	return diffNormalizedLists(n.Normalize(a), n.Normalize(b))
}

func diffNormalizedLists(na, nb []string) string {
	var sb strings.Builder
	if len(na) != len(nb) {
		fmt.Fprintf(&sb, "message count differs: %d vs %d\n", len(na), len(nb))
	}
	for i := 0; i < len(na) || i < len(nb); i++ {
		var x, y string
		if i < len(na) {
			x = na[i]
		}
		if i < len(nb) {
			y = nb[i]
		}
		if x != y {
			fmt.Fprintf(&sb, "message %d differs:\n  a: %s\n  b: %s\n", i, truncate(x, 1500), truncate(y, 1500))
			if sb.Len() > 8000 {
				break
			}
		}
	}
	return sb.String()
}

// AssertSameConversation fails the test if two resume results differ after
// normalization. Each result's own environment paths are mapped too (see
// ResumeResult.Env): a result reused from another test's environment says
// <CWD> where the paths of n's environment would not match it.
func AssertSameConversation(t testing.TB, n *Normalizer, a, b ResumeResult) {
	t.Helper()
	if d := n.DiffResults(a, b); d != "" {
		t.Errorf("harness: resumed conversations differ:\n%s", d)
	}
}

// DiffResults is DiffMessages of two results, each normalized with the
// paths of the environment it ran in besides n's own.
func (n *Normalizer) DiffResults(a, b ResumeResult) string {
	return diffNormalizedLists(n.withEnv(a.Env).Normalize(a.Messages), n.withEnv(b.Env).Normalize(b.Messages))
}

// withEnv returns n with e's paths mapped to the placeholders NewNormalizer
// gives them (n itself when e is nil).
func (n *Normalizer) withEnv(e *Env) *Normalizer {
	if e == nil {
		return n
	}
	c := &Normalizer{Replace: maps.Clone(n.Replace), DropCacheControl: n.DropCacheControl}
	maps.Copy(c.Replace, NewNormalizer(e).Replace)
	return c
}

// MessageSummary returns a compact one-line-per-message outline (role + block types and
// a short text), handy in failure messages and FINDINGS.
func MessageSummary(msgs []json.RawMessage) string {
	var sb strings.Builder
	for i, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &m)
		fmt.Fprintf(&sb, "%d %s:", i, m.Role)
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			fmt.Fprintf(&sb, " str(%q)", truncate(s, 60))
		} else {
			var blocks []map[string]any
			_ = json.Unmarshal(m.Content, &blocks)
			for _, b := range blocks {
				typ, _ := b["type"].(string)
				detail := ""
				switch typ {
				case "text":
					detail, _ = b["text"].(string)
				case "thinking":
					detail, _ = b["thinking"].(string)
				case "tool_use":
					detail, _ = b["name"].(string)
					id, _ := b["id"].(string)
					detail += " " + id
				case "tool_result":
					detail, _ = b["tool_use_id"].(string)
				}
				fmt.Fprintf(&sb, " %s(%q)", typ, truncate(strings.ReplaceAll(detail, "\n", " "), 50))
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}
