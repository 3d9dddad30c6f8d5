// Command testprogress shows a 'go test -json' run as it goes: a line per
// finished package and per finished top-level test slower than a second,
// and every 30 s the tests still running, so a long run (the real-client
// tests) is never silent. The output of a failed test is printed whole,
// and so is the compiler's output for a package that did not build.
//
// It ends with a summary: the tests that failed, by name (and the packages
// that failed without a failed test: a build failure, a panic or a
// timeout); the tests not run, grouped by the reason they gave (a fresh
// clone without ../shared/corpus: "not run: 26 tests: ../shared/corpus not
// found ... (set CCSURGEON_CORPUS ...)"); the total time; and, alone on
// the last line, "N passed, N failed, N skipped" (every test and subtest).
// The exit status is 1 when a test or a package failed, or when no test
// ran at all (go test printed its error elsewhere, or the input was empty).
//
//	go test -json ./... | go run ./scripts/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail events
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, time.Now, time.NewTicker(30*time.Second).C))
}

// run reads the events of r and reports on w; now is the clock and tick
// the moments to list the running tests. It returns the exit status.
func run(r io.Reader, w io.Writer, now func() time.Time, tick <-chan time.Time) int {
	s := &summary{start: now(), now: now, w: w,
		running: map[string]time.Time{}, output: map[string]*strings.Builder{},
		build: map[string]*strings.Builder{}, open: map[string]bool{}, skips: map[string][]string{}}
	events := make(chan event)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Action != "" {
				events <- e
			} else {
				events <- event{Action: "text", Output: sc.Text() + "\n"} // what go test printed that is no event
			}
		}
		close(events)
	}()
	for {
		select {
		case <-tick:
			var names []string
			for k, t := range s.running {
				names = append(names, fmt.Sprintf("%s (%.0fs)", k, now().Sub(t).Seconds()))
			}
			sort.Strings(names)
			fmt.Fprintf(w, "[%4.0fs] running: %s\n", s.since(), strings.Join(names, ", "))
		case e, ok := <-events:
			if !ok {
				return s.finish()
			}
			s.add(e)
		}
	}
}

// summary is what the run has seen so far.
type summary struct {
	start time.Time
	now   func() time.Time
	w     io.Writer

	running map[string]time.Time        // "pkg test" of a running top-level test -> its start
	output  map[string]*strings.Builder // "pkg test" -> its output so far
	build   map[string]*strings.Builder // import path -> compiler output
	open    map[string]bool             // "pkg test" started and not ended
	skips   map[string][]string         // reason -> "pkg test" skipped with it
	failed  []string                    // "pkg test" of every failed test
	pkgFail []string                    // "pkg: why" of a package that failed without a failed test

	passed, nfailed, skipped int
	pkgFailedTests           map[string]int // package -> its failed tests
}

func (s *summary) since() float64 { return s.now().Sub(s.start).Seconds() }

// short is a package's path without the module's ("." for the module's
// own package).
func short(p string) string {
	const module = "github.com/ccsurgeon/ccsurgeon"
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module)
}

func (s *summary) add(e event) {
	w := s.w
	if e.Action == "text" {
		fmt.Fprint(w, e.Output)
		return
	}
	if e.Action == "build-output" {
		b := s.build[e.ImportPath]
		if b == nil {
			b = &strings.Builder{}
			s.build[e.ImportPath] = b
		}
		b.WriteString(e.Output)
		return
	}
	if e.Action == "build-fail" {
		fmt.Fprintf(w, "[%4.0fs] build failed: %s\n%s", s.since(), short(e.ImportPath), s.buildOutput(e.ImportPath))
		return
	}
	key := short(e.Package) + " " + e.Test
	if e.Test == "" {
		key = short(e.Package)
	}
	top := e.Test != "" && !strings.Contains(e.Test, "/")
	switch e.Action {
	case "run", "cont":
		// a parallel test pauses at t.Parallel until the tests
		// before it are done: its time starts when it continues
		if top {
			s.running[key] = s.now()
		}
		if e.Test != "" {
			s.open[key] = true
		}
	case "pause":
		delete(s.running, key)
	case "output":
		if e.Test != "" {
			b := s.output[key]
			if b == nil {
				b = &strings.Builder{}
				s.output[key] = b
			}
			b.WriteString(e.Output)
		} else if !isStatusLine(e.Output) {
			// what the package printed outside any test (a panic in init
			// or TestMain, a setup failure): said when it fails
			b := s.output[key]
			if b == nil {
				b = &strings.Builder{}
				s.output[key] = b
			}
			b.WriteString(e.Output)
		}
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.endPackage(e, key)
			return
		}
		delete(s.open, key)
		switch e.Action {
		case "fail":
			s.nfailed++
			s.failed = append(s.failed, failName(key, s.outputOf(key), false))
			if s.pkgFailedTests == nil {
				s.pkgFailedTests = map[string]int{}
			}
			s.pkgFailedTests[e.Package]++
			fmt.Fprintf(w, "--- FAIL %s (%.1fs)\n%s", key, e.Elapsed, s.outputOf(key))
		case "skip":
			s.skipped++
			r := skipReason(s.outputOf(key))
			s.skips[r] = append(s.skips[r], key)
		case "pass":
			s.passed++
		}
		if el := elapsed(e, s.running[key], s.now()); top && e.Action != "fail" && el >= 1 {
			fmt.Fprintf(w, "[%4.0fs] %s %s (%.1fs)\n", s.since(), e.Action, key, el)
		}
		delete(s.output, key)
		if top {
			delete(s.running, key)
		}
	}
}

// endPackage reports a package's end; a failed package none of whose
// tests failed is said with why: its build, a panic, or tests that never
// ended (the binary exited: a panic elsewhere, the -timeout).
func (s *summary) endPackage(e event, key string) {
	fmt.Fprintf(s.w, "[%4.0fs] %s %s (%.1fs)\n", s.since(), e.Action, key, e.Elapsed)
	var unfinished []string
	for k := range s.open {
		if strings.HasPrefix(k, key+" ") {
			unfinished = append(unfinished, k)
			delete(s.open, k)
		}
	}
	sort.Strings(unfinished)
	for _, k := range unfinished {
		// a test left running when its binary ended did not pass
		s.nfailed++
		s.failed = append(s.failed, failName(k, s.outputOf(k), true))
		fmt.Fprintf(s.w, "--- FAIL %s (did not finish)\n%s", k, s.outputOf(k))
		delete(s.output, k)
		delete(s.running, k)
	}
	if e.Action != "fail" || s.pkgFailedTests[e.Package] > 0 || len(unfinished) > 0 {
		delete(s.output, key)
		return
	}
	why := "failed without a failed test"
	switch {
	case e.FailedBuild != "":
		why = "build failed"
	case s.output[key] != nil:
		why = firstPanic(s.output[key].String())
		fmt.Fprint(s.w, s.output[key].String())
	}
	delete(s.output, key)
	s.pkgFail = append(s.pkgFail, key+": "+why)
}

func (s *summary) outputOf(key string) string {
	if b := s.output[key]; b != nil {
		return b.String()
	}
	return ""
}

func (s *summary) buildOutput(importPath string) string {
	if b := s.build[importPath]; b != nil {
		return b.String()
	}
	return ""
}

// finish prints the summary and returns the exit status.
func (s *summary) finish() int {
	w := s.w
	fmt.Fprintf(w, "[%4.0fs] done\n", s.since())
	for k := range s.open { // the input ended inside a package
		s.nfailed++
		s.failed = append(s.failed, k+" (did not finish)")
	}
	total := s.passed + s.nfailed + s.skipped
	fmt.Fprintln(w)
	if len(s.failed) > 0 {
		sort.Strings(s.failed)
		fmt.Fprintf(w, "failed: %d %s:\n", len(s.failed), plural(len(s.failed), "test"))
		for _, k := range s.failed {
			fmt.Fprintf(w, "  %s\n", k)
		}
	}
	if len(s.pkgFail) > 0 {
		sort.Strings(s.pkgFail)
		fmt.Fprintf(w, "failed: %d %s:\n", len(s.pkgFail), plural(len(s.pkgFail), "package"))
		for _, p := range s.pkgFail {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	reasons := make([]string, 0, len(s.skips))
	for r := range s.skips {
		reasons = append(reasons, r)
	}
	// the reason that kept the most tests from running first
	sort.Slice(reasons, func(i, j int) bool {
		if a, b := len(s.skips[reasons[i]]), len(s.skips[reasons[j]]); a != b {
			return a > b
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(w, "not run: %d %s: %s\n", len(s.skips[r]), plural(len(s.skips[r]), "test"), r)
	}
	if total == 0 {
		fmt.Fprintln(w, "no test ran")
	}
	fmt.Fprintf(w, "total %s\n", s.now().Sub(s.start).Round(time.Second))
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.passed, s.nfailed, s.skipped)
	if s.nfailed > 0 || len(s.pkgFail) > 0 || total == 0 {
		return 1
	}
	return 0
}

// failName is how the summary names a failed test: with the panic that
// ended its package, or as not finished when it never ended.
func failName(key, out string, unfinished bool) string {
	p := firstPanic(out)
	panicked := strings.HasPrefix(p, "panic:") || strings.HasPrefix(p, "fatal error:")
	switch {
	case unfinished && panicked:
		return key + " (did not finish: " + p + ")"
	case unfinished:
		return key + " (did not finish)"
	case panicked:
		return key + " (" + p + "; the tests after it in its package did not run)"
	}
	return key
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// logLine is a line a test logged: "    file_test.go:12: message".
var logLine = regexp.MustCompile(`^\s+[^\s:]+\.go:\d+: (.*)$`)

// skipReason is what a skipped test said last before its "--- SKIP"
// line: the message of t.Skip.
func skipReason(out string) string {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m := logLine.FindStringSubmatch(lines[i]); m != nil {
			return m[1]
		}
	}
	return "no reason given"
}

// isStatusLine: a line go test prints for every package (its result,
// "no tests to run").
func isStatusLine(l string) bool {
	for _, p := range []string{"PASS\n", "FAIL\n", "ok  \t", "FAIL\t", "?   \t", "testing: warning: no tests to run", "coverage: "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// firstPanic is the first "panic: ..." or "fatal error: ..." line of out,
// else its last line.
func firstPanic(out string) string {
	last := ""
	for l := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
		if strings.TrimSpace(l) != "" {
			last = strings.TrimSpace(l)
		}
	}
	return last
}

// elapsed is a finished test's time: go test reports a test with parallel
// subtests as done in about no time, before they ran; the time since the
// test started (or continued, when parallel) counts them.
func elapsed(e event, started, now time.Time) float64 {
	if started.IsZero() {
		return e.Elapsed
	}
	return max(e.Elapsed, now.Sub(started).Seconds())
}
