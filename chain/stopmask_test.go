package chain

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// stopsOf is the stop masks of b by their definition, byte by byte.
func stopsOf(b []byte) []uint64 {
	m := make([]uint64, (len(b)+63)/64)
	for k, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			m[k/64] |= 1 << (k % 64)
		}
	}
	return m
}

// TestStopMasksAreTheirDefinition holds the masks a line is given
// (stopMasks64: vector code on amd64; lineMasks: its tail and its
// buffers) and their Go form to the definition, byte by byte: every byte
// value at every place of a word, random bytes drawn towards the stops
// and the bytes next to them in value (0x1f, 0x20, '!', '#', '[', ']',
// 0x7f, 0x80, 0xff: a borrow or a signed compare would err there), every
// length around the words and the stack's and pool's sizes.
func TestStopMasksAreTheirDefinition(t *testing.T) {
	check := func(b []byte, what string) {
		t.Helper()
		want := stopsOf(b)
		if n := len(b) / 64; n > 0 {
			got := make([]uint64, n)
			stopMasks64(&b[0], n, &got[0])
			goForm := make([]uint64, n)
			stopMasksGo(b, goForm)
			for w := range n {
				if got[w] != want[w] || goForm[w] != want[w] {
					t.Fatalf("%s: word %d of %d bytes: stopMasks64 %#x, stopMasksGo %#x, want %#x", what, w, len(b), got[w], goForm[w], want[w])
				}
			}
		}
		var stack [maskStack]uint64
		m, pooled := lineMasks(b, &stack)
		if pooled != nil {
			defer maskPool.Put(pooled)
		}
		if !fastMasks || len(b) == 0 || len(b) > 64*maskWords {
			if m != nil {
				t.Fatalf("%s: masks for %d bytes (fast %v)", what, len(b), fastMasks)
			}
			return
		}
		if len(m) != len(want) {
			t.Fatalf("%s: %d words for %d bytes, want %d", what, len(m), len(b), len(want))
		}
		for w := range m {
			if m[w] != want[w] {
				t.Fatalf("%s: lineMasks word %d of %d bytes: %#x, want %#x", what, w, len(b), m[w], want[w])
			}
		}
	}
	for c := range 256 {
		for at := range 64 {
			b := []byte(strings.Repeat("x", 64))
			b[at] = byte(c)
			check(b, "one byte")
			check(b[:at+1], "one byte, last")
		}
	}
	near := []byte{'"', '\\', 0, 1, 0x1f, 0x20, '!', '#', '[', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	rng := rand.New(rand.NewSource(1))
	lengths := []int{0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 1000}
	for _, n := range []int{64 * maskStack, 64 * maskWords} {
		lengths = append(lengths, n-1, n, n+1)
	}
	for _, n := range lengths {
		for range 20 {
			b := make([]byte, n)
			for k := range b {
				if rng.Intn(3) == 0 {
					b[k] = byte(rng.Intn(256))
				} else {
					b[k] = near[rng.Intn(len(near))]
				}
			}
			check(b, "random")
		}
	}
}

// agreeLong is agree for a long line: validJSON with and without masks
// and encoding/json give one verdict, and the scans with and without the
// masks end the strings that start at the first and the last 40 quotes
// alike (every quote of a line of escaped quotes would be quadratic).
func agreeLong(t *testing.T, b []byte, what string) {
	t.Helper()
	var stack [maskStack]uint64
	m, pooled := lineMasks(b, &stack)
	if pooled != nil {
		defer maskPool.Put(pooled)
	}
	if fastMasks && len(b) <= 64*maskWords && m == nil {
		t.Fatalf("%s: no masks for a line of %d bytes", what, len(b))
	}
	want := json.Valid(b)
	if validJSON(b) != want || validJSONM(b, nil) != want || validJSONM(b, m) != want {
		t.Fatalf("%s (%d bytes): validJSON %v, without masks %v, with %v; encoding/json %v", what, len(b), validJSON(b), validJSONM(b, nil), validJSONM(b, m), want)
	}
	if m == nil {
		return
	}
	var quotes []int
	for i, c := range b {
		if c == '"' {
			quotes = append(quotes, i)
		}
	}
	if len(quotes) > 80 {
		quotes = append(quotes[:40], quotes[len(quotes)-40:]...)
	}
	for _, i := range quotes {
		me, mplain, mok := scanStringM(b, m, i)
		se, splain, sok := scanString(b, i)
		if mok != sok || (sok && (me != se || mplain != splain)) {
			t.Fatalf("%s: string at %d of %d bytes: with masks (%d, %v, %v), without (%d, %v, %v)", what, i, len(b), me, mplain, mok, se, splain, sok)
		}
		checkPlainEnd(t, b, m, i, what)
	}
}

// checkPlainEnd holds plainEnd at the quote b[i] to the scan without
// masks: -1, or the string's end when the string is plain; and not -1 when
// the string is plain and its closing quote lies in the mask word of its
// first byte (the case it is there for).
func checkPlainEnd(t *testing.T, b []byte, m []uint64, i int, what string) {
	t.Helper()
	pe := plainEnd(b, m, i)
	se, splain, sok := scanString(b, i)
	if pe >= 0 && !(sok && splain && pe == se) {
		t.Fatalf("%s: plainEnd at %d of %d bytes: %d, the scan (%d, plain %v, ok %v)", what, i, len(b), pe, se, splain, sok)
	}
	if pe < 0 && sok && splain && (se-1)>>6 == (i+1)>>6 {
		t.Fatalf("%s: plainEnd at %d of %d bytes: -1 for a plain string ending in its first word at %d", what, i, len(b), se)
	}
}

// TestPlainEndAtTheWordsEdges: plainEnd (the inlined look for a short
// plain string's end) against the scan without masks, for a string of
// every length up to two words, beginning at every place of a word, plain
// or ending in a stop that is no quote (an escape, a control byte, the
// line's end).
func TestPlainEndAtTheWordsEdges(t *testing.T) {
	for _, tail := range []string{`"`, `\"`, `\""`, "\x01\"", ``, `\`} {
		for pre := 0; pre < 64; pre++ {
			for n := 0; n < 130; n++ {
				b := []byte(strings.Repeat(" ", pre) + `"` + strings.Repeat("a", n) + tail)
				what := fmt.Sprintf("%d spaces, %d bytes, %q", pre, n, tail)
				// the masks by their definition (every machine), and the
				// ones this machine makes (none without vector code)
				checkPlainEnd(t, b, stopsOf(b), pre, what)
				var stack [maskStack]uint64
				if m, pooled := lineMasks(b, &stack); m != nil {
					checkPlainEnd(t, b, m, pre, what+", this machine's masks")
					if pooled != nil {
						maskPool.Put(pooled)
					}
				}
			}
		}
	}
}

// TestMaskedScanAcrossTheBuffers holds the scan with masks to the scan
// without, on lines whose strings cross the 64-byte words and whose
// lengths cross the stack's masks (2 KB), the pool's (64 KB) and none
// (longer): validJSON's verdict and the strings' ends (agreeLong).
func TestMaskedScanAcrossTheBuffers(t *testing.T) {
	for _, n := range []int{64 * maskStack, 64 * maskWords} {
		for _, d := range []int{-70, -3, -1, 0, 1, 64} {
			for _, pat := range []string{`x`, `\n`, `\"`, `\u00e9`, "\x01", `\`, "é"} {
				// {"k":"<filler>"} of n+d bytes, the filler pat repeated
				fill := n + d - len(`{"k":""}`)
				if fill < 0 {
					continue
				}
				body := strings.Repeat(pat, fill/len(pat)+1)[:fill]
				agreeLong(t, []byte(`{"k":"`+body+`"}`), "long "+pat)
				agreeLong(t, []byte(`{"k":"`+body+`}`), "long unclosed "+pat)
				agreeLong(t, []byte(`["`+strings.Repeat(`a","`, fill/4)+`"]`), "many strings")
			}
		}
	}
}
