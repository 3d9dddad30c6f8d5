//go:build redactstages

package redact

import (
	"fmt"
	"slices"
	"strings"
)

// ResetStages clears the stage clock (stagetime_on.go).
func ResetStages() { resetStages() }

// StageTable prints the stage clock's figures for scanner s after passes
// passes: each stage and rule, ns per pass and share of the timed total,
// largest first (BenchmarkScanPerRule).
func StageTable(s *Scanner, passes, size int) string {
	type row struct {
		name         string
		nanos, calls int64
	}
	var rows []row
	var total int64
	for i, ns := range stageNanos {
		if ns == 0 {
			continue
		}
		total += ns
		name := [...]string{"(resolve)", "(encoded sweep)", "(prefilter)"}[min(i, stageCount-1)]
		if i >= stageCount {
			r := s.rules[i-stageCount]
			name = fmt.Sprintf("rule %d %s %s", i-stageCount, r.ID, ruleKind(r))
		}
		rows = append(rows, row{name, ns, stageCalls[i]})
	}
	slices.SortFunc(rows, func(a, b row) int { return int(b.nanos - a.nanos) })
	var out strings.Builder
	fmt.Fprintf(&out, "%d passes over %d bytes: %d ns a pass timed; stages and rules, ns per pass, share, runs per pass\n", passes, size, total/int64(passes))
	for _, r := range rows {
		fmt.Fprintf(&out, "%10d ns %5.1f%% %8d  %s\n", r.nanos/int64(passes), 100*float64(r.nanos)/float64(total), r.calls/int64(passes), r.name)
	}
	return out.String()
}

// ruleKind: how a rule is matched, and its first anchors.
func ruleKind(r *Rule) string {
	kind := "regexp"
	switch {
	case r.find != nil:
		kind = "find"
	case r.hand != nil:
		kind = "hand"
	case r.fast != nil:
		kind = "fast"
	case r.handAll != nil:
		kind = "runs"
	case r.at != nil:
		kind = "regexp-at"
	}
	a := r.Anchors
	if len(a) > 4 {
		a = append(a[:4:4], "…")
	}
	return fmt.Sprintf("[%s] %q", kind, a)
}

// PrefilterTable counts, over texts, the positions the prefilter's
// trigram test lets through, those its four-byte test sends on to the
// anchors, and the anchor hits, by the position's first four bytes (lower
// case): the prefixes that cost the most positions, largest first.
func PrefilterTable(s *Scanner, texts []string, top int) string {
	type count struct{ tri, quad, hits int }
	by := map[string]*count{}
	var all count
	size := 0
	for _, text := range texts {
		size += len(text)
		n := len(text)
		for p := 0; p+2 < n; p++ {
			k := uint16(lowerTab[text[p]])<<8 | uint16(lowerTab[text[p+1]])
			c := lowerTab[text[p+2]]
			h := triHash(k, c)
			if s.trigram[h>>6&(triWords-1)]>>(h&63)&1 == 0 || s.bigram[k>>6]>>(k&63)&1 == 0 {
				continue
			}
			key := strings.ToLower(text[p:min(n, p+4)])
			e := by[key]
			if e == nil {
				e = &count{}
				by[key] = e
			}
			e.tri++
			all.tri++
			if e := endHash(k, c); s.short[k>>6]>>(k&63)&1 == 0 && s.ends3[e>>6&(endWords-1)]>>(e&63)&1 == 0 && p+3 < n {
				q := quadHash(k, c, lowerTab[text[p+3]])
				if s.quad[q>>6&(quadWords-1)]>>(q&63)&1 == 0 {
					continue
				}
			}
			e.quad++
			all.quad++
			hits, _ := s.anchorsAt(nil, text, p, k, false)
			e.hits += len(hits)
			all.hits += len(hits)
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := by[b].quad - by[a].quad; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var out strings.Builder
	mb := float64(size) / 1e6
	fmt.Fprintf(&out, "%d bytes: trigram test passed %d (%.0f/MB), four-byte test %d (%.0f/MB), rule hits %d (%.0f/MB)\n",
		size, all.tri, float64(all.tri)/mb, all.quad, float64(all.quad)/mb, all.hits, float64(all.hits)/mb)
	for _, k := range keys[:min(top, len(keys))] {
		e := by[k]
		fmt.Fprintf(&out, "%8d %8d %8d  %q\n", e.tri, e.quad, e.hits, k)
	}
	return out.String()
}

// PrefilterHits is the number of anchor hits of text (the prefilter alone: BenchmarkPrefilterSecrets).
func (s *Scanner) PrefilterHits(text string) int {
	sc := scratchPool.Get().(*scratch)
	sc.hits = s.appendAnchors(sc.hits[:0], text, false)
	n := len(sc.hits)
	scratchPool.Put(sc)
	return n
}
