package app

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the bar's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func drawnProgress(t *testing.T) {
	t.Helper()
	forceProgress, progressDelay, progressTick = true, 0, time.Millisecond
	t.Cleanup(func() { forceProgress, progressDelay, progressTick = false, time.Second, 200*time.Millisecond })
}

// TestProgressReaches100AndClears: a phase that ends is drawn full even if
// what it counted fell short of its estimate, every frame names its phase,
// and the bar is blanked before Done returns.
func TestProgressReaches100AndClears(t *testing.T) {
	drawnProgress(t)
	var w syncBuffer
	env := &Env{Err: &w}
	p := env.newProgress()
	p.Phase("reading", 1000)
	p.Add(700) // the estimate was high
	time.Sleep(450 * time.Millisecond)
	p.Phase("writing", 0)
	p.Add(5000)
	time.Sleep(450 * time.Millisecond)
	p.Done()
	p.Done() // a second Done is harmless
	out := w.String()
	frames := strings.Split(out, "\r")
	require.Greater(t, len(frames), 3, "%q", out)
	assert.Contains(t, out, "reading      [==============================] 100%")
	assert.Regexp(t, `writing\s+5.0 KB\s`, out)
	assert.NotContains(t, out, "working")
	for _, f := range frames[1 : len(frames)-2] {
		assert.Regexp(t, `^(reading|writing) `, f)
	}
	assert.Equal(t, "", frames[len(frames)-1], "the last thing written is a carriage return")
	assert.Regexp(t, `^ +$`, frames[len(frames)-2], "the bar is blanked")
}

// TestProgressClearedBeforeSummary: on a terminal, a change's summary starts
// on a blank line, after the bar is gone.
func TestProgressClearedBeforeSummary(t *testing.T) {
	drawnProgress(t)
	sb := newSandbox(t, "tools.jsonl")
	var w syncBuffer
	sb.env.JSON = false
	sb.env.Out, sb.env.Err = &w, &w
	require.NoError(t, sb.env.RunOps(sb.path, OpSpec{Drop: true, DropTools: []string{"Bash"}}, Dest{DryRun: true}))
	out := w.String()
	i := strings.Index(out, "dry run: ")
	require.GreaterOrEqual(t, i, 0, out)
	assert.Regexp(t, regexp.MustCompile(`\r +\r$`), out[:i], "the summary is glued to the bar: %q", out)
	assert.NotContains(t, out[i:], "\r", "the bar is drawn after the summary")
}

// TestProgressSilentOffTerminal: nothing is drawn when stderr is not a
// terminal.
func TestProgressSilentOffTerminal(t *testing.T) {
	progressDelay = 0
	t.Cleanup(func() { progressDelay = time.Second })
	var w syncBuffer
	p := (&Env{Err: &w}).newProgress()
	p.Phase("reading", 10)
	time.Sleep(300 * time.Millisecond)
	p.Done()
	assert.Empty(t, w.String())
}

// TestInfoNamesItsAnalysis: the seconds info spends after reading (the
// token estimate runs compress and strip-thinking unwritten) show as a
// named phase, gone before the report starts.
func TestInfoNamesItsAnalysis(t *testing.T) {
	drawnProgress(t)
	sb := newSandbox(t, "tools.jsonl")
	var w syncBuffer
	sb.env.JSON = false
	sb.env.Out, sb.env.Err = &w, &w
	require.NoError(t, sb.env.RunInfo(InfoOptions{Session: sb.path}))
	out := w.String()
	i := strings.Index(out, "session ")
	require.GreaterOrEqual(t, i, 0, out)
	assert.Contains(t, out[:i], "analysing ", "the analysis has no phase: %q", out[:i])
	assert.Regexp(t, regexp.MustCompile(`\r +\r$`), out[:i], "the report is glued to the bar: %q", out[:i])
	assert.NotContains(t, out[i:], "\r")
}

// TestDevNullIsNoTerminal (issue 27, finding 9): /dev/null is a character
// device, which the hand-written check took for a terminal: a command
// with stdin from /dev/null would have asked a question nobody sees.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err) // every OS the client runs on has one
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
	env := &Env{In: f, Err: f}
	if env.Interactive() {
		t.Fatal("an Env on /dev/null taken for a person to ask")
	}
}
