package redact

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// everyAnchorAt is the prefilter's definition: at each position, in the
// order of the anchors' indexes, each anchor that starts there (ASCII case
// folded when the anchor is), a hit per rule of the anchor.
func (s *Scanner) everyAnchorAt(text string) []hit {
	var hits []hit
	for p := 0; p < len(text); p++ {
		for ai := range s.anchors {
			a := &s.anchors[ai]
			if len(a.s) > len(text)-p || !matchAt(text, p, a) {
				continue
			}
			for _, ri := range a.rules {
				hits = append(hits, hit{ri, int32(p), int32(len(a.s))})
			}
		}
	}
	return hits
}

// The prefilter's stages (a trigram set, then a set of the first four
// bytes of the longer anchors) find every anchor at every position, and
// nothing else: texts made of the anchors, their prefixes and their first
// three bytes followed by any byte, upper and lower case, cut anywhere
// (the end of a text is where the four-byte stage has no fourth byte).
func TestPrefilterIsEveryAnchorAtEveryPosition(t *testing.T) {
	s := mustNew(t, Options{})
	r := rand.New(rand.NewSource(7))
	piece := func() string {
		a := s.anchors[r.Intn(len(s.anchors))].s
		switch r.Intn(6) {
		case 0:
			return a[:1+r.Intn(len(a))] // a prefix
		case 1:
			if len(a) >= 3 {
				return a[:3] + string(rune(32+r.Intn(95)))
			}
		case 2:
			return strings.ToUpper(a)
		case 3:
			return string(rune(32 + r.Intn(95)))
		case 4:
			return " "
		}
		return a
	}
	texts := []string{"", "a", "sk", "SK", "\\x", "ghp", "ghp_", "eyJ", "://"}
	for range 3000 {
		var b strings.Builder
		for range 1 + r.Intn(12) {
			b.WriteString(piece())
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, mixedText(1<<18)...)
	for _, text := range texts {
		want := s.everyAnchorAt(text)
		got := s.appendAnchors(nil, text, false)
		if !assert.Equal(t, want, got, "%q", text) {
			return
		}
		first := s.appendAnchors(nil, text, true)
		if len(want) == 0 {
			assert.Empty(t, first, "%q", text)
		} else {
			assert.Equal(t, want[0].pos, first[0].pos, "first: %q", text)
		}
	}
}
