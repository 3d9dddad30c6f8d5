package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
)

// figureCommands are the commands that write a session, each as it is
// run on a session (the output flags are added by the test): those that
// print a token figure for their result (compress, rewrite with a
// compression, with and without a target) and those that print none
// today (held to the same rule the day they do).
var figureCommands = []struct {
	name   string
	args   []string
	prints bool // prints a token figure today
}{
	{"compress", []string{"compress"}, true},
	{"compress --keep-turns 0", []string{"compress", "--keep-turns", "0"}, true},
	{"compress --target-tokens", []string{"compress", "--target-tokens", "18000"}, true},
	{"rewrite --redact-secrets --compress-old-turns 1", []string{"rewrite", "--redact-secrets", "--compress-old-turns", "1"}, true},
	{"rewrite --strip-thinking --compress-old-turns 1", []string{"rewrite", "--strip-thinking", "--compress-old-turns", "1"}, true},
	{"rewrite --drop-tool-calls Bash --compress-old-turns 1", []string{"rewrite", "--drop-tool-calls", "Bash", "--compress-old-turns", "1"}, true},
	{"strip-thinking", []string{"strip-thinking"}, false},
	{"drop-tool-calls --tool Bash", []string{"drop-tool-calls", "--tool", "Bash"}, false},
	{"redact-secrets", []string{"redact-secrets"}, false},
	{"repair", []string{"repair"}, false},
	{"clone", []string{"clone"}, false},
	{"fork 1", []string{"fork"}, false}, // the turn follows the session
}

var printedTokens = regexp.MustCompile(`(?m)^tokens on resume \(estimate\): (\S+) -> (\S+) `)

// TestPrintedTokensAreInfos (issue 30, one token figure): every figure a
// command prints about a session it writes is info's count of the file
// written — `resume_tokens.after` of --json, the "after" of the text
// summary, and a --dry-run's, of what the same command writes. The class:
// every writing command (compress with and without a target, rewrite's
// compositions, strip-thinking, drop-tool-calls, redact, repair, clone,
// fork) × every session of testdata (as the harness's mock recorded them,
// whose usage is too small to measure the system prompt by, and with a
// real API's usage, which measures it: a cut before the first response
// that records usage, or the removal of that response, moves the measure
// on the written file) × the corpus when CCSURGEON_CORPUS is set. A
// failure names the member: the session, the command, the form (json,
// text, dry-run) and whether the measure of the system prompt moved.
func TestPrintedTokensAreInfos(t *testing.T) {
	var sessions []string
	corpus := testcorpus.Optional(t)
	for _, root := range []string{"testdata/sessions", corpus} {
		if root == "" {
			continue // (the corpus, not set: Optional counted it as not run, with the reason)
		}
		require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.HasPrefix(d.Name(), "agent-") ||
				strings.Contains(filepath.ToSlash(p), "/subagents/") {
				return err
			}
			for up := filepath.Dir(p); up != root && up != "." && up != string(filepath.Separator); up = filepath.Dir(up) {
				if _, err := os.Stat(up + ".jsonl"); err == nil {
					return nil // a file of a session's sidecar folder
				}
			}
			sessions = append(sessions, p)
			return nil
		}))
	}
	sort.Strings(sessions)
	require.Greater(t, len(sessions), 40)
	dir := t.TempDir()
	compared, measuredRows, moved := 0, 0, 0
	start := time.Now()
	for k, src := range sessions {
		// a session of testdata is taken with a real API's usage (the
		// mock's is too small to measure the system prompt by: nothing
		// would move it), the corpus's as it is (a real API's already)
		variant, path := "as recorded", src
		if corpus == "" || !strings.HasPrefix(src, corpus) {
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			if b, n := withRealUsage(t, b); n > 0 {
				variant = "with a real API's usage"
				path = filepath.Join(dir, fmt.Sprintf("u%d-%s", k, filepath.Base(src)))
				require.NoError(t, os.WriteFile(path, b, 0o600))
			}
		}
		heldToJSON := false
		{
			before := infoOf(t, path)
			for ci, c := range figureCommands {
				if !c.prints && corpus != "" && strings.HasPrefix(src, corpus) {
					continue // one that prints no figure is held on testdata's
				}
				if (slices.Contains(c.args, "--redact-secrets") || c.args[0] == "redact-secrets") && !strings.HasPrefix(filepath.Base(src), "secrets") {
					// redaction changes nothing but the sessions made to hold
					// secrets (the corpus: "0 findings"), and each run builds
					// its scanner (20 ms: over every session, a third of the
					// test's time)
					continue
				}
				args := append([]string(nil), c.args...)
				args = append(args, path)
				if c.args[0] == "fork" {
					args = append(args, "1")
				}
				member := fmt.Sprintf("%s (%s) × %s", testcorpus.Name(src), variant, c.name)
				out := func(form string) string {
					return filepath.Join(dir, fmt.Sprintf("%d-%d-%s-%s.jsonl", k, ci, strings.ReplaceAll(variant, " ", "_"), form))
				}
				// --json, written
				jpath := out("json")
				stdout, errs, code := cliRun(t, append([]string{"--json", "-q"}, append(args, "-o", jpath)...)...)
				if code != 0 {
					continue // refused (nothing to fit, nothing to repair): no figure to hold
				}
				var r struct {
					ResumeTokens    *struct{ After int } `json:"resume_tokens"`
					NothingToChange bool                 `json:"nothing_to_change"`
					BytesAfter      int64                `json:"bytes_after"`
				}
				require.NoError(t, json.Unmarshal([]byte(stdout), &r), "%s: %s", member, stdout)
				if c.prints == (r.ResumeTokens == nil) && !r.NothingToChange {
					t.Errorf("%s: prints a token figure: %v, the table (and the README's \"Tokens\") says %v", member, r.ResumeTokens != nil, c.prints)
				}
				if r.ResumeTokens == nil {
					continue // prints no token figure
				}
				if _, err := os.Stat(jpath); err != nil {
					continue // nothing written (nothing to change)
				}
				written := infoOf(t, jpath)
				if !heldToJSON {
					heldToJSON = true
					require.Equal(t, infoJSONOf(t, jpath), written, "%s: info --json and chain's estimate of the written file", member)
				}
				why := func() string {
					if written.overhead != before.overhead {
						return fmt.Sprintf("the measure of the system prompt moved: %d on the session, %d on the written file", before.overhead, written.overhead)
					}
					return "the measure of the system prompt did not move"
				}
				compared++
				if before.measured {
					measuredRows++
				}
				if written.overhead != before.overhead {
					moved++
				}
				if r.ResumeTokens.After != written.tokens {
					t.Errorf("%s, --json: printed resume_tokens.after %d, info --json counts the written file at %d (%s)", member, r.ResumeTokens.After, written.tokens, why())
				}
				// --json --dry-run: the figure of what it would write
				stdout, errs, code = cliRun(t, append([]string{"--json", "-q"}, append(args, "-o", out("dry"), "--dry-run")...)...)
				require.Equal(t, 0, code, "%s --dry-run: %s", member, errs)
				require.NoError(t, json.Unmarshal([]byte(stdout), &r), "%s: %s", member, stdout)
				if r.ResumeTokens == nil || r.ResumeTokens.After != written.tokens {
					t.Errorf("%s, --dry-run --json: printed %+v, info --json counts what it writes at %d (%s)", member, r.ResumeTokens, written.tokens, why())
				}
				if st, err := os.Stat(jpath); err != nil {
					t.Errorf("%s: %v", member, err)
				} else if r.BytesAfter != st.Size() {
					t.Errorf("%s, --dry-run --json: bytes_after %d, the file it writes is %d bytes", member, r.BytesAfter, st.Size())
				}
				// text, written (the same bytes as with --json: info's
				// count of them is the one above)
				tpath := out("text")
				stdout, errs, code = cliRun(t, append([]string{"-q"}, append(args, "-o", tpath)...)...)
				require.Equal(t, 0, code, "%s (text): %s", member, errs)
				a, _ := os.ReadFile(jpath)
				b, _ := os.ReadFile(tpath)
				textInfo := written
				if !bytes.Equal(a, b) {
					textInfo = infoOf(t, tpath)
				}
				m := printedTokens.FindStringSubmatch(stdout)
				if m == nil && r.NothingToChange {
					continue // "no change; wrote an identical copy": no figure printed
				}
				if m == nil || m[2] != chain.HumanTokens(textInfo.tokens) {
					t.Errorf("%s, text: printed %q, info counts the written file at %s (%s)", member, m, chain.HumanTokens(textInfo.tokens), why())
				}
				for _, p := range []string{jpath, tpath} {
					_ = os.Remove(p)
				}
			}
		}
	}
	t.Logf("%d figures compared on %d sessions (%d on sessions whose system prompt is measured; the measure moved on %d) in %s", compared, len(sessions), measuredRows, moved, time.Since(start))
	require.Positive(t, moved, "no member moves the measure of the system prompt: the test no longer holds the case it was written for")
}

type infoFigure struct {
	tokens, overhead int
	measured         bool
}

// infoOf is info's count of the session at path (chain's estimate of
// the resume, which `info --json` prints as resume_tokens and
// resume.overhead: held equal to it by infoJSONOf once a session).
func infoOf(t *testing.T, path string) infoFigure {
	t.Helper()
	s, err := chain.Load(path)
	require.NoError(t, err, path)
	defer s.Close()
	r := s.Main.ResumeTokens()
	return infoFigure{r.Total(), r.Overhead, r.OverheadMeasured}
}

// infoJSONOf is what `info --json` says of the session at path.
func infoJSONOf(t *testing.T, path string) infoFigure {
	t.Helper()
	stdout, errs, code := cliRun(t, "--json", "-q", "info", path)
	require.Equal(t, 0, code, "info %s: %s", path, errs)
	j := gjson.Parse(stdout)
	require.True(t, j.Get("resume_tokens").Exists(), stdout)
	return infoFigure{int(j.Get("resume_tokens").Int()), int(j.Get("resume.overhead").Int()), j.Get("resume.overhead_measured").Bool()}
}

// withRealUsage gives each response that records usage the input a real
// API reports (a system prompt and tools of about 15,000 tokens, growing
// with the conversation), every other byte as it was, and returns how
// many it changed.
func withRealUsage(t *testing.T, b []byte) ([]byte, int) {
	t.Helper()
	var out bytes.Buffer
	n := 0
	sc := bufio.NewReader(bytes.NewReader(b))
	for {
		line, err := sc.ReadBytes('\n')
		if len(line) > 0 {
			j := gjson.ParseBytes(line)
			if j.Get("type").Str == "assistant" && j.Get("message.usage.input_tokens").Exists() && j.Get("message.model").Str != "<synthetic>" {
				nl, serr := sjson.SetBytes(bytes.TrimSuffix(line, []byte("\n")), "message.usage.input_tokens", 15000+500*n)
				require.NoError(t, serr)
				line = append(nl, '\n')
				n++
			}
			out.Write(line)
		}
		if err != nil {
			break
		}
	}
	return out.Bytes(), n
}
