package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// groupers name the groupings of -heldout.
var groupers = map[string]func(conv) string{
	"project": func(c conv) string { return c.project },
	"version": func(c conv) string { return c.version },
	"session": func(c conv) string { return c.session },
}

// figures are the errors of one set of constants on a set of
// conversations.
type figures struct {
	convs     int
	last      stats // the last response: what a resume sends
	responses stats // every response after the first
	growth    stats // the last response's input less the first one's
	lastDef   stats // the last response with the default overhead
	// the relative errors behind last and responses
	lastErrs, responseErrs []float64
}

func judge(convs []conv, cal chain.Calibration, defOverhead int) figures {
	var last, all, growth, def []float64
	n := 0
	for _, c := range convs {
		r, ok := eval(c, cal)
		if !ok || !r.measured {
			continue
		}
		n++
		last = append(last, relErr(r.last))
		for _, pt := range r.responses {
			all = append(all, relErr(pt))
		}
		if r.growth.truth != 0 {
			growth = append(growth, relErr(r.growth))
		}
		def = append(def, relErr(point{est: r.last.est - r.overhead + defOverhead, truth: r.last.truth}))
	}
	return figures{convs: n, last: statsOf(last), responses: statsOf(all), growth: statsOf(growth), lastDef: statsOf(def),
		lastErrs: last, responseErrs: all}
}

// fold is one group judged: by today's constants, and by constants fitted
// on every other group (held out), whose figure on the part it was fitted
// on (in-sample) is beside it.
type fold struct {
	group    string
	fitConvs int
	fitRows  int
	weights  [nW]float64
	fitted   [nW]bool
	// thin: fewer than minEquations equations a fitted constant; its
	// figure says how little the fitting part holds, not what the
	// constants are worth, and is not among the judged ones
	thin      bool
	overhead  int // the default overhead fitted: the median measured one of the fitting part
	today     figures
	refit     figures
	refitSelf figures // the refit on its own fitting part
}

// heldOutReport is every fold of a grouping and the held-out errors of all
// of them together (each conversation judged once, by constants fitted
// without its group).
type heldOutReport struct {
	by           string
	folds        []fold
	pooled       figures // refit, held out, folds not thin
	pooledAll    figures // refit, held out, every fold
	pooledToday  figures
	skippedGroup []string // groups alone: nothing left to fit on
}

func heldOut(convs []conv, by string) heldOutReport {
	key := groupers[by]
	groups := map[string][]conv{}
	for _, c := range convs {
		groups[key(c)] = append(groups[key(c)], c)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	rep := heldOutReport{by: by}
	convRows := map[string][]row{}
	for _, c := range convs {
		convRows[c.name] = rows(c)
	}
	today := chain.DefaultCalibration()
	for _, g := range names {
		var rest []conv
		var rs []row
		for _, h := range names {
			if h != g {
				rest = append(rest, groups[h]...)
			}
		}
		n := 0
		for _, c := range rest {
			if r := convRows[c.name]; len(r) > 0 {
				rs = append(rs, r...)
				n++
			}
		}
		judged := judge(groups[g], today, chain.DefaultOverhead)
		if judged.convs == 0 {
			continue // no usage to judge by
		}
		if n == 0 {
			rep.skippedGroup = append(rep.skippedGroup, g)
			continue
		}
		w, fitted := fit(rs)
		cal := calibrationOf(w)
		def := medianOverhead(rest, cal)
		nfit := 0
		for _, f := range fitted {
			if f {
				nfit++
			}
		}
		fd := fold{group: g, fitConvs: n, fitRows: len(rs), weights: w, fitted: fitted, overhead: def,
			thin:  len(rs) < minEquations*nfit,
			today: judged, refit: judge(groups[g], cal, def), refitSelf: judge(rest, cal, def)}
		rep.folds = append(rep.folds, fd)
		pools := []*figures{&rep.pooledAll}
		if !fd.thin {
			pools = append(pools, &rep.pooled)
		}
		for _, p := range pools {
			p.lastErrs = append(p.lastErrs, fd.refit.lastErrs...)
			p.responseErrs = append(p.responseErrs, fd.refit.responseErrs...)
			p.convs += fd.refit.convs
		}
		rep.pooledToday.lastErrs = append(rep.pooledToday.lastErrs, fd.today.lastErrs...)
		rep.pooledToday.responseErrs = append(rep.pooledToday.responseErrs, fd.today.responseErrs...)
		rep.pooledToday.convs += fd.today.convs
	}
	for _, p := range []*figures{&rep.pooled, &rep.pooledAll, &rep.pooledToday} {
		p.last, p.responses = statsOf(p.lastErrs), statsOf(p.responseErrs)
	}
	return rep
}

// minEquations is the equations a fitted constant a fold's fit needs
// before its held-out figure is counted (the usual ten per free
// parameter of a regression): 2.1.x's sessions alone give 9 equations for
// 6 constants, 1.0.98's main file held out leaves 32.
const minEquations = 10

// medianOverhead is the median overhead measured on convs' main
// conversations with cal: what DefaultOverhead would be if fitted on them.
func medianOverhead(convs []conv, cal chain.Calibration) int {
	var os []int
	for _, c := range convs {
		if r, ok := eval(c, cal); ok && r.measured {
			os = append(os, r.overhead)
		}
	}
	if len(os) == 0 {
		return chain.DefaultOverhead
	}
	sort.Ints(os)
	return os[len(os)/2]
}

func printHeldOut(w io.Writer, rep heldOutReport) {
	fmt.Fprintf(w, "held out by %s: each group judged by constants fitted on every other group (least squares on the relative error of every later response's input), beside today's constants (fitted on the whole corpus: in-sample)\n", rep.by)
	line := func(what string, st stats) {
		if st.n == 0 {
			return
		}
		fmt.Fprintf(w, "    %-40s n=%-4d |error| median %5.1f%%  max %5.1f%%  within 10%%: %d/%d\n", what, st.n, 100*st.median, 100*st.max, st.within, st.n)
	}
	for _, f := range rep.folds {
		fmt.Fprintf(w, "\n== %s (%d conversations); fitted on the other groups (%d conversations, %d equations)\n", f.group, f.today.convs, f.fitConvs, f.fitRows)
		fmt.Fprintf(w, "  fitted: %s; default overhead %d\n", describe(f.weights, f.fitted), f.overhead)
		if f.thin {
			fmt.Fprintf(w, "  thin: fewer than %d equations a fitted constant; this fold's held-out figure is not among the judged ones\n", minEquations)
		}
		for _, x := range []struct {
			name string
			f    figures
		}{{"today's constants on " + f.group, f.today}, {"refit, held out (on " + f.group + ")", f.refit}, {"refit, in-sample (on the other groups)", f.refitSelf}} {
			fmt.Fprintf(w, "  %s\n", x.name)
			line("last response, overhead measured", x.f.last)
			line("every later response", x.f.responses)
			line("growth since the first response", x.f.growth)
			line("last response, default overhead", x.f.lastDef)
		}
	}
	for _, g := range rep.skippedGroup {
		fmt.Fprintf(w, "\n== %s: the only group with usage, nothing else to fit on\n", g)
	}
	fmt.Fprintf(w, "\nall groups, each judged by constants not fitted on it\n")
	line("refit held out: last response", rep.pooled.last)
	line("refit held out: every later response", rep.pooled.responses)
	line("… thin folds too: last response", rep.pooledAll.last)
	line("… thin folds too: every later response", rep.pooledAll.responses)
	line("today's constants: last response", rep.pooledToday.last)
	line("today's constants: every later response", rep.pooledToday.responses)
}

// describe prints weights as chain's constants: bytes per token, tokens
// per non-ASCII character and per message and block; "(prior)" marks one
// the fitting part had no content for, "(bound)" one the fit pushed to a
// bound (the data would have it beyond what a tokenizer does).
func describe(w [nW]float64, fitted [nW]bool) string {
	var parts []string
	for j := range nW {
		v := ""
		switch j {
		case wNonASCII, wMessage, wBlock:
			v = fmt.Sprintf("%s %.2f", weightNames[j], w[j])
		default:
			if w[j] == 0 {
				v = weightNames[j] + " ∞ B/tok"
			} else {
				v = fmt.Sprintf("%s %.2f B/tok", weightNames[j], 1/w[j])
			}
		}
		switch {
		case !fitted[j]:
			v += " (prior)"
		case w[j] == lower[j] || w[j] == upper[j]:
			v += " (bound)"
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}
