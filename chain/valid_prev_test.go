package chain

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand"
	"strings"
	"testing"
)

// The string scan as it was before strscan11 (2026-11-27, 90d9261), kept
// as the oracle of TestScanStringIsThePrevious and the baseline of
// BenchmarkScanString: the first words eight bytes at a time, then
// bytes.IndexByte for the quote and for a backslash before it, and
// noControl over the bytes before the stop.
func prevScanString(b []byte, i int) (end int, plain, ok bool) {
	far := -1
	plain = true
	i++
	for {
		stop := -1
		if far < i {
			if i+8 <= len(b) {
				if m := stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
					stop = i + bits.TrailingZeros64(m)/8
				} else {
					stop = prevStringStop(b, i+8, 48/8-1) // its shortString was 48
				}
			}
		}
		if stop < 0 {
			if far < i {
				q := bytes.IndexByte(b[i:], '"')
				if q < 0 {
					return len(b), false, false
				}
				far = i + q
			}
			stop = far
			if k := bytes.IndexByte(b[i:far], '\\'); k >= 0 {
				stop = i + k
			}
			if !prevNoControl(b[i:stop]) {
				return i, false, false
			}
		}
		switch b[stop] {
		case '"':
			return stop + 1, plain, true
		case '\\':
		default:
			return stop, false, false
		}
		i, plain = stop, false
		if i+1 >= len(b) {
			return i, false, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) {
				return i, false, false
			}
			for _, h := range b[i+2 : i+6] {
				if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
					return i, false, false
				}
			}
			i += 6
		default:
			return i, false, false
		}
	}
}

func prevStringStop(b []byte, i, words int) int {
	for n := 0; n < words && i+8 <= len(b); n++ {
		if m := stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return -1
}

func prevNoControl(b []byte) bool {
	i := 0
	for ; i+16 <= len(b); i += 16 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := binary.LittleEndian.Uint64(b[i+8:])
		if ((x-controls)&^x|(y-controls)&^y)&hi != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return false
		}
	}
	return true
}

// sameScan fails the test when scanString and the scan as it was give
// different verdicts on the string at b[i], or end a valid one at
// different bytes, or disagree on its being plain.
func sameScan(t *testing.T, b []byte, i int, what string) {
	t.Helper()
	ne, nplain, nok := scanString(b, i)
	pe, pplain, pok := prevScanString(b, i)
	if nok != pok || (nok && (ne != pe || nplain != pplain)) {
		t.Fatalf("%s: string at %d: new (%d, plain %v, %v), previous (%d, plain %v, %v) on %.300q", what, i, ne, nplain, nok, pe, pplain, pok, b)
	}
}

// TestScanStringIsThePrevious holds the string scan (eight bytes at a
// time at the start and after each escape, one control-byte check up to
// each quote) to the scan as it was: every byte value at every offset of
// a string past the first words and the vector search, the same after an
// escape of each kind (the run after it, and an escaped quote that is not
// the end: the bytes past it are checked anew), strings cut anywhere,
// random strings of the sought bytes, UTF-8 and control bytes, and every
// string of every real line.
func TestScanStringIsThePrevious(t *testing.T) {
	tails := []string{`"`, `abc"`, strings.Repeat("y", 90) + `"`, ``, `\`, `\"` + strings.Repeat("z", 40) + `"`}
	for c := 0; c < 256; c++ {
		for off := 0; off <= 140; off++ {
			for _, tail := range tails {
				s := []byte(`"` + strings.Repeat("x", off) + string([]byte{byte(c)}) + tail)
				sameScan(t, s, 0, "byte")
			}
		}
	}
	// a byte after an escape, at every offset from it, escapes at every
	// offset from the start (a string longer than the first run, and one
	// that is not)
	escapes := []string{`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\t`}
	for _, e := range escapes {
		for _, pre := range []int{0, 3, 7, 8, 60, 63, 64, 65, 100} {
			for c := 0; c < 256; c++ {
				for off := 0; off <= 80; off++ {
					for _, tail := range tails[:4] {
						s := []byte(`"` + strings.Repeat("p", pre) + e + strings.Repeat("x", off) + string([]byte{byte(c)}) + tail)
						sameScan(t, s, 0, "after escape")
					}
				}
			}
		}
	}
	// random strings over the bytes that matter, long and short, and
	// each cut at every length
	rng := rand.New(rand.NewSource(11))
	alphabet := []byte("\"\\\\\\nu0aF \x00\x01\x1f\x20\x21\x5b\x5d\x7f\x80\xc3\xa9\xe6\x97\xa5\xff/bfrt")
	for n := 0; n < 30000; n++ {
		size := rng.Intn(40)
		if n%10 == 0 {
			size = rng.Intn(400)
		}
		s := make([]byte, 1, size+2)
		s[0] = '"'
		run := rng.Intn(3) // some strings are mostly letters, with rare sought bytes
		for len(s) < size+1 {
			if run > 0 && rng.Intn(8) != 0 {
				s = append(s, 'a'+byte(rng.Intn(26)))
				continue
			}
			s = append(s, alphabet[rng.Intn(len(alphabet))])
		}
		if rng.Intn(2) == 0 {
			s = append(s, '"')
		}
		sameScan(t, s, 0, "random")
		for k := 1; k < len(s) && n%50 == 0; k++ {
			sameScan(t, s[:k], 0, "random cut")
		}
	}
	// every string of every line we have, and the line mutated
	for _, l := range sessionLines(t) {
		for i := range l {
			if l[i] == '"' {
				sameScan(t, l, i, "line")
			}
		}
	}
}

// FuzzScanStringIsThePrevious compares the string scan with the one as it
// was on the string at the start of the input.
func FuzzScanStringIsThePrevious(f *testing.F) {
	for _, s := range []string{`"a"`, `"\n\"x\\"`, "\"" + strings.Repeat("a", 70) + "\\\"" + strings.Repeat("b", 70) + "\x01\"", `"\u12`, "\"日本\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && b[0] == '"' {
			sameScan(t, b, 0, "fuzz")
		}
	})
}
