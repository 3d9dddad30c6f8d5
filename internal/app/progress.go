package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progress draws a bar on stderr for work that takes longer than about a
// second: the phase, bytes done of the phase's total, and the rate. It is
// silent when stderr is not a terminal, with --quiet or with --json.
type progress struct {
	w       io.Writer
	enabled bool
	mu      sync.Mutex
	phase   string
	total   int64
	done    atomic.Int64
	start   time.Time
	shown   bool
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
	began   time.Time
}

// progressDelay is how long work runs before the bar appears.
var progressDelay = time.Second

// progressTick is how often the bar is redrawn.
var progressTick = 200 * time.Millisecond

// forceProgress draws the bar whatever stderr is (for tests).
var forceProgress = false

func (env *Env) newProgress() *progress {
	p := &progress{w: env.Err, stop: make(chan struct{}), began: time.Now()}
	p.enabled = !env.Quiet && !env.JSON && (isTerminal(env.Err) || forceProgress)
	if !p.enabled {
		return p
	}
	p.stopped.Add(1)
	go p.loop()
	return p
}

// isTerminal reports whether w (or a reader) is a terminal. A character
// device is not enough: /dev/null is one, and nobody answers there.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Interactive reports whether a person can be asked: stdin and stderr are
// both terminals.
func (env *Env) Interactive() bool { return isTerminal(env.In) && isTerminal(env.Err) }

// Ago says how long ago, roughly: "just now", "42 seconds ago", "5m ago",
// "3h ago", "2d ago".
func Ago(d time.Duration) string { return ago(d) }

// Phase starts a new stretch of work of total bytes (0: unknown). A bar
// on screen is first drawn full for the phase that ends.
func (p *progress) Phase(name string, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	p.complete()
	p.phase, p.total, p.start = name, total, time.Now()
	p.done.Store(0)
	if time.Since(p.began) >= progressDelay { // the bar is up: show the new phase at once
		p.drawLocked()
	}
	p.mu.Unlock()
}

// complete draws the current phase's bar at 100% if the bar is on screen
// (the work of the phase is over: what it counted may fall short of the
// estimate it started with). Called with mu held.
func (p *progress) complete() {
	if p.shown && p.total > 0 {
		p.done.Store(p.total)
		p.drawLocked()
	}
}

// Add counts n bytes done.
func (p *progress) Add(n int64) {
	if p != nil && p.enabled {
		p.done.Add(n)
	}
}

// Writer wraps w so that what is written counts as done.
func (p *progress) Writer(w io.Writer) io.Writer {
	if p == nil || !p.enabled {
		return w
	}
	if wa, ok := w.(writerAt); ok {
		return progressWriterAt{progressWriter{w, p}, wa}
	}
	return progressWriter{w, p}
}

type progressWriter struct {
	w io.Writer
	p *progress
}

func (pw progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.Add(int64(n))
	return n, err
}

// writerAt is a writer that also writes at a place (backup's, for a
// render that writes its blocks from every core: ops.Remapper.Stream).
type writerAt interface {
	io.Writer
	io.WriterAt
}

// progressWriterAt counts what is written at a place too.
type progressWriterAt struct {
	progressWriter
	wa io.WriterAt
}

func (pw progressWriterAt) WriteAt(b []byte, off int64) (int, error) {
	n, err := pw.wa.WriteAt(b, off)
	pw.p.Add(int64(n))
	return n, err
}

func (p *progress) loop() {
	defer p.stopped.Done()
	began := p.began
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if time.Since(began) >= progressDelay {
				p.draw()
			}
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked()
}

func (p *progress) drawLocked() {
	done := p.done.Load()
	phase := p.phase
	if phase == "" {
		phase = "starting"
	}
	secs := time.Since(p.start).Seconds()
	var line string
	switch {
	case p.total <= 0 && done > 0: // bytes without a known total: no bar, no percentage
		line = fmt.Sprintf("%-12s %s  %s/s", phase, HumanBytes(done), HumanBytes(int64(float64(done)/secs)))
	case p.total <= 0:
		line = fmt.Sprintf("%-12s %.0fs", phase, secs)
	default:
		const width = 30
		d := min(done, p.total)
		filled := int(float64(width) * float64(d) / float64(p.total))
		bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
		line = fmt.Sprintf("%-12s [%s] %3d%% %s / %s  %s/s", phase, bar, int(100*d/p.total), HumanBytes(d), HumanBytes(p.total), HumanBytes(int64(float64(done)/secs)))
	}
	fmt.Fprintf(p.w, "\r%-*s", clearWidth, line)
	p.shown = true
}

// clearWidth is the width of a progress line, which Done blanks.
const clearWidth = 90

// Done completes the bar, then removes it, so that what follows starts on
// a clean line. It may be called more than once.
func (p *progress) Done() {
	if p == nil || !p.enabled {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		p.stopped.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.complete()
		if p.shown {
			fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", clearWidth))
		}
	})
}
