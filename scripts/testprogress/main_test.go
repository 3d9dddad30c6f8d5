package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The streams in testdata/ are what 'go test -json' printed for the
// packages of testdata/mod (see testdata/README.md): recorded, not made up.

func stream(t *testing.T, names ...string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// report runs testprogress on in with a clock that stands still (the
// total is 0s) and no ticks.
func report(t *testing.T, in string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	code := run(strings.NewReader(in), &out, func() time.Time { return at }, nil)
	return out.String(), code
}

var closing = regexp.MustCompile(`^\d+ passed, \d+ failed, \d+ skipped$`)

func TestSummaryOfRecordedStreams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		streams []string
		code    int
		last    string   // the closing line
		want    []string // lines of the summary and the report, in this order
		notWant []string
	}{
		{"pass", []string{"pass"}, 0, "4 passed, 0 failed, 0 skipped",
			[]string{"pass example.com/m/pass (", "done", "total 0s"}, []string{"failed:", "not run:", "no test ran"}},
		{"fail", []string{"fail"}, 1, "2 passed, 3 failed, 0 skipped",
			[]string{"--- FAIL example.com/m/fail TestFails", "f_test.go:7: want 1, got 2", "failed: 3 tests:",
				"  example.com/m/fail TestFails", "  example.com/m/fail TestSub", "  example.com/m/fail TestSub/bad", "total 0s"}, nil},
		{"skip with reasons, grouped, the biggest group first", []string{"skip"}, 0, "2 passed, 0 failed, 5 skipped",
			[]string{"not run: 3 tests: ../shared/corpus not found beside the checkout (set CCSURGEON_CORPUS to the corpus folder)",
				"not run: 1 test: needs tmux", "not run: 1 test: no reason given"}, []string{"failed:"}},
		{"build failure", []string{"build"}, 1, "0 passed, 0 failed, 0 skipped",
			[]string{"build failed: example.com/m/build", `build/b.go:3:23: cannot use "not an int"`, "failed: 1 package:",
				"  example.com/m/build: build failed", "no test ran"}, nil},
		{"build failure beside passing packages", []string{"pass", "build"}, 1, "4 passed, 0 failed, 0 skipped",
			[]string{"failed: 1 package:", "  example.com/m/build: build failed"}, []string{"no test ran"}},
		{"panic", []string{"panic"}, 1, "1 passed, 1 failed, 0 skipped",
			[]string{"panic: assignment to entry in nil map", "failed: 1 test:",
				"  example.com/m/panic TestPanics (panic: assignment to entry in nil map [recovered, repanicked]; the tests after it in its package did not run)"}, nil},
		{"timeout", []string{"timeout"}, 1, "1 passed, 1 failed, 0 skipped",
			[]string{"--- FAIL example.com/m/timeout TestSlow (did not finish)",
				"  example.com/m/timeout TestSlow (did not finish: panic: test timed out after 1s)"}, nil},
		{"a package without tests alone: no test ran", []string{"notests"}, 1, "0 passed, 0 failed, 0 skipped",
			[]string{"skip example.com/m/notests", "no test ran"}, []string{"failed:"}},
		{"a package without tests beside others", []string{"notests", "pass"}, 0, "4 passed, 0 failed, 0 skipped",
			[]string{"skip example.com/m/notests"}, []string{"no test ran"}},
		{"-run matching nothing", []string{"none-matched"}, 1, "0 passed, 0 failed, 0 skipped", []string{"no test ran"}, nil},
		{"empty input", nil, 1, "0 passed, 0 failed, 0 skipped", []string{"done", "no test ran"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := report(t, stream(t, tc.streams...))
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if last := lines[len(lines)-1]; last != tc.last || !closing.MatchString(last) {
				t.Errorf("closing line %q, want %q alone\n%s", last, tc.last, out)
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("no %q (in this order) in:\n%s", w, out)
					break
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("%q in:\n%s", w, out)
				}
			}
		})
	}
}

// TestInputCutShort: a stream that ends inside a package (go test killed)
// counts the tests left running as failed.
func TestInputCutShort(t *testing.T) {
	var cut []string
	for l := range strings.SplitSeq(stream(t, "fail"), "\n") {
		cut = append(cut, l)
		if strings.Contains(l, `"Action":"run"`) && strings.Contains(l, `"TestSub/bad"`) {
			break
		}
	}
	out, code := report(t, strings.Join(cut, "\n")+"\n")
	if code != 1 || !strings.Contains(out, "  example.com/m/fail TestSub/bad (did not finish)") || !strings.HasSuffix(out, "\n2 passed, 3 failed, 0 skipped\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestLinesThatAreNoEventsArePrinted: what go test prints that is not an
// event (go: downloading ...) is shown as it comes.
func TestLinesThatAreNoEventsArePrinted(t *testing.T) {
	out, code := report(t, "go: downloading github.com/x/y v1.0.0\n"+stream(t, "pass"))
	if code != 0 || !strings.HasPrefix(out, "go: downloading github.com/x/y v1.0.0\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestTotalTime: the summary says how long the run took.
func TestTotalTime(t *testing.T) {
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	calls := 0
	clock := func() time.Time {
		calls++
		if calls == 1 {
			return start
		}
		return start.Add(3*time.Minute + 38*time.Second)
	}
	var out bytes.Buffer
	run(strings.NewReader(stream(t, "pass")), &out, clock, nil)
	if !strings.Contains(out.String(), "\ntotal 3m38s\n4 passed, 0 failed, 0 skipped\n") {
		t.Errorf("%s", out.String())
	}
}

// TestPackageNames: ccsurgeon's packages are named from the module's root,
// the root package itself ".".
func TestPackageNames(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/ccsurgeon/ccsurgeon":     ".",
		"github.com/ccsurgeon/ccsurgeon/ops": "/ops",
		"example.com/m/pass":                 "example.com/m/pass",
	} {
		if got := short(in); got != want {
			t.Errorf("short(%q) = %q, want %q", in, got, want)
		}
	}
}
