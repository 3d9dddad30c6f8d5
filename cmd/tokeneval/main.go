// Command tokeneval measures the token estimator of package chain against
// the usage the API recorded in real sessions: for every assistant response
// on the resumed branch, the recorded input (input + cache creation + cache
// read tokens: everything sent, system prompt and tools included) against
// the estimate of the messages before it plus the overhead; and for the last
// response, its input plus its own output against the estimate of the whole
// conversation, which is what a resume sends.
//
//	go run ./cmd/tokeneval [-v] [-heldout project|version|session] [FILE.jsonl|DIR]...
//
// With no argument it reads the corpus of real sessions: $CCSURGEON_CORPUS,
// else ../shared/corpus beside the checkout (internal/testcorpus). The overhead (system prompt
// and tools) is measured from each session's first response when its usage
// is plausible, else chain.DefaultOverhead; the first response is then
// excluded from the per-response errors (its error is zero by construction).
//
// The estimator's constants (chain.Calibration) were fitted on the same
// corpus, so those figures are in-sample. With -heldout GROUPING the
// conversations are split into groups (project: the first folder under
// the argument, ccviewer or claudeless in the corpus; version: the client
// version the conversation records; session: the session file, with its
// subagent files), and for each group the constants are fitted (least
// squares, see fit.go) on every other group and judged on that group,
// beside today's constants on the same group: the held-out figure.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/tidwall/gjson"
)

type point struct{ est, truth int }

type result struct {
	path      string
	responses []point
	last      point // overhead measured (or default when not measurable)
	lastDef   point // with the default overhead
	// growth: the last response's input less the first one's, against
	// the estimate of the messages between them: the part of a figure
	// the constants make (the measured overhead makes the rest); only
	// with two responses or more
	growth   point
	measured bool
	overhead int
}

// conv is one conversation (branch) of a file that may record usage.
type conv struct {
	name                      string
	f                         *chain.File
	p                         chain.Path
	project, version, session string
}

func main() {
	verbose := flag.Bool("v", false, "print every response")
	heldout := flag.String("heldout", "", "judge constants fitted on the other groups: project, version or session")
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
	convs, files := load(args)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if *heldout != "" {
		if _, ok := groupers[*heldout]; !ok {
			fmt.Fprintf(os.Stderr, "tokeneval: -heldout %q: not one of project, version, session\n", *heldout)
			os.Exit(2)
		}
		printHeldOut(os.Stdout, heldOut(convs, *heldout))
		return
	}
	cal := chain.DefaultCalibration()
	var rs []result
	for _, c := range convs {
		if r, ok := eval(c, cal); ok {
			rs = append(rs, r)
			if *verbose {
				for k, pt := range r.responses {
					fmt.Printf("  %s response %d: recorded %d estimated %d (%+.1f%%)\n", short(r.path), k+2, pt.truth, pt.est, 100*relErr(pt))
				}
			}
		}
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
	summary(os.Stdout, "last response, overhead measured", lastErrs)
	summary(os.Stdout, "last response, default overhead", lastDefErrs)
	summary(os.Stdout, "every later response, measured overhead", allErrs)
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

// stats are the figures of a set of relative errors.
type stats struct {
	n                            int
	median, p90, max, meanSigned float64 // |error| but meanSigned
	within                       int     // |error| <= 10%
}

func statsOf(errs []float64) stats {
	if len(errs) == 0 {
		return stats{}
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
	}
	sort.Float64s(abs)
	st := stats{n: len(errs)}
	for _, a := range abs {
		if a <= 0.10 {
			st.within++
		}
	}
	q := func(f float64) float64 { return abs[int(math.Min(float64(len(abs)-1), f*float64(len(abs))))] }
	st.median, st.p90, st.max = q(0.5), q(0.9), abs[len(abs)-1]
	for _, e := range errs {
		st.meanSigned += e
	}
	st.meanSigned /= float64(len(errs))
	return st
}

func summary(w io.Writer, what string, errs []float64) {
	if len(errs) == 0 {
		return
	}
	st := statsOf(errs)
	fmt.Fprintf(w, "%-42s n=%-4d |error| median %.1f%%  p90 %.1f%%  max %.1f%%  mean (signed) %+.1f%%  within 10%%: %d/%d\n",
		what, st.n, 100*st.median, 100*st.p90, 100*st.max, 100*st.meanSigned, st.within, st.n)
}

// load finds the .jsonl files under args and lists every conversation
// of each: the resumed one, and (1.0.x files) the subagent conversations
// written into the main file as sidechains. The files stay open (files)
// for eval.
func load(args []string) (convs []conv, files []*chain.File) {
	type found struct{ path, root string }
	var paths []found
	for _, a := range args {
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				paths = append(paths, found{p, a})
			}
			return nil
		})
	}
	sort.Slice(paths, func(i, j int) bool { return paths[i].path < paths[j].path })
	for _, fp := range paths {
		f, err := chain.LoadFile(fp.path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokeneval:", err)
			continue
		}
		files = append(files, f)
		g := f.Graph()
		// every conversational leaf: Branches leaves out the sidechains
		for i := range f.Entries {
			e := &f.Entries[i]
			if !e.IsMessage() || e.UUID() == "" || len(g.ChildrenOf(i)) != 0 {
				continue
			}
			c := conv{name: fp.path, f: f, p: g.PathTo(i), project: project(fp.root, fp.path), session: session(fp.root, fp.path)}
			if i != g.ActiveLeaf() {
				c.name = fmt.Sprintf("%s:%d", fp.path, e.Line)
			}
			c.version = version(f, c.p)
			convs = append(convs, c)
		}
	}
	return convs, files
}

// project is the first folder of p under root (root's own name when p is
// right in it, or is root).
func project(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return filepath.Base(filepath.Dir(p))
	}
	if first, _, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok {
		return first
	}
	return filepath.Base(root)
}

// session is the session file p belongs to, from root: itself, or for a
// subagent file (SESSION/subagents/agent-….jsonl) SESSION.jsonl.
func session(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && rel != "." && filepath.IsLocal(rel) {
		p = rel
	}
	s := filepath.ToSlash(p)
	if k := strings.LastIndex(s, "/subagents/"); k >= 0 {
		return s[:k] + ".jsonl"
	}
	return s
}

// version is the client version the first entry of path p that records
// one records, or "unknown".
func version(f *chain.File, p chain.Path) string {
	for _, i := range p.Entries {
		b, err := f.Raw(i)
		if err != nil {
			continue
		}
		if v := gjson.GetBytes(b, "version").Str; v != "" {
			return v
		}
	}
	return "unknown"
}

// eval measures one conversation with the constants cal; ok is false when
// it records no usable usage.
func eval(c conv, cal chain.Calibration) (result, bool) {
	est := c.f.ResumeTokensCalibrated(c.p, nil, cal)
	rsp := c.f.RecordedUsage(c.p, est)
	if len(rsp) == 0 || rsp[len(rsp)-1].Usage.Input+rsp[len(rsp)-1].Usage.Output == 0 {
		return result{}, false
	}
	r := result{path: c.name, overhead: est.Overhead, measured: est.OverheadMeasured}
	for k, x := range rsp {
		if k == 0 {
			continue
		}
		r.responses = append(r.responses, point{est: x.Before + r.overhead, truth: x.Usage.Input})
	}
	last := rsp[len(rsp)-1]
	r.last = point{est: last.Through + r.overhead, truth: last.Usage.Input + last.Usage.Output}
	r.lastDef = point{est: last.Through + chain.DefaultOverhead, truth: last.Usage.Input + last.Usage.Output}
	r.growth = point{est: last.Before - rsp[0].Before, truth: last.Usage.Input - rsp[0].Usage.Input}
	return r, true
}
