// Command tokeneval measures the token estimator of package chain against
// the usage the API recorded in real sessions: for every assistant response
// on the resumed branch, the recorded input (input + cache creation + cache
// read tokens: everything sent, system prompt and tools included) against
// the estimate of the messages before it plus the overhead; and for the last
// response, its input plus its own output against the estimate of the whole
// conversation, which is what a resume sends.
//
//	go run ./cmd/tokeneval [-v] [FILE.jsonl|DIR]...
//
// With no argument it reads the corpus of real sessions: $CCSURGEON_CORPUS,
// else ../shared/corpus beside the checkout (internal/testcorpus). The overhead (system prompt
// and tools) is measured from each session's first response when its usage
// is plausible, else chain.DefaultOverhead; the first response is then
// excluded from the per-response errors (its error is zero by construction).
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
)

type point struct{ est, truth int }

type result struct {
	path      string
	responses []point
	last      point // overhead measured (or default when not measurable)
	lastDef   point // with the default overhead
	measured  bool
	overhead  int
}

func main() {
	verbose := flag.Bool("v", false, "print every response")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		dir, err := testcorpus.Dir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokeneval:", err)
			os.Exit(1)
		}
		args = []string{dir}
	}
	var files []string
	for _, a := range args {
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	var rs []result
	for _, p := range files {
		rs = append(rs, evalFile(p, *verbose)...)
	}
	var lastErrs, lastDefErrs, allErrs []float64
	var synthetic []string
	fmt.Printf("%-70s %5s %9s %9s %8s %8s %9s %7s\n", "conversation (file[:leaf line])", "resp", "recorded", "estimate", "error", "overhead", "est(def)", "error")
	for _, r := range rs {
		if !r.measured {
			// the recorded usage leaves no room for a system prompt: not a
			// real API's figure (the harness mock writes 100 + body bytes/100)
			synthetic = append(synthetic, short(r.path))
			continue
		}
		e := relErr(r.last)
		ed := relErr(r.lastDef)
		lastErrs = append(lastErrs, e)
		lastDefErrs = append(lastDefErrs, ed)
		for _, pt := range r.responses {
			allErrs = append(allErrs, relErr(pt))
		}
		fmt.Printf("%-70s %5d %9d %9d %+7.1f%% %8d %9d %+6.1f%%\n", short(r.path), len(r.responses)+1, r.last.truth, r.last.est, 100*e, r.overhead, r.lastDef.est, 100*ed)
	}
	fmt.Println()
	fmt.Println("overhead: system prompt + tools, measured from the conversation's first response; est(def): with the default", chain.DefaultOverhead)
	for _, s := range synthetic {
		fmt.Println("skipped (usage too small to be a real API's count):", s)
	}
	summary("last response, overhead measured", lastErrs)
	summary("last response, default overhead", lastDefErrs)
	summary("every later response, measured overhead", allErrs)
}

func short(p string) string {
	if len(p) > 70 {
		return "…" + p[len(p)-69:]
	}
	return p
}

func relErr(p point) float64 {
	if p.truth == 0 {
		return 0
	}
	return float64(p.est-p.truth) / float64(p.truth)
}

func summary(what string, errs []float64) {
	if len(errs) == 0 {
		return
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
	}
	sort.Float64s(abs)
	within := 0
	for _, a := range abs {
		if a <= 0.10 {
			within++
		}
	}
	q := func(f float64) float64 { return 100 * abs[int(math.Min(float64(len(abs)-1), f*float64(len(abs))))] }
	mean := 0.0
	for _, e := range errs {
		mean += e
	}
	mean /= float64(len(errs))
	fmt.Printf("%-42s n=%-4d |error| median %.1f%%  p90 %.1f%%  max %.1f%%  mean (signed) %+.1f%%  within 10%%: %d/%d\n",
		what, len(errs), q(0.5), q(0.9), 100*abs[len(abs)-1], 100*mean, within, len(errs))
}

// evalFile measures every branch of one file that records usage: the
// resumed one, and (1.0.x files) the subagent conversations written into
// the main file as sidechains.
func evalFile(path string, verbose bool) []result {
	f, err := chain.LoadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokeneval:", err)
		return nil
	}
	defer f.Close()
	g := f.Graph()
	var out []result
	// every conversational leaf: Branches leaves out the sidechains
	var leaves []int
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.IsMessage() && e.UUID() != "" && len(g.ChildrenOf(i)) == 0 {
			leaves = append(leaves, i)
		}
	}
	for _, leaf := range leaves {
		name := path
		if leaf != g.ActiveLeaf() {
			name = fmt.Sprintf("%s:%d", path, f.Entries[leaf].Line)
		}
		if r, ok := eval(f, g.PathTo(leaf), name, verbose); ok {
			out = append(out, r)
		}
	}
	return out
}

// eval measures one branch; ok is false when it records no usable usage.
func eval(f *chain.File, p chain.Path, path string, verbose bool) (result, bool) {
	est := f.ResumeTokensWith(p, func(i int) ([]byte, bool) {
		b, err := f.Raw(i)
		return b, err == nil
	})
	rsp := f.RecordedUsage(p, est)
	if len(rsp) == 0 || rsp[len(rsp)-1].Usage.Input+rsp[len(rsp)-1].Usage.Output == 0 {
		return result{}, false
	}
	r := result{path: path, overhead: est.Overhead, measured: est.OverheadMeasured}
	for k, x := range rsp {
		if k == 0 {
			continue
		}
		pt := point{est: x.Before + r.overhead, truth: x.Usage.Input}
		r.responses = append(r.responses, pt)
		if verbose {
			fmt.Printf("  %s response %d: recorded %d estimated %d (%+.1f%%)\n", short(path), k+1, pt.truth, pt.est, 100*relErr(pt))
		}
	}
	last := rsp[len(rsp)-1]
	r.last = point{est: last.Through + r.overhead, truth: last.Usage.Input + last.Usage.Output}
	r.lastDef = point{est: last.Through + chain.DefaultOverhead, truth: last.Usage.Input + last.Usage.Output}
	return r, true
}
