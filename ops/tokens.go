package ops

import "github.com/ccsurgeon/ccsurgeon/chain"

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
}

// ResumeEstimates estimates what a resume sends from the session as read
// and from the session as the transaction leaves it so far (the same
// branch, without the removed entries, with the edited bytes).
func ResumeEstimates(t *Txn) (before, after chain.ResumeEstimate) {
	if t.before == nil {
		f := t.S.Main
		b := f.ResumeTokensWith(f.Graph().ActivePath(), func(i int) ([]byte, bool) {
			b, err := f.Raw(i)
			return b, err == nil
		})
		t.before = &b
	}
	return *t.before, EstimateAfter(t, *t.before)
}

// EstimateAfter is the estimate of what a resume sends once t is applied,
// given before, the estimate of the session as read (the same session).
func EstimateAfter(t *Txn, before chain.ResumeEstimate) chain.ResumeEstimate {
	// only what the transaction changed is estimated again; the system
	// prompt and tools do not change with the conversation
	f := t.S.Main
	after := before
	after.PerEntry = make(map[int]chain.Tokens, len(before.PerEntry))
	for i, tk := range before.PerEntry {
		if !t.Changed(f, i) {
			after.PerEntry[i] = tk
			continue
		}
		var now chain.Tokens
		if !t.Dropped(f, i) {
			if b, err := t.Raw(f, i); err == nil {
				now = chain.EntryTokens(b)
				after.PerEntry[i] = now
			}
		}
		for k := range now {
			after.Tokens[k] += now[k] - tk[k]
		}
	}
	return after
}

func resumeTokens(t *Txn) *TokenReport {
	b, a := ResumeEstimates(t)
	return &TokenReport{Before: b.Total(), After: a.Total(), ContextWindow: chain.ContextWindow(b.Model)}
}
