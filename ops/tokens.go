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
	f := t.S.Main
	p := f.Graph().ActivePath()
	before = f.ResumeTokensWith(p, func(i int) ([]byte, bool) {
		b, err := f.Raw(i)
		return b, err == nil
	})
	return before, estimateAfter(t, p, before)
}

func estimateAfter(t *Txn, p chain.Path, before chain.ResumeEstimate) chain.ResumeEstimate {
	f := t.S.Main
	after := f.ResumeTokensWith(p, func(i int) ([]byte, bool) {
		if t.Dropped(f, i) {
			return nil, false
		}
		b, err := t.Raw(f, i)
		return b, err == nil
	})
	// the system prompt and tools do not change with the conversation
	after.Overhead, after.OverheadMeasured = before.Overhead, before.OverheadMeasured
	return after
}

func resumeTokens(t *Txn) *TokenReport {
	b, a := ResumeEstimates(t)
	return &TokenReport{Before: b.Total(), After: a.Total(), ContextWindow: chain.ContextWindow(b.Model)}
}
