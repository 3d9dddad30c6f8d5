package app

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/internal/testlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lsConfig makes a config dir with every session of testdata and of
// ../shared/corpus, each in a project folder of its own.
func lsConfig(t *testing.T) (cfg string, n int) {
	t.Helper()
	cfg = t.TempDir()
	var srcs []string
	pats := []string{"../../testdata/sessions/*/*.jsonl"}
	if corpus := testcorpus.Optional(t); corpus != "" {
		pats = append(pats, filepath.Join(corpus, "*", "*.jsonl"))
	}
	for _, pat := range pats {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		srcs = append(srcs, m...)
	}
	require.NotEmpty(t, srcs)
	for k, src := range srcs {
		if !strings.HasPrefix(filepath.Base(src), "agent-") { // 1.0 subagent files are not sessions
			n++
		}
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		dir := filepath.Join(cfg, "projects", "-p"+string(rune('a'+k%26))+strings.Repeat("x", k/26))
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o600))
	}
	return cfg, n
}

func lsJSON(t *testing.T, cfg string, args LsOptions) []SessionSummary {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{ConfigDir: cfg, JSON: true, Out: &out, Err: &errb}
	require.NoError(t, env.RunLs(args))
	var rows []SessionSummary
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows), out.String())
	return rows
}

// TestLsReadsHeadsAndTails lists every session we have twice: from heads
// and tails (the default) and from whole files (--turns). Both must say the
// same of every session but the turn count, which only --turns gives, and
// that count must be the number of turns the session has.
func TestLsReadsHeadsAndTails(t *testing.T) {
	cfg, n := lsConfig(t)
	fast := lsJSON(t, cfg, LsOptions{})
	full := lsJSON(t, cfg, LsOptions{Turns: true})
	require.Len(t, fast, n)
	require.Len(t, full, n)
	byPath := map[string]SessionSummary{}
	for _, r := range full {
		byPath[r.Path] = r
	}
	windows, lastPrompts := 0, 0
	for _, r := range fast {
		w, ok := byPath[r.Path]
		require.True(t, ok, r.Path)
		assert.Nil(t, r.Turns, "turns are counted only with --turns")
		require.NotNil(t, w.Turns)
		f, err := chain.LoadFile(r.Path)
		require.NoError(t, err)
		assert.Equal(t, len(f.ActiveTurns().List), *w.Turns, r.Path)
		f.Close()
		w.Turns = nil
		assert.Equal(t, w, r, "head and tail give what the whole file gives: %s", r.Path)
		if r.Size > headWindow+tailWindow {
			windows++
		}
		if r.LastPrompt != "" {
			lastPrompts++
		}
		if strings.Contains(r.Path, "2.1.328") {
			assert.NotEmpty(t, r.FirstPrompt, r.Path)
			assert.True(t, filepath.IsAbs(r.Project), "project is the session's cwd: %q", r.Project)
		}
	}
	assert.GreaterOrEqual(t, windows, 5, "sessions big enough to be read by windows")
	// no session here has a title of its own (the one summary, in ccviewer
	// fe5e1c67, is another session's): TestLsBigSession and
	// TestLsSummaryOfAnotherSession read titles by head and tail
	assert.Positive(t, lastPrompts, "a session with a last prompt")
}

// TestLsBigSession lists a session of 8 GB (a sparse file: a real
// session, a hole, and a title appended at the end). Reading it whole would
// take minutes and gigabytes; ls reads its head and tail and finds its
// first prompt and title.
func TestLsBigSession(t *testing.T) {
	cfg := t.TempDir()
	src := "../../testdata/sessions/2.1.328/tools.jsonl"
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	f, err := chain.LoadBytes(src, b)
	require.NoError(t, err)
	want, err := f.PromptText(f.ActiveTurns().List[0].Entry)
	require.NoError(t, err)
	dir := filepath.Join(cfg, "projects", "-work-big")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")
	fh, err := os.Create(path)
	require.NoError(t, err)
	_, err = fh.Write(b)
	require.NoError(t, err)
	tail := "\n" + `{"type":"custom-title","customTitle":"the big one","sessionId":"11111111-2222-4333-8444-555555555555"}` + "\n" +
		`{"type":"last-prompt","lastPrompt":"and one more thing","sessionId":"11111111-2222-4333-8444-555555555555"}` + "\n"
	const size = 8 << 30
	_, err = fh.WriteAt([]byte(tail), size-int64(len(tail)))
	require.NoError(t, err)
	require.NoError(t, fh.Close())

	rows := lsJSON(t, cfg, LsOptions{})
	require.Len(t, rows, 1)
	r := rows[0]
	assert.Equal(t, int64(size), r.Size)
	assert.Equal(t, want, r.FirstPrompt)
	assert.Equal(t, "the big one", r.Title)
	assert.Equal(t, "and one more thing", r.LastPrompt)
	assert.True(t, filepath.IsAbs(r.Project), r.Project)

	var out bytes.Buffer
	env := &Env{ConfigDir: cfg, Out: &out, Err: &out}
	require.NoError(t, env.RunLs(LsOptions{}))
	assert.Contains(t, out.String(), "the big one")
	assert.Contains(t, out.String(), "8.6 GB")
	assert.NotContains(t, out.String(), "TURNS")
}

// TestLsTailWindowStartsAtALine puts the title line exactly where the tail
// window starts: the window holds it whole and must not drop it as the
// rest of a cut line.
func TestLsTailWindowStartsAtALine(t *testing.T) {
	cfg := t.TempDir()
	b, err := os.ReadFile("../../testdata/sessions/2.1.328/tools.jsonl")
	require.NoError(t, err)
	dir := filepath.Join(cfg, "projects", "-work-edge")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	title := `{"type":"custom-title","customTitle":"EDGE","sessionId":"11111111-2222-4333-8444-555555555555"}` + "\n"
	padHead, padTail := `{"type":"x-pad","pad":"`, `"}`+"\n"
	pad := padHead + strings.Repeat("p", tailWindow-len(title)-len(padHead)-len(padTail)) + padTail
	doc := string(b) + title + pad
	require.Equal(t, len(doc)-tailWindow, len(b), "the title starts the tail window")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl"), []byte(doc), 0o600))
	for _, turns := range []bool{false, true} {
		rows := lsJSON(t, cfg, LsOptions{Turns: turns})
		require.Len(t, rows, 1)
		assert.Equal(t, "EDGE", rows[0].Title, "--turns %v", turns)
	}
}

// workingDirProject makes a config dir holding the (empty) project folder
// of the current working directory, where --pick and the default session
// look.
func workingDirProject(t *testing.T) (cfg, dir string) {
	t.Helper()
	cfg = t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	dir = filepath.Join(cfg, "projects", chain.ProjectSlug(wd))
	require.NoError(t, os.MkdirAll(dir, 0o700))
	return cfg, dir
}

// TestPickSession: off a terminal, --pick lists this folder's project's
// sessions newest first, numbered, and takes the one whose number is read.
func TestPickSession(t *testing.T) {
	cfg, dir := workingDirProject(t)
	var paths []string
	for _, name := range []string{"tools.jsonl", "multi-turn.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "2.1.328", name))
		require.NoError(t, err)
		p := filepath.Join(dir, strings.TrimSuffix(name, ".jsonl")+"-0000-0000-0000-000000000000.jsonl")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		paths = append(paths, p)
	}
	old := time.Now().Add(-3 * time.Hour)
	require.NoError(t, os.Chtimes(paths[0], old, old))

	var errb bytes.Buffer
	env := &Env{ConfigDir: cfg, In: strings.NewReader("1\n"), Err: &errb}
	got, err := env.PickSession()
	require.NoError(t, err)
	assert.Equal(t, paths[1], got, "1 is the newest")
	assert.Regexp(t, `(?s)^\s+ID\s+AGE\s+SIZE\s+RECORDED\s+TITLE OR FIRST PROMPT\n\s+1\s+multi-tu\s+(just now|\d+ seconds ago)\s+\S+ KB\s+[0-9,]+\s+\S.*\n\s+2\s+tools-00\s+3h ago.*session \(1-2\): 1\n$`, errb.String())

	env.In = strings.NewReader("3\n")
	_, err = env.PickSession()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want a number from 1 to 2, got \"3\"")
}

// TestPickWithKeys: the arrow keys (and j/k, page and home/end keys) move
// the highlighted line, scrolling a list longer than the terminal; Enter
// chooses, q and Esc cancel; what was drawn is erased.
func TestPickWithKeys(t *testing.T) {
	lines := []string{"aaa", "bbb", "ccc", "ddd", "eee", "fff"}
	for _, tc := range []struct {
		name, keys string // keys: one read each, separated by spaces
		want       int
		cancel     bool
	}{
		{"enter picks the first", "\r", 0, false},
		{"down twice", "\x1b[B \x1b[B \r", 2, false},
		{"application-mode arrows", "\x1bOB \x1bOB \x1bOA \n", 1, false},
		{"up stops at the top", "\x1b[A \x1b[A \x1b[B \r", 1, false},
		{"down stops at the bottom", "j j j j j j j j j k \r", 4, false},
		{"end and home", "\x1b[F \x1b[H \x1b[B \r", 1, false},
		{"page down", "\x1b[6~ \r", 3, false},
		{"keys in one read", "jj\r", 2, false},
		{"q cancels", "j q", 0, true},
		{"esc cancels", "j \x1b", 0, true},
		{"ctrl-c cancels", "j \x03", 0, true},
		{"end of input cancels", "j", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			got, err := pickWithKeys(&keyReader{strings.Split(tc.keys, " ")}, &w, "HEADER", lines, 6, 80) // room for 3 lines
			if tc.cancel {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no session picked")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				if last := tc.keys[strings.LastIndex(tc.keys, " ")+1:]; last == "\r" || last == "\n" {
					frames := strings.Split(w.String(), "\x1b[?25l")
					assert.Contains(t, frames[len(frames)-1], "\x1b[7m> "+lines[tc.want], "the chosen line is highlighted when Enter is pressed")
				}
			}
			assert.True(t, strings.HasSuffix(w.String(), "\r\x1b[5A\x1b[J\x1b[?25h"), "the list (title, header, 3 lines) is erased and the cursor shown: %q", w.String())
			for _, frame := range strings.Split(w.String(), "\x1b[?25l")[1:] {
				assert.Equal(t, 5, strings.Count(frame, "\n"), "each frame: title, header and 3 of the 6 lines: %q", frame)
			}
		})
	}
}

// keyReader returns one key (or run of keys) per Read, as a terminal in
// raw mode does.
type keyReader struct{ keys []string }

func (k *keyReader) Read(b []byte) (int, error) {
	if len(k.keys) == 0 {
		return 0, io.EOF
	}
	n := copy(b, k.keys[0])
	k.keys = k.keys[1:]
	return n, nil
}

func TestFitWidth(t *testing.T) {
	assert.Equal(t, "abcd", fitWidth("abcdefgh", 5))
	assert.Equal(t, "日本", fitWidth("日本語", 6), "wide characters count two columns")
	assert.Equal(t, "short", fitWidth("short", 80))
}

// TestFilesThatAreNotSessionsAreNotListed: an empty .jsonl, a stray file
// and a symlink to a file that is not a session, in a project folder, are
// not sessions (README: Safety): ls, --all and --pick pass them by, and
// they are the newest files of the folder; the default session passes by
// all but the empty one, which the client's --continue takes; a SESSION
// named by the stray file's id still says why it is not one.
func TestFilesThatAreNotSessionsAreNotListed(t *testing.T) {
	testlink.Need(t)
	cfg, dir := workingDirProject(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "2.1.328", "tools.jsonl"))
	require.NoError(t, err)
	real := filepath.Join(dir, "11111111-0000-4000-8000-000000000000.jsonl")
	require.NoError(t, os.WriteFile(real, b, 0o600))
	old := time.Now().Add(-3 * time.Hour)
	require.NoError(t, os.Chtimes(real, old, old))
	notSession := filepath.Join(t.TempDir(), "passwd")
	require.NoError(t, os.WriteFile(notSession, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o600))
	strays := map[string]string{
		"22222222-0000-4000-8000-000000000000.jsonl": "",
		"33333333-0000-4000-8000-000000000000.jsonl": "not json at all\n{\"a\": 1}\n",
	}
	for name, body := range strays {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	require.NoError(t, os.Symlink(notSession, filepath.Join(dir, "44444444-0000-4000-8000-000000000000.jsonl")))

	rows := lsJSON(t, cfg, LsOptions{})
	require.Len(t, rows, 1, "%+v", rows)
	assert.Equal(t, real, rows[0].Path)

	env := &Env{ConfigDir: cfg, Err: io.Discard}
	all, err := env.AllSessions()
	require.NoError(t, err)
	assert.Equal(t, []string{real}, all)
	// the empty one is what 2.1.332's --continue takes (and starts from
	// nothing: TestEmptyNewestFileShadowsContinue): the default says so
	// instead of taking another session than the client
	_, err = env.ContinueSession()
	var ce *ContinueEmptyError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, filepath.Join(dir, "22222222-0000-4000-8000-000000000000.jsonl"), ce.Empty)
	assert.Equal(t, real, ce.Session)
	// the other strays are passed by, as before (a symlink the client
	// does not list either; the file of no JSON: not checked with it)
	require.NoError(t, os.Remove(ce.Empty))
	got, err := env.ContinueSession()
	require.NoError(t, err)
	assert.Equal(t, real, got, "the newest session, not the newest file")

	_, err = chain.Locate(cfg, "33333333")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a Claude Code session")
}

// TestLsSummaryOfAnotherSession: 1.0.x wrote `summary` entries at the top
// of a new session for the sessions before it; their leafUuid names an
// entry of another file (shape: ccviewer fe5e1c67, whose summary names the
// leaf of 1af7fc5e). Such a summary is not the title of the file it sits
// in. A summary whose leafUuid names an entry of its own file is, also
// when that entry lies past the head window (read by head and tail).
func TestLsSummaryOfAnotherSession(t *testing.T) {
	cfg := t.TempDir()
	dir := filepath.Join(cfg, "projects", "-path-to-Demo")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	corpus := testcorpus.Path(t, "ccviewer") + string(filepath.Separator)
	for _, name := range []string{"fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"} {
		b, err := os.ReadFile(corpus + name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	// its own summary at the top, naming its last entry, with padding
	// between them so that ls reads it by head and tail
	own, err := os.ReadFile(corpus + "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
	require.NoError(t, err)
	f, err := chain.LoadBytes("own.jsonl", own)
	require.NoError(t, err)
	leaf := f.Entries[f.Graph().ActiveLeaf()].UUID()
	pad := strings.Repeat(`{"type":"queue-operation","operation":"remove","sessionId":"22222222-2222-4222-8222-222222222222"}`+"\n", 3*headWindow/100)
	big := `{"type":"summary","summary":"own title","leafUuid":"` + leaf + `"}` + "\n" + pad + string(own)
	require.Greater(t, len(big), headWindow+tailWindow)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "22222222-2222-4222-8222-222222222222.jsonl"), []byte(big), 0o600))

	for _, turns := range []bool{false, true} {
		titles := map[string]string{}
		for _, r := range lsJSON(t, cfg, LsOptions{Turns: turns}) {
			titles[r.ID] = r.Title
		}
		assert.Empty(t, titles["fe5e1c67-53e7-4862-81ae-d0e013e3270b"], "the summary at its top is another session's (turns=%v)", turns)
		assert.Equal(t, "own title", titles["22222222-2222-4222-8222-222222222222"], "turns=%v", turns)
	}
}

// TestPickFigureIsInfosRecorded: the token figure --pick shows is the one
// `info` prints as recorded, for every real session of ../shared/corpus
// that records usage (one figure, one label, one format).
func TestPickFigureIsInfosRecorded(t *testing.T) {
	root := testcorpus.Require(t)
	n := 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.Contains(p, "subagents") || strings.HasPrefix(d.Name(), "agent-") {
			return err
		}
		sum, err := summarizeOne(p, false)
		require.NoError(t, err)
		s, err := chain.Load(p)
		require.NoError(t, err)
		defer s.Close()
		r := Info(s, p)
		require.Equal(t, sum.ContextTokens, r.RecordedTokens, p)
		if r.RecordedTokens > 0 {
			n++
		}
		return nil
	}))
	require.NotZero(t, n)
}

// TestLsTitleFromAITitle: 2.1.332 writes ai-title entries (a /fork
// background session's "⑂ PROMPT"), and its picker lists the session by
// that title, but by a custom title (/rename) before it wherever that
// lies in the file (measured: a custom-title line first or last in the
// testdata fork-session file, both listed by it). ls's title is the same,
// read whole (--turns) and by head and tail windows alike.
func TestLsTitleFromAITitle(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "2.1.328", "shapes", "fork-session.jsonl"))
	require.NoError(t, err)
	pad := strings.Repeat(`{"type":"queue-operation","operation":"remove","sessionId":"33333333-3333-4333-8333-333333333333"}`+"\n", 3*headWindow/100)
	rename := `{"type":"custom-title","customTitle":"renamed","sessionId":"33333333-3333-4333-8333-333333333333"}` + "\n"
	for _, c := range []struct {
		name, data, want string
	}{
		{"as written", string(src), "⑂ Say the forked thing."},
		{"big", pad + string(src), "⑂ Say the forked thing."},
		{"renamed at the top", rename + string(src), "renamed"},
		{"renamed at the end", string(src) + rename, "renamed"},
		{"big, renamed at the top", rename + pad + string(src), "renamed"},
	} {
		cfg := t.TempDir()
		dir := filepath.Join(cfg, "projects", "-p")
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "33333333-3333-4333-8333-333333333333.jsonl"), []byte(c.data), 0o600))
		for _, turns := range []bool{false, true} {
			rs := lsJSON(t, cfg, LsOptions{Turns: turns})
			require.Len(t, rs, 1)
			assert.Equal(t, c.want, rs[0].Title, "%s (turns=%v)", c.name, turns)
		}
	}
}
