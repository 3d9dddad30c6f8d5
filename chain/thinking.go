package chain

import (
	"slices"
	"strconv"
	"strings"
)

// KeepsAllThinking reports whether the API counts the thinking of every
// earlier turn in the context of a request to model, or only the last
// assistant turn's (the assistant messages since the last user message
// that is not only tool results; thinking inside the current turn's tool
// loop counts). The default depends on the model class (Anthropic's
// extended thinking docs, "thinking block preservation",
// platform.claude.com/docs/en/build-with-claude/extended-thinking; the
// context windows docs, platform.claude.com/docs/en/build-with-claude/context-windows:
// "previous thinking blocks are stripped from the context window
// calculation", context = input − previous thinking + current turn, both
// thinking and redacted_thinking):
//
//   - Opus: Claude Opus 4.5 and later keep all prior thinking blocks;
//     Opus 4.1 and earlier keep only the last assistant turn's;
//   - Sonnet: Sonnet 4.6 and later keep all; Sonnet 4.5 and earlier only
//     the last turn's;
//   - Haiku: every Haiku through Haiku 4.5 keeps only the last turn's;
//   - Mythos and the later families keep all.
//
// An id it cannot place (a later Haiku, a new family, "<synthetic>", no
// model) keeps all: the conservative side, the estimate counts more, never
// less. Ids are read as the client records them: claude-opus-4-1-20250805,
// claude-3-7-sonnet-20250219, with a "[1m]" suffix, a cloud's prefix or
// "@date" (us.anthropic.claude-sonnet-4-5-20250929-v1:0,
// claude-sonnet-4-5@20250929).
func KeepsAllThinking(model string) bool {
	m := strings.ToLower(model)
	k := strings.Index(m, "claude-")
	if k < 0 {
		return true
	}
	m = strings.TrimSuffix(m[k+len("claude-"):], "[1m]")
	family := ""
	var nums []int
	for _, tok := range strings.FieldsFunc(m, func(r rune) bool { return r == '-' || r == '@' || r == '.' || r == ':' || r == '_' }) {
		switch tok {
		case "opus", "sonnet", "haiku":
			if family != "" {
				return true // two families: not an id we know
			}
			family = tok
			continue
		}
		// a version number is one or two digits (a date has eight)
		if n, err := strconv.Atoi(tok); err == nil && len(tok) <= 2 && len(nums) < 2 {
			nums = append(nums, n)
		}
	}
	if family == "" || len(nums) == 0 {
		return true
	}
	minor := 0
	if len(nums) > 1 {
		minor = nums[1]
	}
	v := nums[0]*100 + minor // 4.5 → 405
	switch family {
	case "opus":
		return v >= 405
	case "sonnet":
		return v >= 406
	default: // haiku
		return v > 405
	}
}

// ThinkingRule says which thinking of a path the API counts: all of it,
// or (a model that keeps only the last turn's) that of the entries after
// the last user message that is not only tool results.
type ThinkingRule struct {
	KeepAll bool
	// current: the path's entries after its last user message that is not
	// only tool results, sorted (the last turn, whose thinking counts);
	// opener: that message (-1: none), path: the path's entries (shared),
	// to find the last turn again when an operation removes it
	current []int32
	opener  int
	path    []int
	f       *File
}

// Counts reports whether the thinking of entry i is counted.
func (r ThinkingRule) Counts(i int) bool {
	if r.KeepAll {
		return true
	}
	_, ok := slices.BinarySearch(r.current, int32(i))
	return ok
}

// Apply returns tk, the estimate of entry i as written, as the API counts
// it: without its thinking (blocks and their framing) when that is an
// earlier turn's the model does not keep.
func (r ThinkingRule) Apply(i int, tk Tokens) Tokens {
	if !r.Counts(i) {
		tk[TokThinking] = 0
	}
	return tk
}

// opensTurn reports whether entry e (a message the client sends) starts
// a turn for the API: a user message that is not only tool results. A
// message the client adds itself (isMeta: a skill's text after its tool
// result, a hook's feedback) does not: the client sends it in the same
// user message as the tool results before it, and whether the API then
// drops the loop's thinking is not documented; counting it is the side
// that counts more.
func opensTurn(e *Entry) bool {
	return e.IsMessage() && e.Role() == "user" && !e.IsToolResult() && !e.IsMeta()
}

// thinkingRule is the rule for path p sent to model.
func (f *File) thinkingRule(p Path, model string) ThinkingRule {
	if KeepsAllThinking(model) {
		return ThinkingRule{KeepAll: true}
	}
	return f.lastTurn(p.Entries, nil)
}

// lastTurn is the keep-last rule of the path entries, less those of gone.
func (f *File) lastTurn(entries []int, gone map[int]bool) ThinkingRule {
	r := ThinkingRule{opener: -1, path: entries, f: f}
	from := 0
	for k := len(entries) - 1; k >= 0; k-- {
		if i := entries[k]; !gone[i] && opensTurn(&f.Entries[i]) {
			from, r.opener = k+1, i
			break
		}
	}
	r.current = make([]int32, 0, len(entries)-from)
	for _, i := range entries[from:] {
		if !gone[i] {
			r.current = append(r.current, int32(i))
		}
	}
	slices.Sort(r.current)
	return r
}

// without is the rule once the entries of gone are no longer sent: when
// they hold the message that opened the last turn (fork-at-turn), an
// earlier turn is the last, and its thinking counts again.
func (r ThinkingRule) without(gone map[int]bool) (ThinkingRule, bool) {
	if r.KeepAll || r.opener < 0 || !gone[r.opener] {
		return r, false
	}
	return r.f.lastTurn(r.path, gone), true
}
