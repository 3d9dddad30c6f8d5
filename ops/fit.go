package ops

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// FitTokens shrinks what a resume sends until its estimate
// (chain.ResumeEstimate, the count `info` makes) fits Target tokens. It
// applies the cuts of least value first, each to the oldest entries first,
// and stops as soon as the estimate fits:
//
//  1. the synthetic API error entries that failed retries appended
//     ("Prompt is too long") and the bookkeeping the client does not send
//     (file bytes only);
//  2. copies: old attachments the client renders again later (the same
//     skill listing, environment, reminder);
//  3. old tool results and inputs cut to 2 KB (head and tail);
//  4. old thinking, when the count sees it: a model that keeps only the
//     last turn's thinking (chain.KeepsAllThinking) is not sent an earlier
//     turn's, so removing it would save nothing and is not done;
//  5. old images and documents (a text placeholder);
//  6. old tool results and inputs cut harder: 500, then 100 bytes;
//  7. the other old attachments;
//  8. the tool output of the recent turns: 2 KB, 500, 100 bytes;
//  9. whole turns, oldest first, left as a note that names them and gives
//     a line of what was there to each of the last removed, as many as fit
//     a twentieth of the target (then shorter lines, then one line);
//
// 10. the attachments of the recent turns.
//
// "Old" is what compress-old-turns shortens: everything before the last
// KeepTurns turns and the last KeepExchanges tool exchanges. The last
// prompt and its answer (from its last tool exchange on) are never cut, nor
// what the estimate measures the system prompt by (the entries up to the
// first response that records usage: cutting them would move the measure,
// not the request). With KeepRecent, the recent context is kept as it is
// too. It refuses only when what may not be cut exceeds the target, naming
// the smallest target that fits.
type FitTokens struct {
	Target        int
	KeepTurns     int
	KeepExchanges int // 0 = DefaultKeepExchanges
	// KeepRecent: the recent context was asked for explicitly (KeepTurns
	// or KeepExchanges given): it is never cut.
	KeepRecent bool
	// Aim, when above 0, is the count the cuts aim at instead of Target
	// (FitWithin): lower when the count of the written result came out
	// above it, or the lowest count a refusal's cuts passed (the floor
	// then); reports name Target.
	Aim int
	// exact: the measure is followed at every point the cuts may stop,
	// not only where the target may be met (FitWithin's pass for a
	// refusal's floor: the lowest count the cuts pass)
	exact bool
}

// Name of the operation.
func (FitTokens) Name() string { return "compress-to-target" }

// fitStep is one kind of cut, applied to one entry at a time.
type fitStep struct {
	what  string
	apply func(t *Txn, f *chain.File, i int) (changed bool, err error)
}

// TargetError is a Target that cannot be met: Floor is the smallest
// target that fits.
type TargetError struct {
	Target int // the target asked for
	Total  int // the estimate after every cut
	Floor  int
	// Low: the lowest count the cuts passed where they may stop (below
	// Total when a cut raised the count)
	Low int
	// the estimate after every cut: system prompt and tools, the last
	// prompt and its answer, the rest (what the system prompt is measured
	// by, the note of removed turns, the recent context kept by request)
	Overhead, Last, Rest int
	// Measured: the overhead holds the first prompt the system prompt is
	// measured by (cutting it would move the measure, not the request)
	Measured bool
	// KeptRecent: what blocks is the recent context the options asked to
	// keep (FitTokens.KeepRecent): the last KeepTurns turns and
	// KeepExchanges tool exchanges
	KeptRecent               bool
	KeepTurns, KeepExchanges int
}

// Error says why, with the recent context kept "by request".
func (e *TargetError) Error() string { return e.Message("request") }

// Message says why the target cannot be met; keptBy names what keeps the
// recent context when that is what blocks (the options that asked for
// it, in the command layer's words).
func (e *TargetError) Message(keptBy string) string {
	sys := "system prompt and tools"
	if e.Measured {
		sys = "system prompt and tools with the first prompt they are measured by"
	}
	// every figure in the one token format the summaries print ("target
	// 150k"): a target given as 150k was echoed as 150000 (the hint's
	// number, to be run as printed, stays whole)
	h := chain.HumanTokens
	if e.KeptRecent {
		return fmt.Sprintf("cannot fit %s tokens without touching the recent context (%s and %s, kept by %s): after every other cut the estimate is %s tokens (%s ~%s, the last prompt and its answer ~%s, the other turns ~%s); nothing was written",
			h(e.Target), lastTurns(e.KeepTurns), chain.Plural(e.KeepExchanges, "tool exchange", "tool exchanges"), keptBy, h(e.Total), sys, h(e.Overhead), h(e.Last), h(e.Rest))
	}
	fewest := ""
	if e.Floor < e.Total {
		fewest = fmt.Sprintf(" the fewest the cuts reach is %s tokens (more cuts remove the response the system prompt is measured by, and a later one measures it larger);", h(e.Floor))
	}
	return fmt.Sprintf("cannot fit %s tokens:%s after every cut the estimate is %s tokens (%s ~%s, the last prompt and its answer ~%s, what is left of the other turns ~%s); nothing was written",
		h(e.Target), fewest, h(e.Total), sys, h(e.Overhead), h(e.Last), h(e.Rest))
}

// OverTargetError says that the estimate of the written result of the
// session at Path stays above Target (at Total) after FitWithin's
// retries: a bug of the cuts or the estimate, never of the session.
type OverTargetError struct {
	Target, Total int
	Path          string
}

func (e *OverTargetError) Error() string {
	return fmt.Sprintf("the estimate of the written result stays above the target of %d tokens (%d); nothing was written", e.Target, e.Total)
}

// Apply cuts until the estimate fits.
func (o FitTokens) Apply(t *Txn) error {
	if o.Target <= 0 {
		return &OptionError{Option: "Target", Value: o.Target, Want: "more than 0"}
	}
	if o.KeepTurns < 0 {
		return &OptionError{Option: "KeepTurns", Value: o.KeepTurns, Want: "0 or more"}
	}
	if o.KeepExchanges < 0 {
		return &OptionError{Option: "KeepExchanges", Value: o.KeepExchanges, Want: "0 or more"}
	}
	goal := o.Target
	if o.Aim > 0 {
		goal = o.Aim
	}
	keepEx := o.KeepExchanges
	if keepEx == 0 {
		keepEx = DefaultKeepExchanges
	}
	f := t.S.Main
	p := f.Graph().ActivePath()
	before, cur := ResumeEstimates(t)
	rep := &TokenReport{Before: before.Total(), Target: o.Target, ContextWindow: chain.ContextWindow(before.Model)}
	t.Report.Tokens = rep
	total := cur.Total()
	defer func() { rep.After = total }()
	// each sent entry's estimate, kept up to date as entries are cut, as
	// the count makes it: by the thinking rule of the session's model (an
	// earlier turn's thinking costs a model that keeps only the last
	// turn's nothing: chain.KeepsAllThinking)
	per := newSentTokens(len(f.Entries))
	cur.Each(func(i int, tk chain.Tokens) { per.set(i, tk.Total()) })
	rule := cur.Thinking
	// the estimates' per-entry rows are not read again: per has what the
	// cuts need (on the chain of 500,000 small entries the rows held
	// beside it to the end were 9 MB of the rescue's peak)
	t.forgetEstimates()

	ts := f.ActiveTurns()
	h := ts.History
	// the system prompt and tools, as info will measure them on the
	// written result: the cuts move the measure (chain.OverheadOf), and a
	// count that kept the session's own drifted from info's by the whole
	// typical system prompt (issue 30: 38,771 running, 25,580 written)
	ms := &measure{t: t, f: f, h: h, per: per, ahead: make([]uint64, (len(f.Entries)+63)/64), lazy: !o.exact}
	ms.advance(0)
	total = cur.Tokens.Total() + ms.overhead
	measured := ms.measured
	cut := CompressCut(f, ts, o.KeepTurns, keepEx)
	// the last prompt (its message: lastMsg..lastFirst) and its answer
	// from its last tool exchange on (tail..): never cut
	lastMsg, lastFirst := 0, -1 // no prompt: it is all one exchange
	if n := len(ts.List); n > 0 {
		lastFirst = ts.List[n-1].First
		lastMsg = messageStart(f, h, lastFirst)
	}
	tail := CompressCut(f, ts, 1, 1)
	// the entries up to the first response recording usage: the estimate
	// measures the system prompt by them
	// (only when the estimate measures it so: otherwise it is the typical
	// figure, whatever comes before)
	anchor := -1
	if measured {
		anchor = ms.k
	}
	turnOf := make([]int32, len(f.Entries))
	for _, tn := range ts.List {
		for k := tn.First; k <= tn.Last && k < len(h); k++ {
			turnOf[h[k]] = int32(tn.Index)
		}
	}
	oldEnd := min(cut, lastMsg)
	var old, oldAtt, recent []int // sent entries, oldest first
	for k, i := range h {
		if !per.sent(i) || k < anchor || (k == anchor && !f.Entries[i].IsMessage()) {
			continue
		}
		e := &f.Entries[i]
		switch {
		case k < oldEnd && e.IsMessage():
			old = append(old, i)
		case k < oldEnd:
			oldAtt = append(oldAtt, i)
		case !o.KeepRecent && k < tail && (k < lastMsg || k > lastFirst) && e.IsMessage():
			recent = append(recent, i)
		}
	}
	if anchor >= 0 && anchor < len(h) {
		// its tokens count after the measure: it may be cut (not removed)
		if i := h[anchor]; anchor < oldEnd {
			old = append([]int{i}, old...)
		}
	}
	// fits reports whether the count meets the goal, where the cuts may
	// stop; low is the lowest count seen there (the cuts can raise the
	// count: a removed response that measured the system prompt leaves
	// the measure to a later one)
	low := total
	fits := func() bool {
		if ms.dirty {
			if !o.exact && total-ms.overhead+min(chain.DefaultOverhead, chain.MinOverhead) > goal {
				return false // (not met whatever measures the system prompt)
			}
			total += ms.resolve()
		}
		low = min(low, total)
		return total <= goal
	}
	// re-estimate entry i after a cut
	known := -1 // the estimate of the entry a cut made ahead just changed (cutsAhead)
	update := func(i int) int {
		was := per.get(i)
		now := 0
		if !t.Dropped(f, i) {
			if known >= 0 {
				now = known
			} else if b, err := t.Raw(f, i); err == nil {
				now = rule.Apply(i, chain.EntryTokens(b)).Total()
			}
		}
		known = -1
		per.set(i, now)
		total += now - was + ms.changed(i, now-was)
		return was - now
	}
	step := func(what string, entries []int, apply func(i int) (bool, error)) error {
		n, saved := 0, 0
		turns := map[int]bool{}
		for _, i := range entries {
			if fits() {
				break
			}
			if t.Dropped(f, i) {
				continue
			}
			changed, err := apply(i)
			if err != nil {
				return err
			}
			if !changed { // its estimate stands: an entry is read again only once cut
				continue
			}
			if s := update(i); s != 0 {
				n++
				saved += s
				turns[int(turnOf[i])] = true
			}
		}
		if n > 0 {
			t.Note("%s: %s%s, %s tokens fewer (estimate now %s)", what, chain.Plural(n, "entry", "entries"), turnList(turns), chain.HumanTokens(saved), chain.HumanTokens(total))
		}
		return nil
	}

	// 1. synthetic error entries, on the whole branch
	var errs []int
	var buf []byte // one buffer for the lines read (a copy of each was a third of what the rescue allocated)
	for _, i := range p.Entries {
		if ok, b := isSyntheticError(t, f, i, buf); ok {
			errs = append(errs, i)
		} else if b != nil {
			buf = b
		}
	}
	// (the client does not send them: they cost file bytes, not tokens)
	for _, i := range errs {
		t.Drop(f, i)
		t.Count(CountSyntheticErrors, 1)
	}
	if len(errs) > 0 {
		t.Note("failed-retry error entries removed: %d (never sent: file bytes only)", len(errs))
	}
	// bookkeeping: the client does not send it; it costs no tokens
	dropBookkeeping(t, f, ts.Leaf)
	protected := unfinishedLoop(f)
	dropAttachment := func(i int) (bool, error) {
		if per.get(i) == 0 {
			return false, nil
		}
		t.Drop(f, i)
		t.Count(CountAttachments, 1)
		return true, nil
	}
	// 2. copies: an old attachment the client renders again later
	isOldAtt := make(map[int]bool, len(oldAtt))
	for _, i := range oldAtt {
		isOldAtt[i] = true
	}
	later := map[string]bool{}
	var copies []int
	for k := len(h) - 1; k >= 0; k-- {
		i := h[k]
		if !per.sent(i) || f.Entries[i].Type() != "attachment" {
			continue
		}
		b, err := t.Raw(f, i)
		if err != nil {
			continue
		}
		key := gjson.GetBytes(b, "attachment.type").Str + "\x00" + gjson.GetBytes(b, "rendered").Raw
		if later[key] && isOldAtt[i] {
			copies = append(copies, i)
		}
		later[key] = true
	}
	slices.Reverse(copies)
	if err := step("old attachments the client renders again later removed", copies, dropAttachment); err != nil {
		return err
	}
	thinking := func(t *Txn, f *chain.File, i int) (bool, error) {
		if protected[i] || !(f.Entries[i].HasBlock(chain.BlockThinking) || f.Entries[i].HasBlock(chain.BlockRedactedThinking)) {
			return false, nil
		}
		if !rule.Counts(i) {
			// the count does not see it: removing it saves no token and
			// loses what the model wrote
			return false, nil
		}
		n, err := t.RemoveBlocks(f, i, isThinking)
		t.Count(CountThinking, n)
		return n > 0, err
	}
	// the 2 KB, 500- and 100-byte cuts of the same entries form a chain:
	// when every one of them will run to its end (chainedCuts.begin), the
	// first makes the later ones too, from the line it cuts, in memory
	oldChain, recentChain := &chainedCuts{}, &chainedCuts{}
	steps := []struct {
		fitStep
		on  []int
		cut *entryCut // a cut made ahead on every core (cutsAhead)
		// chain: the chain the cut belongs to, level its place in it (0:
		// the first, which makes the later ones)
		chain *chainedCuts
		level int
	}{
		{fitStep{"old tool output and inputs cut to 2 KB", nil}, old, &entryCut{Max: DefaultMaxResult, Text: true}, oldChain, 0},
		{fitStep{"old thinking removed", thinking}, old, nil, nil, 0},
		{fitStep{"old images and documents replaced by a placeholder", nil}, old, &entryCut{Images: true}, nil, 0},
		{fitStep{"old tool output and inputs cut to 500 bytes", nil}, old, &entryCut{Max: 500, Text: true}, oldChain, 1},
		{fitStep{"old tool output and inputs cut to 100 bytes", nil}, old, &entryCut{Max: 100, Text: true}, oldChain, 2},
		{fitStep{"old attachments removed", nil}, nil, nil, nil, 0},
		{fitStep{"recent tool output and inputs cut to 2 KB", nil}, recent, &entryCut{Max: DefaultMaxResult, Text: true}, recentChain, 0},
		{fitStep{"recent tool output and inputs cut to 500 bytes", nil}, recent, &entryCut{Max: 500, Text: true}, recentChain, 1},
		{fitStep{"recent tool output and inputs cut to 100 bytes", nil}, recent, &entryCut{Max: 100, Text: true}, recentChain, 2},
	}
	for _, s := range steps {
		apply := func(i int) (bool, error) { return s.apply(t, f, i) }
		switch {
		case s.on == nil && s.what == "old attachments removed":
			if err := step(s.what, oldAtt, dropAttachment); err != nil {
				return err
			}
			continue
		case s.cut != nil:
			a := &cutsAhead{t: t, f: f, c: *s.cut, entries: s.on, rule: rule}
			if s.chain != nil && s.level == 0 {
				var then []entryCut
				for _, n := range steps {
					if n.chain == s.chain && n.level > 0 {
						then = append(then, *n.cut)
					}
				}
				s.chain.begin(f, s.on, then, total, goal, per)
			}
			if s.chain != nil && s.chain.res != nil {
				a.chain, a.level = s.chain, s.level
			}
			apply = func(i int) (bool, error) {
				if !needsCut(&f.Entries[i], a.c) && (a.chain == nil || a.level > 0 || !a.chain.chains(f, i)) {
					// nothing of it to cut at this level, and no later
					// level's cuts to make of it: the cut made ahead
					// would be none (cutInto's first test), and on a
					// chain of small entries asking for it was most of
					// a cut step's time on the main goroutine
					return false, nil
				}
				r := a.get(i)
				if r.err != nil {
					return false, r.err
				}
				if r.cuts > 0 {
					t.Count(CountShortened, r.cuts)
				}
				if r.changed {
					// the line is made again from the plan as it is
					// written (or read by a later step): holding the cut
					// lines was most of the rescue's memory on a session
					// of many tool outputs
					if err := t.SetLate(f, i, cutLate(r.parts, r.n, a.c)); err != nil {
						return false, err
					}
					known = r.tokens // update's estimate, made ahead
				}
				return r.changed, nil
			}
		}
		if err := step(s.what, s.on, apply); err != nil {
			return err
		}
	}
	// 9. whole turns, oldest first, but the last: one note holds a line
	// for each; when even that is too much, shorter lines, then one line
	// for all
	// what the client still sends from before the last compaction (the
	// entry the boundary's logicalParentUuid names) stays: removing it
	// would make the boundary name another (a tool result, say)
	boundary := -1
	for k, i := range h {
		if e := &f.Entries[i]; e.Type() == "system" && e.Subtype() == "compact_boundary" {
			boundary = k
		}
	}
	rm := &turnRemover{o: o, t: t, f: f, per: per, update: update, cap: max(300, goal/20), list: ts.List}
	rm.add = func(n int) { total += n + ms.changed(rm.holder, n) }
	for n, tn := range ts.List {
		if fits() || n == len(ts.List)-1 {
			break
		}
		start := messageStart(f, h, tn.First)
		if len(rm.turns) == 0 && !o.KeepRecent {
			start = 0 // what came before the first prompt (attachments, a summary) goes with it
		}
		end := lastMsg
		if n+1 < len(ts.List) {
			end = messageStart(f, h, ts.List[n+1].First)
		}
		if o.KeepRecent && end > cut {
			break
		}
		start = max(start, boundary+1)
		if start >= end {
			continue
		}
		if err := rm.remove(h[start:end], n, anchor-start); err != nil {
			return err
		}
	}
	if err := rm.setNote(); err != nil { // the lines estimated so far, written
		return err
	}
	for rm.detail = 1; !fits() && rm.holder >= 0 && rm.detail <= 3; rm.detail++ {
		if err := rm.setNote(); err != nil {
			return err
		}
	}
	// 10. what the client renders beside the recent turns (attachments:
	// listings, reminders), the last prompt's own excepted
	if !o.KeepRecent {
		var att []int
		for k, i := range h {
			if per.sent(i) && k >= max(oldEnd, anchor+1) && k < tail && (k < lastMsg || k > lastFirst) && f.Entries[i].Type() == "attachment" {
				att = append(att, i)
			}
		}
		if err := step("attachments of the recent turns removed", att, dropAttachment); err != nil {
			return err
		}
	}
	if len(rm.turns) > 0 {
		t.Count(CountTurnsRemoved, len(rm.turns))
		var removed []int
		for _, n := range rm.turns {
			rep.TurnsRemoved = append(rep.TurnsRemoved, int(n))
			removed = append(removed, int(n))
		}
		t.Note("%s", removedTurnsNote(removed, len(rm.lines), total))
	}
	if fits() {
		return nil
	}
	total += ms.resolve()
	// what stands in the way
	last, kept, measure := 0, 0, 0
	for k, i := range h {
		if !per.sent(i) {
			continue
		}
		tk := per.get(i)
		switch {
		case k >= lastMsg: // the last turn: what is left of it is its prompt and its answer
			last += tk
		case ms.measured && k < ms.k:
			measure += tk
		default:
			kept += tk
		}
	}
	// what no entry holds: the client's own answer to a last prompt left
	// unanswered (chain's "No response requested."), part of the last
	// exchange
	last += total - ms.overhead - (last + measure + kept)
	// (FitWithin makes Total and Floor info's count of the written result)
	overhead := ms.overhead + measure // what the first response recorded
	return &TargetError{Target: o.Target, Total: total, Floor: total, Low: low, Overhead: overhead, Last: last, Rest: kept,
		Measured: measure > 0, KeptRecent: o.KeepRecent, KeepTurns: o.KeepTurns, KeepExchanges: keepEx}
}

// measure follows the system prompt and tools as the estimate counts them
// (chain.OverheadOf) while the cuts change what it is measured by: the
// first response that records usage (at position k of the history; len(h)
// when none is left) and the estimate of the sent entries before it
// (before; ahead marks them). When that response is removed, the next one
// that records usage measures it.
type measure struct {
	t        *Txn
	f        *chain.File
	h        []int
	per      sentTokens
	ahead    []uint64
	k        int
	usage    chain.Usage
	found    bool
	before   int
	overhead int
	measured bool
	// us: the usage of the responses at positions usFrom.. of the
	// history, read ahead on every core (on the chain of 250,000 turns,
	// each removal moves the measure to the next response: read one
	// after the other, they were a third of the rescue's time)
	us     []usageAt
	usFrom int
	// lazy: when the response that measures is removed, the next is
	// found only when the count is read where it may meet the target
	// (dirty until then): on the chain of 250,000 turns every removal
	// moved it, and reading each next response's usage was a third
	// more CPU for the rescue
	lazy, dirty bool
}

type usageAt struct {
	u  chain.Usage
	ok bool
}

// usageBatch is how many positions of the history usageOf reads ahead.
const usageBatch = 8192

// usageOf is the usage the response at position k of the history records
// (ok false: none, or it is an error the client wrote).
func (m *measure) usageOf(k int) (chain.Usage, bool) {
	if k < m.usFrom || k >= m.usFrom+len(m.us) {
		todo := m.h[k:min(len(m.h), k+usageBatch)]
		m.us, m.usFrom = m.us[:0], k
		// (the workers only read: no edit is made until the pass is done)
		_ = chain.InOrder(m.f, len(todo), func(j int) int { return todo[j] }, func(lo, hi int) ([]usageAt, error) {
			out := make([]usageAt, hi-lo)
			// the lines that may hold a usage, read at once when they lie together
			want := make([]bool, hi-lo)
			var read []int
			for j, i := range todo[lo:hi] {
				if m.per.sent(i) && m.f.Entries[i].Type() == "assistant" && !m.t.Dropped(m.f, i) {
					want[j] = true
					read = append(read, i)
				}
			}
			lines := m.t.batch(m.f, read)
			defer lines.close()
			for j, i := range todo[lo:hi] {
				if !want[j] {
					continue
				}
				if b, _, err := lines.raw(i); err == nil && !chain.IsSyntheticError(b) {
					out[j].u, out[j].ok = chain.EntryUsage(b)
				}
			}
			return out, nil
		}, func(rs []usageAt) error {
			m.us = append(m.us, rs...)
			return nil
		})
	}
	r := m.us[k-m.usFrom]
	return r.u, r.ok
}

// resolve finds the response that measures the system prompt once the
// one that did is gone, and returns what that changes the overhead by.
func (m *measure) resolve() int {
	if !m.dirty {
		return 0
	}
	was := m.overhead
	m.dirty = false
	m.advance(m.k + 1)
	return m.overhead - was
}

// advance finds the first response recording usage from position k on,
// the entries passed counted before it.
func (m *measure) advance(k int) {
	m.found = false
	for ; k < len(m.h); k++ {
		i := m.h[k]
		if !m.per.sent(i) || m.t.Dropped(m.f, i) {
			m.ahead[i/64] |= 1 << (i % 64)
			continue
		}
		if m.f.Entries[i].Type() == "assistant" {
			if u, ok := m.usageOf(k); ok {
				m.usage, m.found = u, true
				break
			}
		}
		m.ahead[i/64] |= 1 << (i % 64)
		m.before += m.per.get(i)
	}
	m.k = k
	m.overhead, m.measured = chain.OverheadOf(m.usage, m.found, m.before)
}

// changed takes a change of d tokens to entry i (-1: none) and returns
// what it changes the overhead by.
func (m *measure) changed(i, d int) int {
	was := m.overhead
	switch {
	case i < 0:
		return 0
	case m.ahead[i/64]&(1<<(i%64)) != 0:
		m.before += d
		m.overhead, m.measured = chain.OverheadOf(m.usage, m.found, m.before)
	case m.k < len(m.h) && m.h[m.k] == i && m.t.Dropped(m.f, i):
		// the response that measured it is gone: the next one does
		// (found when the count is read: resolve)
		m.ahead[i/64] |= 1 << (i % 64)
		if m.lazy {
			m.dirty = true
			return 0
		}
		m.advance(m.k + 1)
	default:
		return 0
	}
	return m.overhead - was
}

// cutsAhead makes the cuts of one step (compressLine's, with c) to the
// entries of the step ahead of it, on every core, about cutAheadBytes of
// lines at a time, with the estimate of each cut line: made one after the
// other they were most of the time a rescue took on a session of many
// tool outputs. The step takes them in the order of entries, and stops
// when the target is met: what was made ahead of that is dropped. The
// cuts are made while the step waits (the edits are only read).
type cutsAhead struct {
	t       *Txn
	f       *chain.File
	c       entryCut
	entries []int
	// res holds the cuts of entries[from:from+len(res)]; pos is where the
	// step is
	res       []cutLine
	from, pos int
	// chain: the chain of cuts of the same entries this one is level of
	// (nil: none); level 0 makes the cuts of the later levels
	chain *chainedCuts
	level int
	// rule: the count's thinking rule (the estimate of a cut line is
	// made by it)
	rule chain.ThinkingRule
}

// chainedCuts are the cuts of the later steps of a chain (the 500- and
// 100-byte cuts after the 2 KB one, of the same entries), made by the
// first step's pass from the line it cuts, in memory: made by each step
// in turn, the line was read again and the cuts before made again from
// their plans (a third of what a rescue's cuts cost on a session of many
// tool outputs). They are made only when every step of the chain will
// run to its end (the target cannot be met before: nothing is made for
// nothing), and only for a line of kilobytes (chainMinLine) no step
// between them changes (no thinking, no image or document) that is once
// in the entries (the position names it), as many as a twentieth of the
// file's bytes holds.
type chainedCuts struct {
	then []entryCut
	// res: by position in the entries, the cuts of the later levels
	// (res[p][level-1]); nil when the chain is not made
	res  map[int32][]cutLine
	once []uint64 // entries found once in the entries (a bit each)
	// left: how many more entries' cuts res may hold; full once none
	// (read by the workers, which then make no more)
	left int
	full atomic.Bool
}

// chainCuts: the chains are made (a switch for the test that holds them
// to the cuts made step by step).
var chainCuts = true

// chainsMade counts the entries whose later cuts a chain made (for the
// test that holds them to the steps' cuts: it must reach them).
var chainsMade atomic.Int64

// begin decides, as the first step of the chain starts, whether it makes
// the later cuts: when the estimate without any of the entries (total,
// less what per gives them) is still over goal, no step of the chain can
// meet the target before its end.
func (c *chainedCuts) begin(f *chain.File, entries []int, then []entryCut, total, goal int, per sentTokens) {
	if len(then) == 0 || len(entries) == 0 || !chainCuts {
		return
	}
	for _, i := range entries {
		total -= per.get(i)
	}
	if total <= goal {
		return
	}
	seen := make([]uint64, (len(f.Entries)+63)/64)
	c.once = make([]uint64, len(seen))
	for _, i := range entries {
		if seen[i/64]&(1<<(i%64)) != 0 {
			c.once[i/64] &^= 1 << (i % 64)
			continue
		}
		seen[i/64] |= 1 << (i % 64)
		c.once[i/64] |= 1 << (i % 64)
	}
	c.then, c.res = then, map[int32][]cutLine{}
	c.left = int(f.Size / 20 / chainEntryBytes)
}

// chainMinLine is the shortest line whose later cuts a chain makes (a
// shorter one is cheap to read and cut again), and chainEntryBytes about
// what the plans of one entry's later cuts hold until they are used: a
// chain holds those of at most a twentieth of the file's bytes
// (chainedCuts.left), the first entries' (on agentic 300 MB: 38,000
// lines, ~3 MB more at the peak, which is the index's and the write's).
const (
	chainMinLine    = 2048
	chainEntryBytes = 400
)

// chains reports whether the first step makes the later cuts of entry i.
func (c *chainedCuts) chains(f *chain.File, i int) bool {
	e := &f.Entries[i]
	return e.Len >= chainMinLine && !c.full.Load() && c.once[i/64]&(1<<(i%64)) != 0 && !e.HasBlock(chain.BlockThinking) &&
		!e.HasBlock(chain.BlockRedactedThinking) && !needsCut(e, entryCut{Images: true})
}

// cutLine is the cut of one line: nothing for an entry
// removed or with nothing to cut.
type cutLine struct {
	parts        []cutAt // the plan of the cut (planCuts)
	n            int     // the length of the line the plan was made of
	cuts, tokens int
	changed      bool
	err          error
}

const cutAheadBytes = 8 << 20

// get is the cut of entry i, the next of entries the step takes.
func (a *cutsAhead) get(i int) cutLine {
	for a.pos < len(a.entries) && a.entries[a.pos] != i {
		a.pos++
	}
	if a.pos == len(a.entries) { // (not one of entries: made here)
		c, _ := a.cutInto(i, nil)
		return c
	}
	ch := a.chain
	if ch != nil && a.level > 0 {
		if r, ok := ch.res[int32(a.pos)]; ok { // made by the first step
			if a.level == len(r) {
				delete(ch.res, int32(a.pos))
			}
			return r[a.level-1]
		}
	}
	if a.pos >= a.from+len(a.res) {
		a.from = a.pos
		end, size := a.pos, 0
		for end < len(a.entries) && (end == a.pos || size < cutAheadBytes) {
			size += int(a.f.Entries[a.entries[end]].Len)
			end++
		}
		from := a.pos
		todo := a.entries[a.pos:end]
		a.res = a.res[:0]
		type made struct {
			c    cutLine
			then []cutLine // the later levels' (chainedCuts), or nil
		}
		_ = chain.InOrder(a.f, len(todo), func(k int) int { return todo[k] }, func(lo, hi int) ([]made, error) {
			out := make([]made, 0, hi-lo)
			var buf []byte // the lines read (a cut line is a copy)
			for k, i := range todo[lo:hi] {
				var m made
				switch {
				case ch != nil && a.level == 0 && ch.chains(a.f, i):
					m.c, m.then, buf = a.chainInto(i, buf)
				case ch != nil && a.level > 0 && ch.res[int32(from+lo+k)] != nil:
					// made by the first step (the map is only read while
					// the pass runs)
				default:
					m.c, buf = a.cutInto(i, buf)
				}
				out = append(out, m)
			}
			return out, nil
		}, func(ms []made) error {
			for _, m := range ms {
				if m.then != nil && ch.left > 0 { // (else the later steps make them)
					ch.res[int32(from+len(a.res))] = m.then
					chainsMade.Add(1)
					if ch.left--; ch.left == 0 {
						ch.full.Store(true)
					}
				}
				a.res = append(a.res, m.c)
			}
			return nil
		})
	}
	return a.res[a.pos-a.from]
}

// chainInto is cutInto(i, buf) with, in then, the cuts the later levels
// of the chain make of the line it leaves (each of the line the level
// before leaves), as each would make it in its turn (nil: nothing for
// them to cut, or the line could not be read: they make it themselves).
func (a *cutsAhead) chainInto(i int, buf []byte) (c cutLine, then []cutLine, next []byte) {
	t, f := a.t, a.f
	e := &f.Entries[i]
	if t.Dropped(f, i) {
		return cutLine{}, nil, buf
	}
	need, later := needsCut(e, a.c), false
	for _, lc := range a.chain.then {
		later = later || needsCut(e, lc)
	}
	if !later {
		c, buf = a.cutInto(i, buf)
		return c, nil, buf
	}
	raw, inBuf, err := t.rawBuf(f, i, buf)
	if err != nil {
		if need {
			return cutLine{err: err}, nil, buf
		}
		return cutLine{}, nil, buf
	}
	if inBuf {
		buf = raw
	}
	line := raw
	var owned []byte // the cut line of the level before, when it is ours
	then = make([]cutLine, len(a.chain.then))
	for k := -1; k < len(a.chain.then); k++ {
		lc := a.c
		if k >= 0 {
			lc = a.chain.then[k]
		}
		var r cutLine
		if needsCut(e, lc) {
			out, cuts, parts, changed := planCuts(lineBuf(len(line)), line, lc, true)
			r = cutLine{parts: parts, n: len(line), cuts: cuts, changed: changed}
			if changed {
				r.tokens = a.rule.Apply(i, chain.EntryTokens(out)).Total()
				if owned != nil {
					putLineBuf(owned)
				}
				owned, line = out, out
			}
		}
		if k < 0 {
			c = r
		} else {
			then[k] = r
		}
	}
	if owned != nil {
		putLineBuf(owned)
	}
	if ed := t.edits[f].At(i); !inBuf && ed != nil && ed.Late && ed.Raw == nil {
		putLineBuf(raw) // made by an earlier step's late edit for this read alone
	}
	return c, then, buf
}

// cutInto is the cut of entry i (compressLine), not applied; the line is
// read into buf when it is not edited, and next is the buffer to use
// again.
func (a *cutsAhead) cutInto(i int, buf []byte) (c cutLine, next []byte) {
	t, f := a.t, a.f
	if t.Dropped(f, i) || !needsCut(&f.Entries[i], a.c) {
		return cutLine{}, buf
	}
	raw, inBuf, err := t.rawBuf(f, i, buf)
	if err != nil {
		return cutLine{err: err}, buf
	}
	if inBuf {
		buf = raw
	}
	out, cuts, parts, changed := planCuts(lineBuf(len(raw)), raw, a.c, true)
	c = cutLine{parts: parts, n: len(raw), cuts: cuts, changed: changed}
	if changed {
		c.tokens = a.rule.Apply(i, chain.EntryTokens(out)).Total()
		putLineBuf(out)
	}
	if ed := t.edits[f].At(i); !inBuf && ed != nil && ed.Late && ed.Raw == nil {
		putLineBuf(raw) // made by an earlier step's late edit for this read alone
	}
	return c, buf
}

// sentTokens is the estimate of each entry the client sends, by entry
// index (-1: not sent): four bytes an entry, where a map of a
// million entries' Tokens took over a hundred.
type sentTokens []int32

func newSentTokens(n int) sentTokens {
	p := make(sentTokens, n)
	for i := range p {
		p[i] = -1
	}
	return p
}

func (p sentTokens) sent(i int) bool   { return p[i] >= 0 }
func (p sentTokens) get(i int) int     { return max(0, int(p[i])) }
func (p sentTokens) set(i int, tk int) { p[i] = int32(min(tk, math.MaxInt32)) }

// turnRemover removes whole turns and keeps the note of what they held
// in one entry: the first removed prompt, or, when the turns removed hold
// the entries the system prompt is measured by, the first response that
// records usage (what comes before it stays as it is).
type turnRemover struct {
	o      FitTokens
	t      *Txn
	f      *chain.File
	per    sentTokens
	update func(int) int
	add    func(int) // adds to the estimate
	// pending: the estimate of the lines not yet written into the note
	pending int
	// turns are the turns removed, in order; the note shows the lines of
	// the last of them, their estimates lineTok, shown in all (written
	// when the note was last written), at most cap (the lines of the
	// others are not kept: half a million removed turns held 33 MB of
	// lines no note showed)
	turns               []int32
	lineTok             []int
	shown, written, cap int
	holder              int  // the entry that holds the note, or -1
	inText              bool // holder is an assistant entry: the note is a text block
	lines               []removedTurn
	// detail of the note: 0 a line per turn with its prompt and tool
	// calls, 1 a line per turn with the start of its prompt, 2 one line
	detail int
	// list is the turns; heads the heads of the prompts (fieldsHead) of
	// list[headsFrom:], read ahead on every core
	list      []chain.Turn
	heads     []string
	headsFrom int
}

// promptBatch is how many prompts promptHead reads ahead: a removed
// turn's prompt read, decoded and cut one after the other was a third of
// the time the removals took on a chain of 250,000 short turns.
const promptBatch = 8192

// promptHead is the head of the words of turn list[n]'s prompt ("" when
// it cannot be read): its first text, as a string content or its first
// text block.
func (r *turnRemover) promptHead(n int) string {
	if n >= r.headsFrom && n < r.headsFrom+len(r.heads) {
		return r.heads[n-r.headsFrom]
	}
	t, f := r.t, r.f
	r.headsFrom = n
	r.heads = r.heads[:0]
	todo := r.list[n:min(n+promptBatch, len(r.list))]
	// (the workers read the edits: none is made until the pass is done)
	_ = chain.InOrder(f, len(todo), func(k int) int { return todo[k].Entry }, func(lo, hi int) ([]string, error) {
		heads := make([]string, 0, hi-lo)
		read := make([]int, hi-lo)
		for j, tn := range todo[lo:hi] {
			read[j] = tn.Entry
		}
		lines := t.batch(f, read)
		defer lines.close()
		for _, tn := range todo[lo:hi] {
			text := ""
			b, _, err := lines.raw(tn.Entry) // (gjson copies what it gives)
			if err == nil {
				heads = append(heads, promptLineHead(b, promptRunes+1))
				continue
			}
			heads = append(heads, fieldsHead(text, promptRunes+1))
		}
		return heads, nil
	}, func(hs []string) error {
		r.heads = append(r.heads, hs...)
		return nil
	})
	return r.heads[0]
}

type removedTurn struct {
	turn int
	// prompt is the head of the prompt's words (fieldsHead): one rune
	// more than a line shows, so that it shows the prompt was longer
	prompt, tools string
}

// promptRunes is the most of a prompt a line of the note shows.
const promptRunes = 60

// promptLineHead is fieldsHead(text, n) of the prompt of the line b: its
// first text (a string content, or its first text block). Only the head of
// the text is decoded (a prompt of kilobytes, decoded whole by gjson, was
// most of what the rescue spent on the secrets shape); where the head
// holds what the fast way does not read as gjson does (a \u escape, an
// escape JSON does not have, bytes that are not UTF-8), or the line is
// not an object with a message, the text is read by gjson.
func promptLineHead(b []byte, n int) string {
	if h, ok := promptLineHeadFast(b, n); ok {
		return h
	}
	return promptLineHeadGjson(b, n)
}

// promptLineHeadGjson is promptLineHead with the text decoded whole by
// gjson (what the note read before the fast way, and reads where that one
// does not read as gjson does).
func promptLineHeadGjson(b []byte, n int) string {
	text := ""
	c := gjson.GetBytes(b, "message.content")
	if c.Type == gjson.String {
		text = c.Str
	} else {
		c.ForEach(func(_, bl gjson.Result) bool {
			if bl.Get("type").Str == "text" {
				text = bl.Get("text").Str
				return false
			}
			return true
		})
	}
	return fieldsHead(text, n)
}

// promptHeadBytes is how much of a prompt's text promptLineHeadFast
// decodes at first.
const promptHeadBytes = 1024

func promptLineHeadFast(b []byte, n int) (string, bool) {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if len(s) == 0 || s[0] != '{' {
		return "", false
	}
	ms, _ := fieldAt(s, 0, "message")
	if ms < 0 || s[ms] != '{' {
		return "", false
	}
	cs, ce := fieldAt(s, ms, "content")
	if cs < 0 {
		return "", false
	}
	raw := ""
	switch s[cs] {
	case '"':
		raw = s[cs:ce]
	case '[':
		found, ok := false, true
		chain.Elems(s, cs, func(vs, ve int) bool {
			if s[vs] != '{' {
				ok = false // (gjson reads the type of what is not an object its own way)
				return false
			}
			if typeAt(s, vs) != "text" {
				return true
			}
			found = true
			if ts, te := fieldAt(s, vs, "text"); ts >= 0 && s[ts] == '"' {
				raw = s[ts:te]
			} else {
				ok = false
			}
			return false
		})
		if !ok {
			return "", false
		}
		if !found {
			return fieldsHead("", n), true
		}
	default:
		return "", false
	}
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	var buf [promptHeadBytes + 8]byte
	text := buf[:0]
	whole, ok := true, true
	eachDecodedAt(inner, func(c string, at int, literal bool) bool {
		if !literal && !strings.ContainsRune(`ntrbf"\/`, rune(inner[at+1])) {
			ok = false // \u, or an escape JSON does not have
			return false
		}
		if len(text)+len(c) > promptHeadBytes {
			text = append(text, c[:promptHeadBytes-len(text)]...)
			whole = false
			return false
		}
		text = append(text, c...)
		return true
	})
	if !ok {
		return "", false
	}
	t := unsafe.String(unsafe.SliceData(text), len(text))
	h, used, full := fieldsHeadAt(t, n)
	if !utf8.ValidString(t[:used]) {
		return "", false
	}
	if !whole && !(full && used <= len(t)-utf8.UTFMax) {
		return "", false // the head reads further than what was decoded
	}
	return h, true
}

// fieldsHead is strings.Join(strings.Fields(s), " ") cut to its first n
// runes, made without splitting all of s (a removed turn's prompt may be
// many kilobytes, of which the note shows 60 runes).
func fieldsHead(s string, n int) string {
	h, _, _ := fieldsHeadAt(s, n)
	return h
}

// fieldsHeadAt is fieldsHead, with the bytes of s it read and whether it
// stopped at n runes (full) rather than at the end of s.
func fieldsHeadAt(s string, n int) (head string, used int, full bool) {
	var b strings.Builder
	space, runes := false, 0
	i := 0
	for i < len(s) && runes < n {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = b.Len() > 0
		} else {
			if space {
				b.WriteByte(' ')
				runes++
				space = false
				if runes == n {
					break
				}
			}
			b.WriteString(s[i : i+size])
			runes++
		}
		i += size
	}
	return b.String(), i, runes == n
}

// remove removes the turn tn whose entries are span (positions in the
// history, from the turn's prompt message); anchor is the position in
// span of the first response recording usage (or outside span).
func (r *turnRemover) remove(span []int, n int, anchor int) error {
	t, f, tn := r.t, r.f, r.list[n]
	if len(r.turns) == 0 {
		r.holder = -1
	}
	anchored := anchor >= 0 && anchor < len(span)
	tools := map[string]int{}
	for _, i := range span {
		for _, b := range f.Entries[i].Blocks() {
			if b.Kind == chain.BlockToolUse {
				tools[b.Name]++
			}
		}
	}
	r.lines = append(r.lines, removedTurn{turn: tn.Index, prompt: r.promptHead(n), tools: toolSummary(tools)})
	r.turns = append(r.turns, int32(tn.Index))
	if r.holder < 0 {
		switch {
		case anchored:
			r.holder, r.inText = span[anchor], true
		case r.sent(tn.Entry):
			r.holder, r.inText = tn.Entry, false
		default:
			// a prompt the client no longer sends (before a compaction):
			// the first user message it sends that answers no tool call
			// (the summary)
			for _, i := range span {
				if e := &f.Entries[i]; r.sent(i) && !t.Dropped(f, i) && e.Type() == "user" && e.IsMessage() && !e.IsToolResult() {
					r.holder, r.inText = i, false
					break
				}
			}
		}
	}
	for k, i := range span {
		if t.Dropped(f, i) || i == r.holder || (anchored && k < anchor) {
			continue
		}
		if !r.per.sent(i) {
			continue // not sent (file history, system entries): kept
		}
		t.Drop(f, i)
		r.update(i)
	}
	tk := noteLineTokens(r.line(r.lines[len(r.lines)-1]))
	r.lineTok = append(r.lineTok, tk)
	r.shown += tk
	// the note lists the last turns removed, as many as fit its share of
	// the budget; the range in its first line names them all
	for r.shown > r.cap && len(r.lines) > 1 {
		r.shown -= r.lineTok[0]
		r.lines, r.lineTok = r.lines[1:], r.lineTok[1:]
	}
	if len(r.turns) == 1 || r.holder < 0 {
		return r.setNote()
	}
	// the note is written once the removals are done (rewriting it at
	// each was quadratic in the turns removed): until then it counts by
	// the estimate of its lines
	est := r.shown - r.written
	r.add(est - r.pending)
	r.pending = est
	return nil
}

// noteLineTokens estimates one more line of the note: its text as a
// prompt's, without the message and block framing (chain.TextTokens: a
// message made and parsed for each line was a third of the cost of
// removing a turn; TestNoteLineTokensIsTheMessageCount).
func noteLineTokens(line string) int {
	return chain.TextTokens(EncodeString(line))
}

// line is the note's line for turn l at the current detail.
func (r *turnRemover) line(l removedTurn) string {
	// what fmt.Sprintf("\nturn %d: %q, %s") makes, made by hand: a
	// line is made for every turn removed (its tokens count, whether the
	// note shows it or not), and fmt's was most of what the removal of a
	// turn cost on a chain of small turns (TestNoteLineIsTheFormattedOne)
	b := make([]byte, 0, 24+len(l.prompt)+len(l.tools))
	b = append(b, "\nturn "...)
	b = strconv.AppendInt(b, int64(l.turn), 10)
	b = append(b, ": "...)
	if r.detail == 0 {
		b = strconv.AppendQuote(b, clipRunes(l.prompt, promptRunes))
		b = append(b, ", "...)
		b = append(b, l.tools...)
	} else {
		b = strconv.AppendQuote(b, clipRunes(l.prompt, 24))
	}
	return string(b)
}

func (r *turnRemover) sent(i int) bool { return r.per.sent(i) }

// setNote writes the note into its holder at the current detail.
func (r *turnRemover) setNote() error {
	if r.holder < 0 || len(r.turns) == 0 {
		return nil
	}
	first, last := int(r.turns[0]), int(r.turns[len(r.turns)-1])
	span := fmt.Sprintf("turn %d", first)
	if last != first {
		span = fmt.Sprintf("turns %d–%d", first, last)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[ccsurgeon removed %s of this conversation to fit --target-tokens %d", span, r.o.Target)
	if r.detail == 3 { // the fewest words: turns 1–5 removed
		b.Reset()
		fmt.Fprintf(&b, "[ccsurgeon removed %s]", span)
	} else if r.detail < 2 {
		if len(r.lines) < len(r.turns) {
			fmt.Fprintf(&b, "; what the last %d held:]", len(r.lines))
		} else {
			b.WriteString("; what each held:]")
		}
		for _, l := range r.lines {
			b.WriteString(r.line(l))
		}
	} else {
		b.WriteString(": their prompts, answers and tool calls]")
	}
	content := EncodeString(b.String())
	if r.inText {
		content = []byte(`[{"type":"text","text":` + string(content) + `}]`)
	}
	raw, err := r.t.Raw(r.f, r.holder)
	if err != nil {
		return err
	}
	out, err := sjson.SetRawBytes(slices.Clone(raw), "message.content", content)
	if err != nil {
		return err
	}
	r.t.Set(r.f, r.holder, out)
	r.add(-r.pending) // the lines estimated one by one, now in the note
	r.pending, r.written = 0, r.shown
	r.update(r.holder)
	return nil
}

// clipRunes is s cut to its first n runes and an ellipsis when it has
// more. It walks the runes of valid UTF-8 where they lie; a byte that is
// not UTF-8 among the first n is made U+FFFD, as a conversion to runes
// makes it.
func clipRunes(s string, n int) string {
	k := 0
	for i := 0; i < len(s); k++ {
		if k == n {
			return s[:i] + "…"
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			if r := []rune(s); len(r) > n {
				return string(r[:n]) + "…"
			}
			return s
		}
		i += size
	}
	return s
}

// toolSummary says what tool calls a removed turn made: "no tool calls",
// "12 tool calls (Bash 7, Read 5)".
func toolSummary(tools map[string]int) string {
	n := 0
	var names []string
	for name, c := range tools {
		n += c
		names = append(names, name)
	}
	if n == 0 {
		return "no tool calls"
	}
	sort.Slice(names, func(a, b int) bool {
		if tools[names[a]] != tools[names[b]] {
			return tools[names[a]] > tools[names[b]]
		}
		return names[a] < names[b]
	})
	parts := make([]string, len(names))
	for k, name := range names {
		parts[k] = fmt.Sprintf("%s %d", name, tools[name])
	}
	return fmt.Sprintf("%s (%s)", chain.Plural(n, "tool call", "tool calls"), strings.Join(parts, ", "))
}

// removedTurnsNote is the note of the whole turns a cut removed (turns:
// their numbers, 0 where unknown), of which the note in the session gives
// the last shown a line each: "turn 4" alone, else "3 turns (1–3)".
func removedTurnsNote(turns []int, shown, total int) string {
	set := map[int]bool{}
	for _, n := range turns {
		set[n] = true
	}
	ns, parts := turnRanges(set)
	what := chain.Plural(len(turns), "turn", "turns")
	switch {
	case len(turns) == 1 && len(ns) == 1:
		what = "turn " + parts[0]
	case len(parts) > 6:
		what += fmt.Sprintf(" from %d to %d", ns[0], ns[len(ns)-1])
	case len(parts) > 0:
		what += " (" + strings.Join(parts, ", ") + ")"
	}
	lines := ""
	switch {
	case len(turns) == 1:
	case shown >= len(turns):
		lines = ", a line each"
	case shown == 1:
		lines = ", a line for the last"
	default:
		lines = fmt.Sprintf(", a line each for the last %d", shown)
	}
	return fmt.Sprintf("whole turns removed: %s, named in a note in the session%s (estimate now %s)", what, lines, chain.HumanTokens(total))
}

// turnRanges is the known turns of turns (numbers above 0), sorted, and
// the same as ranges: "1–5", "8".
func turnRanges(turns map[int]bool) (ns []int, parts []string) {
	for n := range turns {
		if n > 0 {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	for k := 0; k < len(ns); {
		j := k
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j == k {
			parts = append(parts, strconv.Itoa(ns[k]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", ns[k], ns[j]))
		}
		k = j + 1
	}
	return ns, parts
}

// turnList names the turns a cut touched: " in turns 1–5, 8" ("" for none
// known).
func turnList(turns map[int]bool) string {
	ns, parts := turnRanges(turns)
	switch {
	case len(ns) == 0:
		return ""
	case len(ns) == 1:
		return " in turn " + parts[0]
	case len(parts) > 6: // a summary line, not a list of hundreds
		return fmt.Sprintf(" in %d turns from %d to %d", len(ns), ns[0], ns[len(ns)-1])
	case len(parts) == 1:
		return " (turns " + parts[0] + ")"
	}
	return " in turns " + strings.Join(parts, ", ")
}

// lastTurns names the recent turns kept: "the last turn", "the last 3 turns".
func lastTurns(n int) string {
	if n == 1 {
		return "the last turn"
	}
	return fmt.Sprintf("the last %d turns", n)
}

// isSyntheticError reports whether entry i is an error the client wrote
// in place of a response (isApiErrorMessage, model "<synthetic>"): a
// failed request such as "Prompt is too long". The line is read into buf
// when it is not edited; next is that buffer to use again (nil when it
// was not used).
func isSyntheticError(t *Txn, f *chain.File, i int, buf []byte) (yes bool, next []byte) {
	e := &f.Entries[i]
	if e.Type() != "assistant" || t.Dropped(f, i) {
		return false, nil
	}
	if t.edits[f].At(i) == nil && !e.MayBeSyntheticError() {
		return false, nil // the file's line, which the index did not mark
	}
	b, inBuf, err := t.rawBuf(f, i, buf)
	if inBuf {
		next = b
	}
	return err == nil && chain.IsSyntheticError(b), next
}

// FitWithin applies p to a transaction of s that newTxn makes. When p
// holds a FitTokens, the verdict is the count of what will be written:
// the result is rendered and read back as `info` reads a session. While
// that count exceeds the target the cuts start again on a new
// transaction, aiming lower by the excess, and at last with every cut
// made. A refusal is made only when even the result of every cut counts
// above the target, and it names that count as the floor: run as printed,
// that target is met (by that result at worst). The transaction returned
// reports the count of the written result.
func FitWithin(s *chain.Session, p Pipeline, newTxn func() *Txn) (*Txn, error) {
	k := slices.IndexFunc(p, func(op Op) bool { _, ok := op.(FitTokens); return ok })
	t := newTxn()
	if k < 0 {
		return t, p.Apply(t)
	}
	// apply is p.Apply, but a refusal of the cuts (a TargetError) lets
	// the rest run and the transaction finish: the verdict is the count
	// of what it writes
	apply := func(q Pipeline, t *Txn) error {
		var te *TargetError
		for j, op := range q {
			if err := op.Apply(t); err != nil {
				if j == k && errors.As(err, &te) {
					continue
				}
				return err
			}
		}
		if err := t.Finish(); err != nil {
			return err
		}
		if te != nil {
			return te
		}
		return nil
	}
	err := apply(p, t)
	fit := p[k].(FitTokens)
	lowTried := false
	for try := 0; ; try++ {
		var te *TargetError
		if err != nil && !errors.As(err, &te) {
			return t, err
		}
		got, werr := WrittenTokens(t)
		if werr != nil {
			return t, werr
		}
		if got.Total() <= fit.Target {
			if r := t.Report.Tokens; r != nil {
				r.After = got.Total()
			}
			return t, nil
		}
		if te != nil && !fit.exact {
			// the lowest count the cuts pass, found with the measure
			// followed at every point
			ex := fit
			ex.Aim, ex.exact = 1, true
			q := slices.Clone(p)
			q[k] = ex
			et := newTxn()
			if eerr := apply(q, et); eerr != nil {
				var ete *TargetError
				if errors.As(eerr, &ete) && ete.Low < te.Low {
					te.Low = ete.Low
				}
			}
		}
		if te != nil {
			// every cut this target allows is made: the floor is what
			// info counts of that result (the parts are the running
			// count's, the difference, if any, in what is left)
			te.Rest += got.Total() - te.Total
			if te.Rest < 0 {
				te.Last, te.Rest = te.Last+te.Rest, 0
			}
			te.Total, te.Floor = got.Total(), got.Total()
			if te.Low < te.Total && !lowTried {
				// a cut raised the count: the smallest result is where
				// the cuts passed the lowest, and it is the floor
				lowTried = true
				lt := newTxn()
				low := fit
				low.Aim = te.Low
				q := slices.Clone(p)
				q[k] = low
				if lerr := apply(q, lt); lerr == nil {
					if lgot, werr := WrittenTokens(lt); werr == nil && lgot.Total() < te.Floor {
						if lgot.Total() <= fit.Target {
							t, err = lt, nil
							continue
						}
						te.Floor = lgot.Total()
					}
				}
			}
			return t, te
		}
		aim := fit.Target
		if fit.Aim > 0 {
			aim = fit.Aim
		}
		if aim <= 1 {
			// every cut made and no refusal, yet over: a bug
			return t, &OverTargetError{Target: fit.Target, Total: got.Total(), Path: s.Path}
		}
		fit.Aim = max(1, aim-(got.Total()-fit.Target))
		if try >= 3 {
			fit.Aim = 1 // every cut: the smallest result, the floor's
		}
		q := slices.Clone(p)
		q[k] = fit
		t = newTxn()
		err = apply(q, t)
	}
}

// WrittenTokens is the estimate `info` makes of the main transcript t
// writes: the result is rendered and each line counted as it passes
// (chain.WrittenResumeTokens: indexed as it is rendered, no byte held).
func WrittenTokens(t *Txn) (chain.ResumeEstimate, error) {
	return chain.WrittenResumeTokens(t.S.Main.Path, t.LinesAfter(t.S.Main), t.Render(t.S.Main))
}

// FitTarget is the token budget to propose for a session near or over its
// model's context window: three quarters of the window, which leaves room
// for the turns that follow the resume.
func FitTarget(window int) int { return window * 3 / 4 }
