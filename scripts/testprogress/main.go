// Command testprogress shows a 'go test -json' run as it goes: a line per
// finished package and per finished top-level test slower than a second,
// and every 30 s the tests still running, so a long run (the real-client
// tests) is never silent. The output of a failed test is printed whole.
// The exit status is 1 when a test or a package failed.
//
//	go test -json ./... | go run ./scripts/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	start := time.Now()
	running := map[string]time.Time{} // "pkg test" -> start
	output := map[string]*strings.Builder{}
	failed := false
	events := make(chan event)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				events <- e
			} else {
				fmt.Println(sc.Text()) // build errors and the like
			}
		}
		close(events)
	}()
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	short := func(p string) string { return strings.TrimPrefix(p, "github.com/ccsurgeon/ccsurgeon") }
	for {
		select {
		case <-tick.C:
			var names []string
			for k, t := range running {
				names = append(names, fmt.Sprintf("%s (%.0fs)", k, time.Since(t).Seconds()))
			}
			sort.Strings(names)
			fmt.Printf("[%4.0fs] running: %s\n", time.Since(start).Seconds(), strings.Join(names, ", "))
		case e, ok := <-events:
			if !ok {
				fmt.Printf("[%4.0fs] done\n", time.Since(start).Seconds())
				if failed {
					os.Exit(1)
				}
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
					running[key] = time.Now()
				}
			case "pause":
				delete(running, key)
			case "output":
				if e.Test != "" {
					b := output[key]
					if b == nil {
						b = &strings.Builder{}
						output[key] = b
					}
					b.WriteString(e.Output)
				}
			case "pass", "fail", "skip":
				if e.Test == "" {
					fmt.Printf("[%4.0fs] %s %s (%.1fs)\n", time.Since(start).Seconds(), e.Action, key, e.Elapsed)
					failed = failed || e.Action == "fail"
					continue
				}
				if e.Action == "fail" {
					failed = true
					fmt.Printf("--- FAIL %s (%.1fs)\n%s", key, e.Elapsed, output[key])
				} else if el := elapsed(e, running[key]); top && el >= 1 {
					fmt.Printf("[%4.0fs] %s %s (%.1fs)\n", time.Since(start).Seconds(), e.Action, key, el)
				}
				delete(output, key)
				if top {
					delete(running, key)
				}
			}
		}
	}
}

// elapsed is a finished test's time: go test reports a test with parallel
// subtests as done in about no time, before they ran; the time since the
// test started (or continued, when parallel) counts them.
func elapsed(e event, started time.Time) float64 {
	if started.IsZero() {
		return e.Elapsed
	}
	return max(e.Elapsed, time.Since(started).Seconds())
}
