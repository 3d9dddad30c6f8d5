package app

import (
	"fmt"
	"sort"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
)

// ResumeInfo is what `info` reports about the request a resume sends
// (chain.ResumeEstimate).
type ResumeInfo struct {
	Tokens           int            `json:"tokens"`
	ByKind           map[string]int `json:"by_kind"`
	Overhead         int            `json:"overhead"`
	OverheadMeasured bool           `json:"overhead_measured"`
	Messages         int            `json:"messages"`
	Model            string         `json:"model"`
	// ThinkingKept is whose thinking the API counts for Model: "all", or
	// "last_turn" (chain.KeepsAllThinking); ThinkingDropped the earlier
	// turns' thinking left out of Tokens by it.
	ThinkingKept    string  `json:"thinking_kept"`
	ThinkingDropped int     `json:"thinking_dropped"`
	ContextWindow   int     `json:"context_window"`
	WindowShare     float64 `json:"window_share"`
	EstimatorError  float64 `json:"estimator_error"`
}

// TokenSource is a big source of resume tokens and the command that cuts
// it. Command is "" for what no command should cut (the recent context,
// the system prompt).
type TokenSource struct {
	What        string `json:"what"`
	Tokens      int    `json:"tokens"`
	Command     string `json:"command,omitempty"`
	SavesTokens int    `json:"saves_tokens"`
	// CutBy: for a source no command cuts by itself, what does (a
	// token budget), in words ending with the command
	CutBy string `json:"cut_by,omitempty"`
}

// resumeReport estimates what a resume sends and where its tokens come
// from, by running the commands it proposes on a transaction that is
// never written: each saving is the estimate before minus after.
func resumeReport(s *chain.Session, ref string) (ResumeInfo, []TokenSource) {
	f := s.Main
	p := f.Graph().ActivePath()
	t := ops.NewTxn(s)
	// compress with its defaults: what it shortens, entry by entry
	before, after, _ := (ops.CompressOldTurns{KeepTurns: ops.DefaultKeepTurns}).ApplyEstimates(t)
	win := chain.ContextWindow(before.Model)
	ri := ResumeInfo{Tokens: before.Total(), ByKind: map[string]int{}, Overhead: before.Overhead, OverheadMeasured: before.OverheadMeasured,
		Messages: before.Messages, Model: before.Model, ContextWindow: win, WindowShare: float64(before.Total()) / float64(win),
		EstimatorError: chain.EstimatorError(before.OverheadMeasured), ThinkingKept: "all", ThinkingDropped: before.ThinkingDropped}
	if !before.Thinking.KeepAll {
		ri.ThinkingKept = "last_turn"
	}
	for k := chain.TokenKind(0); k < chain.NumTokenKinds; k++ {
		if n := before.Tokens[k]; n > 0 {
			ri.ByKind[k.String()] = n
		}
	}

	ts := f.ActiveTurns()
	cut := ops.CompressCut(f, ts, ops.DefaultKeepTurns, ops.DefaultKeepExchanges)
	old := make([]bool, len(f.Entries))
	for _, i := range ts.History[:cut] {
		old[i] = true
	}
	subagentCall := map[string]bool{}
	for _, i := range p.Entries {
		for _, b := range f.Entries[i].Blocks() {
			if b.Kind == chain.BlockToolUse && (b.Name == "Task" || b.Name == "Agent") {
				subagentCall[b.ID] = true
			}
		}
	}
	type acc struct {
		n, tokens, saves int
	}
	var oldTools, thinking, images, subagents, recent, oldText acc
	inEntries := 0
	before.Each(func(i int, tb chain.Tokens) {
		inEntries += tb.Total()
		e := &f.Entries[i]
		ta, _ := after.Entry(i)
		saved := tb.Total() - ta.Total()
		switch {
		case !old[i]:
			recent.n++
			recent.tokens += tb.Total() - tb[chain.TokThinking] // (its thinking: the thinking row's)
		case isSubagentResult(e, subagentCall):
			subagents.n++
			subagents.tokens += tb.Total() - tb[chain.TokThinking] - tb[chain.TokImage] - tb[chain.TokDocument]
			subagents.saves += saved
		case tb[chain.TokToolOutput]+tb[chain.TokToolInput] > 0:
			oldTools.n++
			oldTools.tokens += tb[chain.TokToolOutput] + tb[chain.TokToolInput]
			oldTools.saves += tb[chain.TokToolOutput] + tb[chain.TokToolInput] - ta[chain.TokToolOutput] - ta[chain.TokToolInput]
		}
		if old[i] && tb[chain.TokImage]+tb[chain.TokDocument] > 0 {
			images.n++
			images.tokens += tb[chain.TokImage] + tb[chain.TokDocument]
			images.saves += tb[chain.TokImage] + tb[chain.TokDocument] - ta[chain.TokImage] - ta[chain.TokDocument]
		}
		if tb[chain.TokThinking] > 0 {
			thinking.n++
			thinking.tokens += tb[chain.TokThinking]
		}
		// the rest of an old entry: its prompt or answer (text), and
		// what each message costs beside its blocks
		if old[i] && !isSubagentResult(e, subagentCall) {
			if rest := tb.Total() - tb[chain.TokToolOutput] - tb[chain.TokToolInput] - tb[chain.TokThinking] - tb[chain.TokImage] - tb[chain.TokDocument]; rest > 0 {
				oldText.n++
				oldText.tokens += rest
			}
		}
	})
	// what the client sends that no entry holds (its own answer to a
	// last prompt that got none, "No response requested."): the recent
	// context's
	recent.tokens += before.Tokens.Total() - inEntries
	// strip-thinking: what it would remove (it keeps an unfinished loop's)
	if thinking.n > 0 {
		st := ops.NewTxn(s)
		if err := (ops.StripThinking{}).Apply(st); err == nil {
			a := ops.EstimateAfter(st, before)
			thinking.saves = before.Tokens[chain.TokThinking] - a.Tokens[chain.TokThinking]
		}
	}
	var out []TokenSource
	add := func(what string, a acc, cmd string, saves int) {
		if a.tokens > 0 {
			out = append(out, TokenSource{What: what, Tokens: a.tokens, Command: cmd, SavesTokens: saves})
		}
	}
	compress := "ccsurgeon compress " + ref
	add(fmt.Sprintf("old tool output and inputs (%s)", Plural(oldTools.n, "entry", "entries")), oldTools, compress, oldTools.saves)
	add(fmt.Sprintf("thinking (%s)", Plural(thinking.n, "entry", "entries")), thinking, "ccsurgeon strip-thinking "+ref, thinking.saves)
	add(fmt.Sprintf("old images and documents (%s)", Plural(images.n, "entry", "entries")), images, compress, images.saves)
	add(fmt.Sprintf("old subagent results (%s)", Plural(subagents.n, "result", "results")), subagents, compress, subagents.saves)
	sort.SliceStable(out, func(i, j int) bool { return out[i].SavesTokens > out[j].SavesTokens })
	// what only a budget cuts: whole old turns (each to a one-line note),
	// then the recent context's tool output
	budget := fmt.Sprintf("only a token budget cuts it: ccsurgeon compress %s --target-tokens %d --dry-run", ref, ops.FitTarget(win))
	if oldText.tokens > 0 {
		out = append(out, TokenSource{What: fmt.Sprintf("older prompts and answers (%s)", Plural(oldText.n, "entry", "entries")), Tokens: oldText.tokens, CutBy: budget})
	}
	if recent.tokens > 0 {
		out = append(out, TokenSource{What: fmt.Sprintf("recent context (the last %d turns or %d tool exchanges: compress keeps them, --target-tokens cuts their tool output last)", ops.DefaultKeepTurns, ops.DefaultKeepExchanges), Tokens: recent.tokens, CutBy: budget})
	}
	sys := acc{tokens: before.Overhead}
	what := "system prompt and tools (measured from the session's usage)"
	switch {
	case before.OverheadMeasured:
	case recordedTokens(s.Main) > 0:
		// info prints that usage as "recorded": say why it measures
		// nothing here (chain's minOverhead: a proxy's, a mock's, zeros)
		what = "system prompt and tools (typical; the usage the session records is too small to be an API's count)"
	default:
		what = "system prompt and tools (typical; the session records no usage to measure it)"
	}
	add(what, sys, "", 0)
	return ri, out
}

func isSubagentResult(e *chain.Entry, calls map[string]bool) bool {
	for _, b := range e.Blocks() {
		if b.Kind == chain.BlockToolResult && calls[b.ID] {
			return true
		}
	}
	return false
}
