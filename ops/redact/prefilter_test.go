package redact

import (
	"encoding/binary"
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
		case 5:
			if r.Intn(2) == 0 {
				// a byte of the upper-case anchor with its top bit set
				// (0xC1 for A): not a letter, though its low 7 bits are one
				// (the prefilter compares 8 bytes at once, lower-cased)
				b := []byte(strings.ToUpper(a))
				b[r.Intn(len(b))] |= 0x80
				return string(b)
			}
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

// lowerWord lower-cases 8 bytes at once as lowerTab does each: every byte
// value, in every place of the word, next to bytes of every kind.
func TestLowerWordIsLowerTab(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for c := 0; c < 256; c++ {
		for lane := 0; lane < 8; lane++ {
			for range 8 {
				var b [8]byte
				for i := range b {
					b[i] = byte(r.Intn(256))
				}
				b[lane] = byte(c)
				w := binary.LittleEndian.Uint64(b[:])
				var want [8]byte
				for i := range b {
					want[i] = lowerTab[b[i]]
				}
				if got := lowerWord(w); got != binary.LittleEndian.Uint64(want[:]) {
					t.Fatalf("lowerWord(% x) = %016x, want % x", b, got, want)
				}
			}
		}
	}
}
