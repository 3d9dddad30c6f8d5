package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
}

// delay is how long work runs before the bar appears.
const progressDelay = time.Second

func (env *Env) newProgress() *progress {
	p := &progress{w: env.Err, stop: make(chan struct{})}
	p.enabled = !env.Quiet && !env.JSON && isTerminal(env.Err)
	if !p.enabled {
		return p
	}
	p.stopped.Add(1)
	go p.loop()
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Phase starts a new stretch of work of total bytes.
func (p *progress) Phase(name string, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	p.phase, p.total, p.start = name, total, time.Now()
	p.done.Store(0)
	p.mu.Unlock()
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

func (p *progress) loop() {
	defer p.stopped.Done()
	began := time.Now()
	t := time.NewTicker(200 * time.Millisecond)
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
	done := p.done.Load()
	if p.total <= 0 { // work without a byte count: say how long it has run
		fmt.Fprintf(p.w, "\r%-10s %-60s", p.phase, fmt.Sprintf("working… %.0fs", time.Since(p.start).Seconds()))
		p.shown = true
		return
	}
	rate := float64(done) / time.Since(p.start).Seconds()
	const width = 30
	filled := 0
	if p.total > 0 {
		filled = int(float64(width) * float64(min(done, p.total)) / float64(p.total))
	}
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	fmt.Fprintf(p.w, "\r%-10s [%s] %s / %s  %s/s ", p.phase, bar, HumanBytes(done), HumanBytes(p.total), HumanBytes(int64(rate)))
	p.shown = true
}

// Done removes the bar.
func (p *progress) Done() {
	if p == nil || !p.enabled {
		return
	}
	close(p.stop)
	p.stopped.Wait()
	if p.shown {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 90))
	}
}
