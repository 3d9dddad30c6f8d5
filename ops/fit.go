package ops

import (
	"fmt"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// FitTokens shrinks what a resume sends until its estimate
// (chain.ResumeEstimate) fits Target tokens. It applies the cheapest cuts
// first, each to the oldest entries first, and stops as soon as the
// estimate fits, in the order a person would choose:
//
//  1. the synthetic API error entries that failed retries appended
//     ("Prompt is too long"): no model wrote them and the client does not
//     send them (file bytes only; the client then answers the retried
//     prompt with its own "No response requested.");
//  2. bookkeeping the client does not send (file bytes only);
//  3. old tool results and inputs cut to 2 KB (head and tail);
//  4. old thinking;
//  5. old images and documents (a text placeholder);
//  6. old tool results and inputs cut harder: 500, then 100 bytes.
//
// "Old" is what compress-old-turns shortens: everything before the last
// KeepTurns turns and the last KeepExchanges tool exchanges, which stay
// byte-identical. When the estimate cannot fit without touching them, it
// refuses and says what stands in the way.
type FitTokens struct {
	Target        int
	KeepTurns     int
	KeepExchanges int // 0 = DefaultKeepExchanges
	// KeepTurnsFlag is the flag that sets KeepTurns, for the hint of a
	// target out of reach ("" = --keep-turns; rewrite's is
	// --compress-old-turns)
	KeepTurnsFlag string
}

// Name of the operation.
func (FitTokens) Name() string { return "compress-to-target" }

// fitStep is one kind of cut, applied to one entry at a time.
type fitStep struct {
	what  string
	apply func(t *Txn, f *chain.File, i int) error
}

// Apply cuts until the estimate fits.
func (o FitTokens) Apply(t *Txn) error {
	if o.Target <= 0 {
		return &chain.Error{Msg: "--target-tokens must be more than 0", Code: 2}
	}
	if o.KeepTurns < 0 || o.KeepExchanges < 0 {
		return &chain.Error{Msg: "--keep-turns and --keep-exchanges must be 0 or more", Code: 2}
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
	// each sent entry's estimate, kept up to date as entries are cut
	per := map[int]chain.Tokens{}
	cur.Each(func(i int, tk chain.Tokens) { per[i] = tk })

	ts := f.ActiveTurns()
	cut := CompressCut(f, ts, o.KeepTurns, keepEx)
	var old []int // sent entries before the recent context, oldest first
	for _, i := range ts.History[:cut] {
		if _, sent := per[i]; sent && f.Entries[i].IsMessage() {
			old = append(old, i)
		}
	}
	// re-estimate entry i after a cut
	update := func(i int) int {
		was := per[i].Total()
		now := 0
		if !t.Dropped(f, i) {
			if b, err := t.Raw(f, i); err == nil {
				now = chain.EntryTokens(b).Total()
			}
		}
		per[i] = chain.Tokens{chain.TokOther: now}
		total += now - was
		return was - now
	}
	step := func(what string, entries []int, apply func(i int) error) error {
		n, saved := 0, 0
		for _, i := range entries {
			if total <= o.Target {
				break
			}
			if t.Dropped(f, i) {
				continue
			}
			if err := apply(i); err != nil {
				return err
			}
			if s := update(i); s != 0 {
				n++
				saved += s
			}
		}
		if n > 0 {
			t.Note("%s: %d entries, %d tokens fewer (estimate now %d)", what, n, saved, total)
		}
		return nil
	}

	// 1. synthetic error entries, on the whole branch
	var errs []int
	for _, i := range p.Entries {
		if isSyntheticError(t, f, i) {
			errs = append(errs, i)
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
	// 2. bookkeeping: the client does not send it; it costs no tokens
	dropBookkeeping(t, f, ts.Leaf)
	protected := unfinishedLoop(f)
	steps := []fitStep{
		{"old tool output and inputs cut to 2 KB", cutStep(entryCut{Max: DefaultMaxResult, Text: true})},
		{"old thinking removed", func(t *Txn, f *chain.File, i int) error {
			if protected[i] || !(f.Entries[i].HasBlock(chain.BlockThinking) || f.Entries[i].HasBlock(chain.BlockRedactedThinking)) {
				return nil
			}
			n, err := t.RemoveBlocks(f, i, isThinking)
			t.Count(CountThinking, n)
			return err
		}},
		{"old images and documents replaced by a placeholder", cutStep(entryCut{Images: true})},
		{"old tool output and inputs cut to 500 bytes", cutStep(entryCut{Max: 500, Text: true})},
		{"old tool output and inputs cut to 100 bytes", cutStep(entryCut{Max: 100, Text: true})},
	}
	for _, s := range steps {
		if err := step(s.what, old, func(i int) error { return s.apply(t, f, i) }); err != nil {
			return err
		}
	}
	if total <= o.Target {
		return nil
	}
	// what stands in the way
	recent, older := 0, 0
	isOld := map[int]bool{}
	for _, i := range old {
		isOld[i] = true
	}
	for i, tk := range per {
		if isOld[i] {
			older += tk.Total()
		} else {
			recent += tk.Total()
		}
	}
	flag := o.KeepTurnsFlag
	if flag == "" {
		flag = "--keep-turns"
	}
	hint := fmt.Sprintf("keep less recent context (%s 1 --keep-exchanges 2), or give a larger --target-tokens", flag)
	if o.KeepTurns <= 1 && keepEx <= 2 {
		hint = fmt.Sprintf("the recent context is as small as it goes: give a --target-tokens of at least %d", total)
	}
	return &chain.Error{
		Msg: fmt.Sprintf("cannot fit %d tokens without touching the recent context: after every cut the estimate is %d tokens (system prompt and tools ~%d, %s and %s ~%d, older context ~%d); nothing was written",
			o.Target, total, cur.Overhead, lastTurns(o.KeepTurns), chain.Plural(keepEx, "tool exchange", "tool exchanges"), recent, older),
		Hint: hint,
		Code: 1,
	}
}

// lastTurns names the recent turns kept: "the last turn", "the last 3 turns".
func lastTurns(n int) string {
	if n == 1 {
		return "the last turn"
	}
	return fmt.Sprintf("the last %d turns", n)
}

func cutStep(c entryCut) func(t *Txn, f *chain.File, i int) error {
	return func(t *Txn, f *chain.File, i int) error { return compressEntry(t, f, i, c) }
}

// isSyntheticError reports whether entry i is an error the client wrote
// in place of a response (isApiErrorMessage, model "<synthetic>"): a
// failed request such as "Prompt is too long".
func isSyntheticError(t *Txn, f *chain.File, i int) bool {
	e := &f.Entries[i]
	if e.Type() != "assistant" || t.Dropped(f, i) {
		return false
	}
	b, err := t.Raw(f, i)
	return err == nil && chain.IsSyntheticError(b)
}
