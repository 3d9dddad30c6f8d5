// Package redact finds secrets (API keys, tokens, passwords, private keys,
// credentials in URLs and assignments) in plain strings.
//
// The unit of work is one decoded JSON string value of a transcript entry.
// Scan is built for throughput: a single pass over the bytes looks for cheap
// anchors (literal prefixes such as "ghp_" or "sk-ant-", and case-insensitive
// keywords such as "password"), and only the rules whose anchors occur are
// run, each on a small window around the anchor hit.
package redact

import (
	"cmp"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Finding is one secret found in a string.
type Finding struct {
	Start, End int    // byte offsets of the secret itself in the scanned string
	Rule       string // rule id, kebab-case
}

// Rule is one detection rule. Built-in rules are created in rules.go; user
// rules come from Options.ExtraRules.
type Rule struct {
	ID string
	// Anchors: at least one must occur in the text for the rule to run. Every
	// match of the rule must contain one of them (this is what makes the
	// prefilter safe). Empty: the rule runs on every string.
	Anchors []string
	// Fold makes the anchors ASCII case-insensitive (they are stored lower case).
	Fold bool
	// Before/After: the regexp runs on [hit-Before, hit+len(anchor)+After].
	// After < 0 means up to the end of the text.
	Before, After int
	// Re is the regexp; the secret is the group named "s", else group 1 if
	// the regexp has groups, else the whole match.
	Re *regexp.Regexp
	// Boundary, if set, rejects a secret whose neighbour bytes (in the whole
	// text) satisfy it: the secret must not be part of a longer token.
	Boundary func(byte) bool
	// Check validates a candidate secret text[s:e].
	Check func(text string, s, e int) bool
	// Priority decides overlaps: higher wins, then longer.
	Priority int

	group int
	// at: Re anchored at its start (^(?:Re)), for rules with Before == 0:
	// such a match starts at an anchor hit, so it is tried once per hit
	// instead of at every position of a window (TestPrefilterNeverMisses
	// compares both ways on every positive case).
	at   *regexp.Regexp
	fast *fastMatcher // at without the regexp engine, when Re has a simple form (fast.go)
	// hand: at written by hand (hand.go), for hot rules fast cannot take
	hand func(win string) []int
	// handAll: Re.FindAllStringSubmatchIndex(win, -1) without the regexp
	// engine, for rules run across windows (hand.go, or a single class run)
	handAll func(win string) [][]int
	find    func(text string, hits []hit, emit func(s, e int, id string))
	// findLate: find, with the last test of a candidate left to resolve
	// (the generic rule: lateAssignment)
	findLate func(text string, hits []hit, emit func(s, e int, id string), later func(s, e int, a lateAssignment))
	emits    []string
	kwShape  string // the shape of a kw rule (providers.go)
}

// Options configures a Scanner.
type Options struct {
	// ExtraRules are user rules NAME=REGEX. The whole match is the secret, or
	// the first capture group if the regexp has one.
	ExtraRules map[string]string
	// Allow holds regexps: a candidate secret matching any of them is not reported.
	Allow []string
	// DisableDefaults drops the built-in rules (only ExtraRules are used).
	DisableDefaults bool
}

type anchor struct {
	s     string // lower case when fold
	fold  bool
	rules []int32
	// head is the anchor's first 8 bytes (fewer when it is shorter) as a
	// little-endian word, headMask the bytes of the word it has: the
	// prefilter compares them with the text's word at once (anchorsAt)
	head, headMask uint64
}

// probe is what anchorsAt compares of an anchor before it reads the
// anchor itself: its head and headMask, its index and length, fold, and
// its rule when it has one (most have): the anchor is read only when it
// is longer than 8 bytes or has more rules.
type probe struct {
	head, headMask uint64
	ai             int32
	n              int32 // len(anchor.s)
	rule           int32 // the anchor's one rule, -1 when it has more
	fold           bool
}

// setHead fills a.head and a.headMask from a.s.
func (a *anchor) setHead() {
	a.head, a.headMask = 0, 0
	for i := 0; i < len(a.s) && i < 8; i++ {
		a.head |= uint64(a.s[i]) << (8 * i)
		a.headMask |= 0xff << (8 * i)
	}
}

type hit struct {
	rule int32
	pos  int32
	alen int32
}

// Scanner holds compiled rules. It is immutable and safe for concurrent use.
type Scanner struct {
	rules   []*Rule
	anchors []anchor
	bigram  [1024]uint64     // set of (lower(b0), lower(b1)) that start an anchor
	short   [1024]uint64     // bigrams that are a whole (2-byte) anchor
	trigram [triWords]uint64 // hashed set of (lower(b0), lower(b1), lower(b2)) that start an anchor
	// the prefilter's second stage, for a position the trigram set let
	// through: short (exact, the bigrams of the 2-byte anchors), ends3
	// (the 3-byte anchors, hashed otherwise than trigram: a position let
	// through by a collision in trigram, "xam" of example, was let through
	// by the same collision in a set of the same hash, 45,000 of the
	// 193,000 positions sent on in the secrets bench's texts), and quad,
	// the hashed set of the first four lower-case bytes of the longer ones
	ends3 [endWords]uint64
	quad  [quadWords]uint64
	byBi  []uint16  // 65536 entries: lower bigram -> 1 + index into lists (0: none)
	lists [][]int32 // anchor indexes per bigram
	// anchorsAt's table: for the lower-case first three bytes of a longer
	// anchor (key), the anchors a position with those bytes can start, in
	// the order of their indexes: the longer ones of those bytes and the
	// 2-byte ones of the first two; for a bigram of 2-byte anchors (key
	// shortKey|bigram), those. An entry is one word (the key plus one, the
	// list's offset in probes and its length: probeKeyShift), so that a
	// position is one load of the table, then one or two cache lines of
	// probes: the slices' headers of two tables (shorts, triLists, 24
	// bytes a slot) and the anchor's rules were a cache miss each, most of
	// anchorsAt's samples.
	probeTab   []uint64
	probes     []probe
	probeShift uint32  // 32 - log2(len(probeTab)): the hash is the product's top bits
	always     []int32 // rules without anchors
	allow      []*regexp.Regexp
	noPre      bool // testing: run every rule on the whole text
	// testing: run the regexps, not the fast and hand-written matchers
	regexpOnly bool
	// testing: the generic rule's last test run when it finds a value,
	// not left to resolve (lateAssignment)
	eagerLate bool
	// sweep: every run of an encoding's alphabet is decoded and scanned
	// (anywhere.go) with inner, the scanner one level deeper (nil, and no
	// sweep, two levels down)
	sweep bool
	inner *Scanner
}

var lowerTab = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		t[i] = c
	}
	return
}()

// New compiles the built-in rules (unless disabled), the user rules and the allowlist.
func New(opts Options) (*Scanner, error) {
	s := &Scanner{}
	if !opts.DisableDefaults {
		s.rules = append(s.rules, builtinRules()...)
	}
	names := make([]string, 0, len(opts.ExtraRules))
	for name := range opts.ExtraRules {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !validRuleName(name) {
			return nil, fmt.Errorf("redact: invalid rule name %q (use letters, digits, '-', '_')", name)
		}
		re, err := regexp.Compile(opts.ExtraRules[name])
		if err != nil {
			return nil, fmt.Errorf("redact: rule %s: %w", name, err)
		}
		r := &Rule{ID: name, Re: re, After: -1, Priority: 10}
		if re.NumSubexp() > 0 {
			r.group = 1
		}
		s.rules = append(s.rules, r)
	}
	for _, a := range opts.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("redact: allow %q: %w", a, err)
		}
		s.allow = append(s.allow, re)
	}
	idx := map[string]int{}
	for ri, r := range s.rules {
		if r.Re != nil && r.find == nil && r.handAll == nil && r.Before == 0 && len(r.Anchors) > 0 && r.Priority < 10 && startsWithAnchor(r) {
			r.at = regexp.MustCompile(`^(?:` + r.Re.String() + `)`)
			r.fast = compileFast(r.Re.String())
		}
		if r.Re != nil && r.find == nil && r.at == nil && r.handAll == nil && r.Priority < 10 {
			if run := compileRun(r.Re.String()); run != nil {
				r.handAll = run.findRuns
			}
		}
		if r.Re != nil && r.group == 0 {
			if g := r.Re.SubexpIndex("s"); g > 0 {
				r.group = g
			} else if r.Re.NumSubexp() > 0 && r.Priority < 10 {
				r.group = 1
			}
		}
		if len(r.Anchors) == 0 {
			s.always = append(s.always, int32(ri))
			continue
		}
		for _, a := range r.Anchors {
			if len(a) < 2 {
				return nil, fmt.Errorf("redact: rule %s: anchor %q too short", r.ID, a)
			}
			if r.Fold {
				a = strings.ToLower(a)
			}
			key := a
			if r.Fold {
				key = "i:" + a
			}
			ai, ok := idx[key]
			if !ok {
				ai = len(s.anchors)
				idx[key] = ai
				s.anchors = append(s.anchors, anchor{s: a, fold: r.Fold})
				s.anchors[ai].setHead()
				k := uint16(lowerTab[a[0]])<<8 | uint16(lowerTab[a[1]])
				s.bigram[k>>6] |= 1 << (k & 63)
				if len(a) == 2 {
					s.short[k>>6] |= 1 << (k & 63)
					// any third byte: the scan's one test is of the trigram set
					for c := 0; c < 256; c++ {
						h := triHash(k, lowerTab[c])
						s.trigram[h>>6] |= 1 << (h & 63)
					}
				} else {
					h := triHash(k, lowerTab[a[2]])
					s.trigram[h>>6] |= 1 << (h & 63)
					if len(a) == 3 {
						e := endHash(k, lowerTab[a[2]])
						s.ends3[e>>6] |= 1 << (e & 63)
					} else {
						q := quadHash(k, lowerTab[a[2]], lowerTab[a[3]])
						s.quad[q>>6] |= 1 << (q & 63)
					}
				}
				if s.byBi == nil {
					s.byBi = make([]uint16, 1<<16)
				}
				if s.byBi[k] == 0 {
					s.lists = append(s.lists, nil)
					s.byBi[k] = uint16(len(s.lists))
				}
				s.lists[s.byBi[k]-1] = append(s.lists[s.byBi[k]-1], int32(ai))
			}
			s.anchors[ai].rules = append(s.anchors[ai].rules, int32(ri))
		}
	}
	s.splitLists()
	if !opts.DisableDefaults {
		d2 := *s
		d1 := *s
		d1.sweep, d1.inner = true, &d2
		s.sweep, s.inner = true, &d1
	}
	keepIfDefault(s, opts) // plainScanner (keys.go) uses it
	return s, nil
}

// splitLists fills probeTab and probes from lists (each keeps the order
// of its anchors' indexes).
func (s *Scanner) splitLists() {
	probeOf := func(ai int32) probe {
		an := &s.anchors[ai]
		pr := probe{head: an.head, headMask: an.headMask, ai: ai, n: int32(len(an.s)), rule: -1, fold: an.fold}
		if len(an.rules) == 1 {
			pr.rule = an.rules[0]
		}
		return pr
	}
	// the lists by key, in the order of their first anchor
	type entry struct {
		key  uint32
		list []int32
	}
	var entries []entry
	for _, list := range s.lists {
		var shorts []int32
		for _, ai := range list {
			if len(s.anchors[ai].s) == 2 {
				shorts = append(shorts, ai)
			}
		}
		if len(shorts) > 0 {
			a := s.anchors[shorts[0]].s
			entries = append(entries, entry{shortKey | uint32(lowerTab[a[0]])<<8 | uint32(lowerTab[a[1]]), shorts})
		}
		byKey := map[uint32]int{}
		for _, ai := range list {
			a := s.anchors[ai].s
			if len(a) == 2 {
				continue
			}
			key := uint32(lowerTab[a[0]])<<16 | uint32(lowerTab[a[1]])<<8 | uint32(lowerTab[a[2]])
			e, ok := byKey[key]
			if !ok {
				e = len(entries)
				byKey[key] = e
				entries = append(entries, entry{key: key})
			}
			entries[e].list = append(entries[e].list, ai)
		}
		for _, e := range byKey {
			// the 2-byte anchors of the bigram with the longer ones, in
			// the order of the indexes
			entries[e].list = append(entries[e].list, shorts...)
			slices.Sort(entries[e].list)
		}
	}
	size, bits := 16, uint32(4)
	for size < 2*len(entries) {
		size, bits = size*2, bits+1
	}
	s.probeShift = 32 - bits
	s.probeTab = make([]uint64, size)
	s.probes = s.probes[:0]
	for _, e := range entries {
		off := len(s.probes)
		for _, ai := range e.list {
			s.probes = append(s.probes, probeOf(ai))
		}
		if off >= 1<<probeOffBits || len(e.list) >= 1<<probeLenBits {
			panic("redact: too many anchors for the prefilter's table")
		}
		s.probeTab[s.probeSlot(e.key)] = uint64(e.key+1)<<probeKeyShift | uint64(off)<<probeLenBits | uint64(len(e.list))
	}
}

const (
	// shortKey marks a key of probeTab that is the bigram of 2-byte
	// anchors (a trigram key is below 1<<24)
	shortKey = 1 << 24
	// a probeTab entry: key+1 (26 bits), offset (22), length (16)
	probeLenBits  = 16
	probeOffBits  = 22
	probeKeyShift = probeLenBits + probeOffBits
)

// probeSlot is the slot of probeTab that holds key, or the empty one where it would go.
func (s *Scanner) probeSlot(key uint32) int {
	mask := uint32(len(s.probeTab) - 1)
	for j := key * 2654435761 >> s.probeShift; ; j = (j + 1) & mask {
		if k := uint32(s.probeTab[j] >> probeKeyShift); k == 0 || k == key+1 {
			return int(j)
		}
	}
}

// probesOf is the list of probeTab's key (none when it has none).
func (s *Scanner) probesOf(key uint32) []probe {
	e := s.probeTab[s.probeSlot(key)]
	off, n := e>>probeLenBits&(1<<probeOffBits-1), e&(1<<probeLenBits-1)
	return s.probes[off : off+n : off+n]
}

// startsWithAnchor: every match of r.Re begins with one of its anchors
// (each way the regexp can start is a literal that starts with an anchor),
// so a match always starts at an anchor hit. The literals are followed
// through a concatenation and its alternations of literals:
// sk_(?:live|test|prod)_… starts with sk_live_, sk_test_ or sk_prod_.
func startsWithAnchor(r *Rule) bool {
	p, err := syntax.Parse(r.Re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	starts, _, ok := literalStarts(p, r.Fold)
	if !ok {
		return false
	}
	for _, l := range starts {
		ok := false
		for _, a := range r.Anchors {
			if len(l) >= len(a) && (l[:len(a)] == a || r.Fold && strings.EqualFold(l[:len(a)], a)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// literalStarts returns the literals every match of p starts with (one per
// way p can start, at most 64), whole when they are all of p's matches; ok
// false when p can start with something other than a literal (or a
// case-folded literal and fold is false).
func literalStarts(p *syntax.Regexp, fold bool) (starts []string, whole, ok bool) {
	switch p.Op {
	case syntax.OpLiteral:
		if p.Flags&syntax.FoldCase != 0 && !fold {
			return nil, false, false
		}
		return []string{string(p.Rune)}, true, true
	case syntax.OpCapture:
		return literalStarts(p.Sub[0], fold)
	case syntax.OpAlternate:
		whole = true
		for _, sub := range p.Sub {
			ss, w, ok := literalStarts(sub, fold)
			if !ok {
				return nil, false, false
			}
			starts, whole = append(starts, ss...), whole && w
		}
		return starts, whole, len(starts) <= 64
	case syntax.OpConcat:
		if len(p.Sub) == 0 {
			return nil, false, false
		}
		starts, whole, ok = literalStarts(p.Sub[0], fold)
		if !ok {
			return nil, false, false
		}
		for _, sub := range p.Sub[1:] {
			if !whole {
				break
			}
			ss, w, ok := literalStarts(sub, fold)
			if !ok || len(starts)*len(ss) > 64 {
				return starts, false, true // the literals end here
			}
			var next []string
			for _, a := range starts {
				for _, b := range ss {
					next = append(next, a+b)
				}
			}
			starts, whole = next, w
		}
		return starts, whole, true
	}
	return nil, false, false
}

func validRuleName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(isAlnum(c) || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// RuleIDs lists every rule id the scanner can report, sorted.
func (s *Scanner) RuleIDs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, r := range s.rules {
		if r.find != nil {
			for _, id := range r.emits {
				add(id)
			}
			continue
		}
		add(r.ID)
	}
	sort.Strings(out)
	return out
}

// Rules returns the compiled rules (read only).
func (s *Scanner) Rules() []*Rule { return s.rules }

type cand struct {
	Finding
	prio int
	ord  int // the order it was found in (resolve)
	// late: the test resolve runs before it takes the candidate (isLate)
	late   lateAssignment
	isLate bool
}

// MayHold reports whether text could hold a secret: whether any rule's
// anchor occurs in it. It is the prefilter of Scan on its own, and works
// on raw JSON string tokens too (escapes rarely fall inside an anchor), so
// a caller can skip decoding strings that cannot match.
func (s *Scanner) MayHold(text string) bool {
	if s.noPre || len(s.always) > 0 {
		return true
	}
	if len(text) < 6 {
		return false
	}
	sc := scratchPool.Get().(*scratch)
	sc.hits = s.appendAnchors(sc.hits[:0], text, true)
	found := len(sc.hits) > 0
	scratchPool.Put(sc)
	return found || s.sweepEncoded(text, true, nil)
}

// scratch holds the slices one Scan works in, kept for the next.
type scratch struct {
	hits   []hit
	sorted []hit
	count  []int32
	cands  []cand
	keys   []uint64 // sortByStart's
	byPos  []cand   // sortByStart's
	swept  []Finding
	found  []Finding // resolve's, copied out at their number
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Scan returns the secrets in text: non-overlapping, sorted by Start.
func (s *Scanner) Scan(text string) []Finding {
	if len(text) < 6 {
		return nil
	}
	sc := scratchPool.Get().(*scratch)
	defer func() {
		if cap(sc.hits) <= 1<<16 && cap(sc.cands) <= 1<<14 && cap(sc.byPos) <= 1<<14 {
			scratchPool.Put(sc)
		}
	}()
	if stageTiming {
		defer stageLeave(stageEnter())
	}
	var t0 int64
	if stageTiming {
		t0 = stageStart()
	}
	var hits []hit
	if s.noPre {
		hits = s.allHits(text)
	} else {
		hits = s.appendAnchors(sc.hits[:0], text, false)
		sc.hits = hits
	}
	if stageTiming {
		stageEnd(t0, stagePrefilter)
		t0 = stageStart()
	}
	// the runs of an encoding that decode to text holding a secret (anywhere.go)
	sc.swept = sc.swept[:0]
	s.sweepEncoded(text, false, &sc.swept)
	if stageTiming {
		stageEnd(t0, stageSweep)
	}
	if len(hits) == 0 && len(s.always) == 0 && len(sc.swept) == 0 {
		return nil
	}
	cands := sc.cands[:0]
	prio := prioContext
	emit := func(st, en int, id string) {
		if st < 0 || en > len(text) || st >= en || documentedExample(text[st:en]) { // public.go
			return
		}
		cands = append(cands, cand{Finding: Finding{st, en, id}, prio: prio})
	}
	later := func(st, en int, a lateAssignment) {
		if st < 0 || en > len(text) || st >= en || documentedExample(text[st:en]) { // public.go
			return
		}
		cands = append(cands, cand{Finding: Finding{st, en, a.id()}, prio: prio, late: a, isLate: true})
	}
	for _, f := range sc.swept {
		emit(f.Start, f.End, f.Rule)
	}
	if len(hits) > 0 {
		// no rule has two hits at one position (its anchors are distinct
		// and none is a prefix of another), so the order is total
		if s.noPre {
			// allHits: by rule, then anchor, not in the order of position
			slices.SortFunc(hits, func(a, b hit) int {
				if a.rule != b.rule {
					return cmp.Compare(a.rule, b.rule)
				}
				return cmp.Compare(a.pos, b.pos)
			})
		} else {
			hits = sc.byRule(hits, len(s.rules))
		}
		for i := 0; i < len(hits); {
			j := i
			for j < len(hits) && hits[j].rule == hits[i].rule {
				j++
			}
			r := s.rules[hits[i].rule]
			prio = r.Priority
			if stageTiming {
				t0 = stageStart()
			}
			switch {
			case r.findLate != nil && !s.eagerLate:
				r.findLate(text, hits[i:j], emit, later)
			case r.find != nil:
				r.find(text, hits[i:j], emit)
			default:
				s.runWindows(r, text, hits[i:j], emit)
			}
			if stageTiming {
				stageEnd(t0, int(hits[i].rule))
			}
			i = j
		}
	}
	for _, ri := range s.always {
		r := s.rules[ri]
		prio = r.Priority
		if r.find != nil {
			r.find(text, nil, emit)
			continue
		}
		s.runRegexp(r, text, 0, len(text), emit)
	}
	sc.cands = cands
	if len(cands) == 0 {
		return nil
	}
	if stageTiming {
		t0 = stageStart()
		defer stageEnd(t0, stageResolve)
	}
	return s.resolve(text, cands, sc)
}

func (s *Scanner) allHits(text string) []hit {
	var hits []hit
	for ri, r := range s.rules {
		if len(r.Anchors) == 0 {
			continue
		}
		if r.Re != nil && r.find == nil && !r.Fold {
			// prefix rules: the whole text is one window
			hits = append(hits, hit{int32(ri), 0, int32(len(text))})
			continue
		}
		lt := strings.ToLower(text)
		for _, a := range r.Anchors {
			hay, needle := text, a
			if r.Fold {
				hay, needle = lt, strings.ToLower(a)
			}
			for off := 0; ; {
				k := strings.Index(hay[off:], needle)
				if k < 0 {
					break
				}
				hits = append(hits, hit{int32(ri), int32(off + k), int32(len(a))})
				off += k + 1
			}
		}
	}
	return hits
}

// appendAnchors is the prefilter: it appends the anchor hits of text to
// hits (after the first one found, when first is set). One pass over the
// bytes, a bigram bitset lookup per position, then (on a bigram hit) a
// hashed trigram bitset lookup, and a full comparison only on trigram
// hits. With a few hundred anchors most common English bigrams start one,
// so the trigram step is what keeps prose cheap.
func (s *Scanner) appendAnchors(hits []hit, text string, first bool) []hit {
	n := len(text)
	if n < 2 || s.byBi == nil {
		return hits
	}
	bi := &s.bigram
	// One test per position, on the hashed trigram set (which holds a
	// 2-byte anchor followed by any byte), and no branch before it:
	// testing the bigram set first let through a quarter to a third of
	// the positions of a real session's text, on a branch the processor
	// could not predict (the trigram set lets through about one in
	// twenty). A trigram hit of a bigram that starts no anchor (a hash
	// collision) is caught by the bigram set; the last position, with no
	// third byte, can only start a 2-byte anchor.
	//
	// Most positions the trigram set lets through start a word that a
	// longer anchor starts with ("ent", "con", "out": 1.4 million of the
	// 1.7 million of 25 MB of a dense session's strings, of which 48,000
	// start an anchor): a second test, of the first four bytes, sends on
	// only those that can start one (the 2- and 3-byte anchors, whose
	// fourth byte is any, are tested apart: anchorsNear).
	tri := &s.trigram
	// each byte is lowered once: it is the third byte of one position's
	// trigram, then the second of the next one's bigram. What follows a
	// trigram hit (one position in twelve of the secrets bench) is a call
	// (anchorsNear): inline, its variables took the loop's registers, and
	// the loop kept three of its own on the stack.
	k, next := uint16(lowerTab[text[0]]), lowerTab[text[1]]
	for i := 1; i < n-1; i++ {
		k = k<<8 | uint16(next)
		next = lowerTab[text[i+1]]
		h := triHash(k, next)
		if tri[h>>6&(triWords-1)]>>(h&63)&1 == 0 || bi[k>>6]>>(k&63)&1 == 0 {
			continue
		}
		var done bool
		if hits, done = s.anchorsNear(hits, text, i, k, next, first); done {
			return hits
		}
	}
	k = k<<8 | uint16(lowerTab[text[n-1]])
	if s.short[k>>6]>>(k&63)&1 != 0 {
		hits, _ = s.anchorsAt(hits, text, n-2, k, first)
	}
	return hits
}

// anchorsNear goes on with the prefilter's test of the position before i
// (p = i-1), whose bigram k (lower case) starts an anchor and whose
// trigram, with the next byte c, is in the trigram set: the bigrams of the
// 2-byte anchors, the set of the 3-byte ones and that of the longer
// anchors' first four bytes, then anchorsAt.
//
//go:noinline
func (s *Scanner) anchorsNear(hits []hit, text string, i int, k uint16, c byte, first bool) ([]hit, bool) {
	if s.short[k>>6]>>(k&63)&1 == 0 && i+2 < len(text) {
		e := endHash(k, c)
		if s.ends3[e>>6&(endWords-1)]>>(e&63)&1 == 0 {
			q := quadHash(k, c, lowerTab[text[i+2]])
			if s.quad[q>>6&(quadWords-1)]>>(q&63)&1 == 0 {
				return hits, false
			}
		}
	}
	return s.anchorsAt(hits, text, i-1, k, first)
}

// anchorsAt appends the hits of the anchors of bigram k that start at p;
// done: one was found and first asked for one only.
func (s *Scanner) anchorsAt(hits []hit, text string, p int, k uint16, first bool) ([]hit, bool) {
	n := len(text)
	var list []probe
	if p+2 < n {
		list = s.probesOf(uint32(k)<<8 | uint32(lowerTab[text[p+2]]))
	}
	if len(list) == 0 {
		if s.short[k>>6]>>(k&63)&1 == 0 {
			return hits, false
		}
		list = s.probesOf(shortKey | uint32(k))
	}
	// the text's next 8 bytes as a word, and lower-cased: an anchor's
	// first 8 bytes are one comparison (about 3.4 anchors are compared at
	// each position that gets here, byte by byte they cost a fifth of the
	// prefilter on the secrets bench)
	wide := p+8 <= n
	var w, lw uint64
	if wide {
		t := text[p : p+8]
		w = uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		lw = lowerWord(w)
	}
	for i := range list {
		pr := &list[i]
		if wide {
			// the head first (most probes differ there); an anchor of 8
			// bytes or fewer fits, the text holding 8 more
			x := w
			if pr.fold {
				x = lw
			}
			if x&pr.headMask != pr.head || pr.n > 8 && (int(pr.n) > n-p || !matchFrom(text, p, &s.anchors[pr.ai], 8)) {
				continue
			}
		} else if int(pr.n) > n-p || !matchAt(text, p, &s.anchors[pr.ai]) {
			continue
		}
		if pr.rule >= 0 {
			hits = append(hits, hit{pr.rule, int32(p), pr.n})
		} else {
			for _, ri := range s.anchors[pr.ai].rules {
				hits = append(hits, hit{ri, int32(p), pr.n})
			}
		}
		if first {
			return hits, true
		}
	}
	return hits, false
}

// The trigram set is 64 KB: the 2-byte anchors put 256 bits each in it, and
// at 16 KB their collisions let through 295,000 positions of the 4.1 MB of
// the secrets bench (241,000 at 64 KB): the whole scan -3 % (two series of
// 8 runs in turn), the prefilter alone -7 %, though the set no longer fits
// the first-level cache with the text.
const (
	triBits  = 19
	triWords = 1 << triBits / 64
)

// triHash maps a lower-case bigram and the next lower-case byte to a bit of
// the trigram set.
func triHash(bi uint16, c byte) uint32 {
	return (uint32(bi)<<8 | uint32(c)) * 2654435761 >> (32 - triBits)
}

// endHash maps a lower-case bigram and the next lower-case byte to a bit
// of the set of the 3-byte anchors: another hash than triHash's, so that
// a collision in the trigram set is not one in this set too.
func endHash(bi uint16, c byte) uint32 {
	return (uint32(bi)<<8 | uint32(c)) * 2246822519 >> (32 - endBits)
}

const (
	endBits  = 16
	endWords = 1 << endBits / 64
)

const (
	quadBits  = 18
	quadWords = 1 << quadBits / 64
)

// quadHash maps a lower-case bigram and the next two lower-case bytes to a
// bit of the set of the longer anchors' first four bytes.
func quadHash(bi uint16, c, d byte) uint32 {
	return (uint32(bi)<<16 | uint32(c)<<8 | uint32(d)) * 2246822519 >> (32 - quadBits)
}

// lowerWord lower-cases the ASCII letters of the 8 bytes of w, as lowerTab
// does each byte: a byte A-Z (its top bit clear) gets 0x20 added.
func lowerWord(w uint64) uint64 {
	const hi, ones = 0x8080808080808080, 0x0101010101010101
	low7 := w &^ hi
	atLeastA := low7 + (0x80-'A')*ones   // top bit set where the byte's low 7 bits are >= 'A'
	pastZ := low7 + (0x80-'Z'-1)*ones    // … where they are > 'Z'
	upper := atLeastA &^ pastZ &^ w & hi // and the byte itself is below 0x80
	return w | upper>>2
}

func matchAt(text string, p int, a *anchor) bool { return matchFrom(text, p, a, 0) }

// matchFrom reports whether anchor a is at p in text, its first j bytes
// known to be.
func matchFrom(text string, p int, a *anchor, j int) bool {
	as := a.s
	t := text[p : p+len(as)]
	if a.fold {
		for ; j < len(as); j++ {
			if lowerTab[t[j]] != as[j] {
				return false
			}
		}
		return true
	}
	for ; j < len(as); j++ {
		if t[j] != as[j] {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether s starts with lower (already lower case), ASCII case-insensitively.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerTab[s[i]] != lower[i] {
			return false
		}
	}
	return true
}

func (s *Scanner) runWindows(r *Rule, text string, hits []hit, emit func(int, int, string)) {
	if r.at != nil && !s.noPre {
		done := -1 // a match found from an earlier hit covers later hits inside it
		var buf [8]int
		for _, h := range hits {
			p := int(h.pos)
			if p < done {
				continue
			}
			en := len(text)
			if r.After >= 0 {
				en = min(len(text), p+int(h.alen)+r.After)
			}
			var m []int
			if r.hand != nil && !s.regexpOnly {
				m = r.hand(text[p:en])
			} else if r.fast != nil && !s.regexpOnly {
				m = r.fast.matchInto(buf[:0], text[p:en])
			} else {
				m = r.at.FindStringSubmatchIndex(text[p:en])
			}
			if m == nil {
				continue
			}
			if e := s.emitMatch(r, text, p, m, emit); e > 0 {
				done = e
			}
		}
		return
	}
	ws, we := -1, -1
	flush := func() {
		if ws >= 0 {
			s.runRegexp(r, text, ws, we, emit)
		}
	}
	for _, h := range hits {
		st := int(h.pos) - r.Before
		if st < 0 {
			st = 0
		}
		en := len(text)
		if r.After >= 0 {
			en = int(h.pos) + int(h.alen) + r.After
			if en > len(text) {
				en = len(text)
			}
		}
		if ws >= 0 && st <= we {
			if en > we {
				we = en
			}
			continue
		}
		flush()
		ws, we = st, en
	}
	flush()
}

func (s *Scanner) runRegexp(r *Rule, text string, ws, we int, emit func(int, int, string)) {
	win := text[ws:we]
	var ms [][]int
	if r.handAll != nil && !s.regexpOnly && !s.noPre {
		ms = r.handAll(win)
	} else {
		ms = r.Re.FindAllStringSubmatchIndex(win, -1)
	}
	for _, m := range ms {
		s.emitMatch(r, text, ws, m, emit)
	}
}

// emitMatch checks and emits the secret of match m (offsets relative to
// base); it returns the end of the whole match when the secret was emitted.
func (s *Scanner) emitMatch(r *Rule, text string, base int, m []int, emit func(int, int, string)) int {
	g := r.group
	if 2*g+1 >= len(m) || m[2*g] < 0 {
		return -1
	}
	st, en := base+m[2*g], base+m[2*g+1]
	if st >= en {
		return -1
	}
	if r.Boundary != nil {
		if st > 0 && r.Boundary(text[st-1]) {
			return -1
		}
		if en < len(text) && r.Boundary(text[en]) {
			return -1
		}
	}
	if r.Check != nil && !r.Check(text, st, en) {
		return -1
	}
	emit(st, en, r.ID)
	return base + m[1]
}

func (s *Scanner) resolve(text string, cands []cand, sc *scratch) []Finding {
	if len(s.allow) > 0 {
		// a late candidate that fails its test was never found: it is
		// tested first, so that an allowlist that drops every candidate
		// left gives an empty list, as before, and none gives nil
		kept := cands[:0]
		for _, c := range cands {
			if !c.isLate || c.late.stands(text, c.Start, c.End) {
				c.isLate = false
				kept = append(kept, c)
			}
		}
		if cands = kept; len(cands) == 0 {
			return nil
		}
		kept = cands[:0]
		for _, c := range cands {
			sec := text[c.Start:c.End]
			ok := true
			for _, a := range s.allow {
				if a.MatchString(sec) {
					ok = false
					break
				}
			}
			if ok {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	// Overlaps are decided by priority, then length, then position (the
	// first found wins a tie), taking a candidate when it overlaps none
	// taken. Candidates that overlap nothing before them, in the order of
	// their start, begin a new group: no candidate of one group overlaps
	// one of another, so each group is decided on its own (most hold one).
	sortByStart(cands, sc)
	// decided in the scratch buffer, then copied at their number: made at
	// len(cands), the findings held by the caller took about twice their
	// size (a generic or sk- candidate that a provider's key beats, a
	// late one that fails), the command's largest allocation (14 % of
	// its bytes on the secrets bench)
	out := sc.found[:0]
	for i := 0; i < len(cands); {
		j, end := i+1, cands[i].End
		for j < len(cands) && cands[j].Start < end {
			end = max(end, cands[j].End)
			j++
		}
		if j == i+1 {
			if c := &cands[i]; !c.isLate || c.late.stands(text, c.Start, c.End) {
				out = append(out, c.Finding)
			}
			i = j
			continue
		}
		group, first := cands[i:j], len(out)
		slices.SortFunc(group, betterCand)
		for _, c := range group {
			overlap := false
			for _, f := range out[first:] {
				if c.Start < f.End && f.Start < c.End {
					overlap = true
					break
				}
			}
			if !overlap && (!c.isLate || c.late.stands(text, c.Start, c.End)) {
				out = append(out, c.Finding)
			}
		}
		slices.SortFunc(out[first:], func(a, b Finding) int { return cmp.Compare(a.Start, b.Start) })
		i = j
	}
	sc.found = out
	if len(out) == 0 {
		if len(s.allow) == 0 {
			// every candidate was late and failed its test: none was found
			return nil
		}
		return []Finding{}
	}
	return append(make([]Finding, 0, len(out)), out...)
}

// sortByStart numbers cands in the order they were found (ord) and sorts
// them by start, then ord. It sorts packed integer keys and moves each
// candidate once: comparing and swapping the candidates themselves was a
// twentieth of the scan of a secret-dense text.
func sortByStart(cands []cand, sc *scratch) {
	for i := range cands {
		cands[i].ord = i
	}
	if len(cands) < 2 {
		return
	}
	keys := slices.Grow(sc.keys[:0], len(cands))[:len(cands)]
	sc.keys = keys
	for i, c := range cands {
		if c.Start < 0 || c.Start >= 1<<31 || i >= 1<<31 {
			slices.SortFunc(cands, func(a, b cand) int { // beyond the packed keys' range
				if a.Start != b.Start {
					return cmp.Compare(a.Start, b.Start)
				}
				return cmp.Compare(a.ord, b.ord)
			})
			return
		}
		keys[i] = uint64(c.Start)<<32 | uint64(i)
	}
	slices.Sort(keys)
	sorted := slices.Grow(sc.byPos[:0], len(cands))[:len(cands)]
	sc.byPos = sorted
	for i, k := range keys {
		sorted[i] = cands[uint32(k)]
	}
	copy(cands, sorted)
}

// betterCand orders candidates for resolve: higher priority, then longer,
// then first in the text, then first found.
func betterCand(a, b cand) int {
	if a.prio != b.prio {
		return cmp.Compare(b.prio, a.prio)
	}
	if la, lb := a.End-a.Start, b.End-b.Start; la != lb {
		return cmp.Compare(lb, la)
	}
	if a.Start != b.Start {
		return cmp.Compare(a.Start, b.Start)
	}
	return cmp.Compare(a.ord, b.ord)
}

// byRule returns hits (in the order of their position, as appendAnchors
// finds them) ordered by rule, then position: a counting sort into the
// scratch space (no rule has two hits at one position).
func (sc *scratch) byRule(hits []hit, rules int) []hit {
	if len(hits) < 32 {
		slices.SortFunc(hits, func(a, b hit) int {
			if a.rule != b.rule {
				return cmp.Compare(a.rule, b.rule)
			}
			return cmp.Compare(a.pos, b.pos)
		})
		return hits
	}
	if cap(sc.count) < rules+1 {
		sc.count = make([]int32, rules+1)
	}
	count := sc.count[:rules+1]
	clear(count)
	for _, h := range hits {
		count[h.rule+1]++
	}
	for r := 1; r <= rules; r++ {
		count[r] += count[r-1]
	}
	out := slices.Grow(sc.sorted[:0], len(hits))[:len(hits)]
	for _, h := range hits {
		out[count[h.rule]] = h
		count[h.rule]++
	}
	sc.sorted = out
	return out
}
