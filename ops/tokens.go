package ops

import (
	"sort"

	"github.com/ccsurgeon/ccsurgeon/chain"
)

// TokenReport is the estimated size of the request a resume sends, before
// and after an operation (chain.ResumeEstimate: the conversation the
// client rebuilds plus its system prompt and tools).
type TokenReport struct {
	Before int `json:"before"`
	After  int `json:"after"`
	// Target is the budget of --target-tokens (0: none).
	Target int `json:"target,omitempty"`
	// ContextWindow of the session's model, in tokens.
	ContextWindow int `json:"context_window"`
	// TurnsRemoved are the turns --target-tokens removed whole (each left
	// as a line of a note), by their number in `turns`.
	TurnsRemoved []int `json:"turns_removed"`
}

// ResumeEstimates estimates what a resume sends from the session as read
// and from the session as the transaction leaves it so far (the same
// branch, without the removed entries, with the edited bytes).
func ResumeEstimates(t *Txn) (before, after chain.ResumeEstimate) {
	if t.before == nil {
		f := t.S.Main
		b := f.ResumeTokensWith(f.Graph().ActivePath(), nil)
		t.before = &b
	}
	return *t.before, EstimateAfter(t, *t.before)
}

// EstimateAfter is the estimate of what a resume sends once t is applied,
// given before, the estimate of the session as read (the same session).
func EstimateAfter(t *Txn, before chain.ResumeEstimate) chain.ResumeEstimate {
	// only what the transaction changed is estimated again (on every
	// core); the system prompt and tools do not change with the
	// conversation
	f := t.S.Main
	changed := map[int]chain.Tokens{}
	gone := map[int]bool{}
	var redo []int
	for i := range t.edits[f].All() {
		if _, sent := before.Entry(i); !sent || !t.Changed(f, i) {
			continue
		}
		switch now, known := t.known[f][i]; {
		case t.Dropped(f, i):
			gone[i] = true
		case known:
			changed[i] = now
		default:
			redo = append(redo, i)
		}
	}
	sort.Ints(redo)
	type counted struct {
		i  int
		tk chain.Tokens
		ok bool
	}
	_ = chain.InOrder(f, len(redo), func(k int) int { return redo[k] }, func(lo, hi int) ([]counted, error) {
		out := make([]counted, 0, hi-lo)
		for _, i := range redo[lo:hi] {
			b, err := t.Raw(f, i)
			out = append(out, counted{i, chain.EntryTokens(b), err == nil})
		}
		return out, nil
	}, func(cs []counted) error {
		for _, c := range cs {
			if c.ok {
				changed[c.i] = c.tk
			} else {
				gone[c.i] = true
			}
		}
		return nil
	})
	// what the estimate reads of the path as a whole (its end, the
	// response the system prompt is measured by) as info reads it on the
	// written file (issue 30: one figure, info's)
	return before.Over(changed, gone).Recounted(f, f.Graph().ActivePath(), func(i int) ([]byte, bool) {
		if t.Dropped(f, i) {
			return nil, false
		}
		b, err := t.Raw(f, i)
		return b, err == nil
	})
}

// knownTokens records the estimate of the current bytes of line i of f,
// which the operation that made them computed anyway.
func (t *Txn) knownTokens(f *chain.File, i int, tk chain.Tokens) {
	if t.known == nil {
		t.known = map[*chain.File]map[int]chain.Tokens{}
	}
	if t.known[f] == nil {
		t.known[f] = map[int]chain.Tokens{}
	}
	t.known[f][i] = tk
}

// forgetEstimates lets the cached estimates go (with their per-entry
// rows): a later ResumeEstimates makes them again.
func (t *Txn) forgetEstimates() { t.before, t.after = nil, nil }

// reportResumeTokens sets the estimate of what a resume sends before and
// after the transaction, when it changes anything: a transaction that
// changes nothing is not written and prints no estimate, and the estimate
// reads every line (on a session with nothing to compress it was 40% of
// compress-old-turns).
func (t *Txn) reportResumeTokens() {
	if t.ChangesAnything() {
		t.Report.Tokens = resumeTokens(t)
	}
}

func resumeTokens(t *Txn) *TokenReport {
	b, a := ResumeEstimates(t)
	t.after = &a
	return &TokenReport{Before: b.Total(), After: a.Total(), ContextWindow: chain.ContextWindow(b.Model)}
}
