package chain

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// A line's stop masks: one bit for each of its bytes, set where the byte
// is '"', '\\' or below 0x20 (a byte a string scan stops at), 64 bytes a
// word, bit j of word w for byte 64w+j; the bits past the line's end are
// clear. With them a string's end is a shift and a count of trailing
// zeros, where the scan without them tests each string's bytes word by
// word and guesses at each word whether the string ends in it (a line of
// an envelope holds a hundred short strings). They are made for a whole
// line at once (vector compares where the machine has them:
// stopMasks64), before it is validated.

// maskStack is how many words of masks a line's walk keeps on its stack
// (zeroed at each call, as Go zeroes every local: kept small), lines up to
// 2 KB; maskWords the most a line is given, from a pool, lines up to 64
// KB. A longer line is scanned without masks: its long strings by
// bytes.IndexByte.
const (
	maskStack = 32
	maskWords = 1024
)

var maskPool = sync.Pool{New: func() any { return new([maskWords]uint64) }}

// lineMasks returns the stop masks of b, in stack when they fit and else
// in a buffer of the pool (returned as pooled: the caller puts it back
// when done with the masks), or nil when b is longer than maskWords words
// or this machine has no vector code for them.
func lineMasks(b []byte, stack *[maskStack]uint64) (m []uint64, pooled *[maskWords]uint64) {
	if !fastMasks || len(b) > 64*maskWords || len(b) == 0 {
		return nil, nil
	}
	n := (len(b) + 63) / 64
	if n <= maskStack {
		m = stack[:n]
	} else {
		pooled = maskPool.Get().(*[maskWords]uint64)
		m = pooled[:n]
	}
	whole := len(b) / 64
	if whole > 0 {
		stopMasks64(&b[0], whole, &m[0])
	}
	if whole < n {
		// the tail, in a word of bytes that are no stops
		t := noStops
		copy(t[:], b[64*whole:])
		stopMasks64(&t[0], 1, &m[whole])
	}
	return m, pooled
}

// noStops is 64 bytes none of which is a stop.
var noStops = [64]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
	'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
	'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
	'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}

// stopMasksGo is stopMasks64 in Go, eight bytes at a time: the masks of
// the n 64-byte words at b into m (the reference the vector code is
// tested against, and what a machine without it would use).
func stopMasksGo(b []byte, m []uint64) {
	for w := range m {
		var x uint64
		for k := 0; k < 8; k++ {
			v := binary.LittleEndian.Uint64(b[64*w+8*k:])
			x |= stopBits(v) << (8 * k)
		}
		m[w] = x
	}
}

// stopBits is one bit for each byte of v (the lowest for the first) that
// is '"', '\\' or below 0x20: exact in every byte (no borrow from one
// byte into the next, unlike stops).
func stopBits(v uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	zero := func(x uint64) uint64 { return ^((x&low7 + low7) | x) & hi } // high bit where the byte is 0
	below := ^((v&low7 + 0x6060606060606060) | v) & hi                   // high bit where the byte is < 0x20
	f := zero(v^quotes) | zero(v^backslashes) | below
	// gather the eight high bits into the low byte
	return (f >> 7) * 0x0102040810204080 >> 56
}

// plainEnd is the index after the string at b[i] when its closing quote is
// the first stop in the mask word after its opening one (a plain string
// of at most 63 bytes, most keys and values of an envelope), else -1: a
// look the compiler inlines where the string begins, so that only the
// others take a call to scanStringM.
func plainEnd(b []byte, m []uint64, i int) int {
	j := i + 1
	if w := j >> 6; w < len(m) {
		if x := m[w] >> (uint(j) & 63); x != 0 {
			if s := j + bits.TrailingZeros64(x); s < len(b) && b[s] == '"' {
				return s + 1
			}
		}
	}
	return -1
}

// scanStringM is scanString with the stop masks m of b (nil: none, and
// scanString it is): the same results.
func scanStringM(b []byte, m []uint64, i int) (end int, plain, ok bool) {
	if m == nil {
		return scanString(b, i)
	}
	plain = true
	i++ // the opening quote
	for {
		w := i >> 6
		if w >= len(m) {
			return len(b), false, false
		}
		x := m[w] >> (uint(i) & 63)
		for x == 0 {
			if w++; w >= len(m) {
				return len(b), false, false
			}
			x, i = m[w], w<<6
		}
		stop := i + bits.TrailingZeros64(x)
		switch b[stop] {
		case '"':
			return stop + 1, plain, true
		case '\\':
		default: // a control byte
			return stop, false, false
		}
		plain = false // an escape
		if i = escapeEnd(b, stop); i < 0 {
			return stop, false, false
		}
	}
}
