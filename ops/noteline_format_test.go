package ops

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestNoteLineIsTheFormattedOne holds the note's line, made by hand, to
// what fmt made of it before (fmt.Sprintf with %d, %q and %s, the prompt
// cut by a conversion to runes), at both details, on prompts of every
// length around the cuts, in scripts of one to four bytes a rune, with
// bytes that are not UTF-8 before, at and after the cut, quotes,
// backslashes, control characters and U+FFFD itself.
func TestNoteLineIsTheFormattedOne(t *testing.T) {
	oldClip := func(s string, n int) string {
		if r := []rune(s); len(r) > n {
			return string(r[:n]) + "…"
		}
		return s
	}
	oldLine := func(detail int, l removedTurn) string {
		if detail == 0 {
			return fmt.Sprintf("\nturn %d: %q, %s", l.turn, oldClip(l.prompt, promptRunes), l.tools)
		}
		return fmt.Sprintf("\nturn %d: %q", l.turn, oldClip(l.prompt, 24))
	}
	pieces := []string{"a", "é", "語", "😀", "\"", "\\", "\n", "\t", "\x01", "\x7f", "\xff", "\xe2\x82", "\ufffd", " ", "…"}
	rng := rand.New(rand.NewSource(5))
	var prompts []string
	for n := 0; n <= 70; n++ {
		for _, p := range pieces {
			prompts = append(prompts, strings.Repeat(p, n), strings.Repeat("x", n)+p, p+strings.Repeat("y", n))
		}
		var b strings.Builder
		for k := 0; k < n; k++ {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		prompts = append(prompts, b.String())
	}
	for _, p := range prompts {
		for _, n := range []int{0, 1, 24, promptRunes} {
			if got, want := clipRunes(p, n), oldClip(p, n); got != want {
				t.Fatalf("clipRunes(%q, %d) = %q, want %q", p, n, got, want)
			}
		}
		for detail := 0; detail < 2; detail++ {
			l := removedTurn{turn: rng.Intn(200000), prompt: p, tools: "3 tool calls (Bash 2, Read 1)"}
			r := &turnRemover{detail: detail}
			if got, want := r.line(l), oldLine(detail, l); got != want {
				t.Fatalf("detail %d: %q, want %q", detail, got, want)
			}
		}
	}
}
