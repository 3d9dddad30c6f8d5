package ops_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/ccsurgeon/ccsurgeon/internal/harness"
	"github.com/stretchr/testify/require"
)

// Every test that starts real clients calls t.Parallel() first: the
// clients of all of them then share the cores (go test -parallel, one
// per core) instead of each test's last client running alone before the
// next test starts.

// fixture is a generated session installed in an isolated Claude Code
// environment, with ccsurgeon pointed at the same config dir.
type fixture struct {
	env    *harness.Env
	client harness.Client
	id     string
	src    string
}

// sessionFiles lists the generated sessions of a client version that the
// real-client tests of every operation resume (clone, fork-at-turn,
// strip-thinking, drop-tool-calls, compress-old-turns, all of them at
// once; chain's rebuild against the client's): each shape once. A
// session kept for its content only, whose shape another one has
// (sameShape), is left to the tests of that content.
func sessionFiles(t *testing.T, version string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", harness.SessionsFolder(version), "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no generated sessions for %s", version)
	return slices.DeleteFunc(files, func(p string) bool { return sameShape[filepath.Base(p)] != "" })
}

// sameShape names the generated sessions kept for their content, each
// with the session whose shape it has: secrets.jsonl holds the planted
// secrets the redact tests look for (TestRedactSecretsLeavesNoSecret
// resumes its redacted copy with both clients), in turns of one tool
// call and an answer, the shape of tools.jsonl's last turn (and the
// entry kinds and tools of tools.jsonl): resuming its clone, forks,
// shrunk copies and original too, 14 client runs a package run, proved
// nothing tools.jsonl's did not. TestSameShapeSessionsHaveTheirShape
// holds each to it.
var sameShape = map[string]string{"secrets.jsonl": "tools.jsonl"}

func newFixture(t *testing.T, c harness.Client, src string) *fixture {
	t.Helper()
	env := harness.NewEnv(t)
	id := env.InstallSession(t, src)
	return &fixture{env: env, client: c, id: id, src: src}
}

// ccsurgeon runs a command of the app against the fixture's config dir
// with --json and returns the decoded result.
func (fx *fixture) ccsurgeon(t *testing.T, run func(a *app.Env) error) app.WriteResult {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app.Env{ConfigDir: fx.env.ConfigDir, JSON: true, Out: &out, Err: &errb}
	require.NoError(t, run(a), "stderr: %s", errb.String())
	var r app.WriteResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &r), "output: %s", out.String())
	return r
}

// resume resumes a session with the fixture's client and requires the API
// rules to hold. The fixture's session holding its source's bytes again
// (a repair that restored them) is the original: its resume is reused.
func (fx *fixture) resume(t *testing.T, id string) harness.ResumeResult {
	t.Helper()
	if id == fx.id && fx.src != "" {
		src, err := os.ReadFile(fx.src)
		require.NoError(t, err)
		now, err := os.ReadFile(fx.env.SessionPath(fx.id))
		require.NoError(t, err)
		if bytes.Equal(src, now) {
			return fx.original(t)
		}
	}
	return fx.env.MustResume(t, fx.client, id)
}

// originals holds what each client sent on resuming each source session
// of the package's tests, unchanged: the same file resumed by the same
// client sends the same conversation (harness TestGeneratedSessionsResume
// checks it, in two environments), so the tests that compare an
// operation's result with its original resume it once, not once each.
// A resume costs 1.5-3 s of CPU; this saves over a hundred of them.
var originals sync.Map // client version + "\x00" + src -> *originalResume

type originalResume struct {
	once sync.Once
	r    harness.ResumeResult
}

// originalResult is what the fixture's client sends on resuming the
// fixture's source session, as it was installed (it fails the test when
// the session was changed since: resume it with fx.resume then).
func (fx *fixture) originalResult(t *testing.T) harness.ResumeResult {
	t.Helper()
	src, err := os.ReadFile(fx.src)
	require.NoError(t, err)
	now, err := os.ReadFile(fx.env.SessionPath(fx.id))
	require.NoError(t, err)
	require.True(t, bytes.Equal(src, now), "originalResult: the installed session was changed: resume it instead")
	v, _ := originals.LoadOrStore(fx.client.Version+"\x00"+fx.src, &originalResume{})
	o := v.(*originalResume)
	o.once.Do(func() { o.r = fx.env.Resume(t, fx.client, fx.id) })
	return o.r
}

// original is originalResult that fails the test unless the client
// resumed the original cleanly.
func (fx *fixture) original(t *testing.T) harness.ResumeResult {
	t.Helper()
	r := fx.originalResult(t)
	if !r.OK() {
		t.Fatalf("harness: resume of the original %s failed: %s", fx.src, r)
	}
	return r
}

// sameNormalizer maps the given session ids to one placeholder, so that two
// sessions holding the same conversation compare equal.
func sameNormalizer(env *harness.Env, ids ...string) *harness.Normalizer {
	n := harness.NewNormalizer(env)
	for _, id := range ids {
		n.Replace[id] = "<SESSION>"
	}
	return n
}

var uuidRe = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// idsOf returns every UUID in a file.
func idsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, m := range uuidRe.FindAll(b, -1) {
		ids[strings.ToLower(string(m))] = true
	}
	delete(ids, "00000000-0000-0000-0000-000000000000")
	return ids
}

// structuralStrings returns every string value of every line of path that
// is not inside message content or tool output, with where it sits.
func structuralStrings(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]string{}
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(line, &m))
		for k, v := range m {
			switch k {
			case "message", "toolUseResult", "content", "lastPrompt", "attachment", "data", "display", "summary":
				continue // content: may quote anything
			}
			collectStrings(v, func(s string) { out[s] = filepath.Base(path) + ":" + string(rune('0'+n%10)) + ":" + k })
		}
	}
	return out
}

func collectStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for k, y := range x {
			fn(k)
			collectStrings(y, fn)
		}
	case []any:
		for _, y := range x {
			collectStrings(y, fn)
		}
	}
}

// resultResume is what client c sends for an operation's result, the
// session resultID of env written from the session origID, whose resume
// by c is orig: orig itself when the result is the original renamed
// (renamed; a fork at the last turn of a 2.0.x session is one), as for a
// clone, else a resume of its own, which must pass the API rules.
func resultResume(t *testing.T, env *harness.Env, c harness.Client, origID, resultID string, orig harness.ResumeResult) harness.ResumeResult {
	t.Helper()
	if renamed(t, resultID, env.SessionPath(origID), env.SessionPath(resultID)) == nil {
		t.Logf("%s is %s renamed: %s's resume of the original stands for it", resultID, origID, c)
		return orig
	}
	return env.MustResume(t, c, resultID)
}

// requireRenamed requires the session file clone to be the session file
// orig renamed (renamed).
func requireRenamed(t *testing.T, name, orig, clone string) {
	t.Helper()
	require.NoError(t, renamed(t, name, orig, clone))
}

// renamed is nil when the session file clone is the session file orig
// renamed: byte for byte the same once one bijection maps its quoted
// uuids back (unrename.compare), with at least one renamed and none it
// renamed left anywhere outside message content (a link to an old id
// would be a link to nothing). A renamed file is the same graph, from
// which the client rebuilds the same conversation:
// TestCloneResumesTheSameConversation resumes the clone of every
// generated session with both clients and holds that.
func renamed(t *testing.T, name, orig, clone string) error {
	t.Helper()
	m := newUnrename()
	if err := m.compare(name, readFile(t, orig), readFile(t, clone)); err != nil {
		return err
	}
	if len(m.toFast) == 0 {
		return fmt.Errorf("%s: the same bytes, no id renamed", name)
	}
	for s, where := range structuralStrings(t, clone) {
		for _, id := range uuidRe.FindAllString(s, -1) {
			if _, ok := m.toFast[id]; ok {
				return fmt.Errorf("%s: the clone keeps the renamed id %s at %s", name, id, where)
			}
		}
	}
	return nil
}
