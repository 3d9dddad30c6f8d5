package chain

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// agree fails the test when the new validator, the one kept as it was
// (the oracle) and encoding/json do not all give one verdict on b, or when
// the new and the old string scan end a valid string at different bytes
// (the walker of the loader reads values from those ends), or when a
// valid string is called plain (its key read without decoding) while it
// holds an escape, or the other way round.
func agree(t *testing.T, b []byte, what string) {
	t.Helper()
	want := oldValidJSON(b)
	if got := validJSON(b); got != want {
		t.Fatalf("%s: validJSON %v, the old one %v on %.200q", what, got, want, b)
	}
	if std := json.Valid(b); std != want {
		t.Fatalf("%s: the old one %v, encoding/json %v on %.200q", what, want, std, b)
	}
	// the scan with the line's stop masks (validJSON takes them for a
	// line that fits) and without them agree, verdict and string ends
	var stack [maskStack]uint64
	m, pooled := lineMasks(b, &stack)
	if pooled != nil {
		defer maskPool.Put(pooled)
	}
	if fastMasks && len(b) > 0 && len(b) <= 64*maskWords && m == nil {
		t.Fatalf("%s: no masks for a line of %d bytes", what, len(b))
	}
	if got := validJSONM(b, nil); got != want {
		t.Fatalf("%s: validJSON without masks %v, the old one %v on %.200q", what, got, want, b)
	}
	if got := validJSONM(b, m); got != want {
		t.Fatalf("%s: validJSON with masks %v, the old one %v on %.200q", what, got, want, b)
	}
	for i := range b {
		if b[i] != '"' {
			continue
		}
		if m != nil {
			me, mplain, mok := scanStringM(b, m, i)
			se, splain, sok := scanString(b, i)
			// (where a string that is not valid fails, no caller reads)
			if mok != sok || (sok && (me != se || mplain != splain)) {
				t.Fatalf("%s: string at %d: with masks (%d, %v, %v), without (%d, %v, %v) on %.200q", what, i, me, mplain, mok, se, splain, sok, b)
			}
		}
		oe, ook := oldValidString(b, i, true)
		ne, nok := validString(b, i)
		if ook != nok || (ook && oe != ne) {
			t.Fatalf("%s: string at %d: new (%d, %v), old (%d, %v) on %.200q", what, i, ne, nok, oe, ook, b)
		}
		if _, plain, _ := scanString(b, i); nok && plain == bytes.ContainsRune(b[i:ne], '\\') {
			t.Fatalf("%s: string at %d: plain %v on %.200q", what, i, plain, b[i:ne])
		}
	}
}

// TestValidJSONIsTheOldOne holds the word-at-a-time string scan (quote,
// backslash and control bytes in one test) to the old validator and to
// encoding/json: every byte value at every position of a string around the
// 8-byte words and the end of the short scan, every escape, truncations,
// deep nesting, invalid UTF-8, and random documents mutated.
func TestValidJSONIsTheOldOne(t *testing.T) {
	// every byte value at every offset 0..70 of a string (across the words
	// and past shortString), followed by more text or the end of the line
	for c := 0; c < 256; c++ {
		for off := 0; off <= 70; off++ {
			for _, tail := range []string{`"`, `abc"`, strings.Repeat("y", 60) + `"`, ``, `\`} {
				s := `{"k":"` + strings.Repeat("x", off) + string([]byte{byte(c)}) + tail + `}`
				agree(t, []byte(s), "byte")
				agree(t, []byte(`"`+strings.Repeat("x", off)+string([]byte{byte(c)})+tail), "bare")
			}
		}
	}
	// every two-byte escape and every \u form, at offsets around the words
	for c := 0; c < 256; c++ {
		for off := 0; off <= 50; off += 7 {
			agree(t, []byte(`["`+strings.Repeat("a", off)+`\`+string([]byte{byte(c)})+`z"]`), "escape")
		}
	}
	for _, u := range []string{`\u0000`, `\u12ab`, `\uABCD`, `\u12g4`, `\u123`, `\u`, `\uD800\uDC00`, `\uD800`, `\u00e9x`} {
		for off := 0; off <= 50; off += 3 {
			agree(t, []byte(`"`+strings.Repeat("b", off)+u+`"`), "unicode")
			agree(t, []byte(`"`+strings.Repeat("b", off)+u), "unicode cut")
		}
	}
	// invalid UTF-8 and bytes above 0x7f next to the sought bytes
	for _, s := range []string{"\"\xff\xfe\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\x80\x22", "\"\x9f\x1f\"", "\"\xa0\x20\"", "{\"\xe2\x82\":\"\xdc\x5c\x22\"}"} {
		agree(t, []byte(s), "utf8")
	}
	// deep nesting on both sides of the limit
	for _, n := range []int{1, 9999, 10000, 10001} {
		agree(t, []byte(strings.Repeat(`[`, n)+`"\n"`+strings.Repeat(`]`, n)), "deep")
		agree(t, []byte(strings.Repeat(`{"a":`, n)+`""`+strings.Repeat(`}`, n)), "deep objects")
	}
	// every line we have, cut at every length up to 300 and mutated
	rng := rand.New(rand.NewSource(2))
	const alphabet = "\"\\{}[],:0a\x00\x01\x1f \t\n\x7f\x80\xffu"
	for _, l := range sessionLines(t) {
		agree(t, l, "line")
		for n := 0; n < len(l) && n < 300; n++ {
			agree(t, l[:n], "cut")
		}
		for k := 0; k < 4 && len(l) > 0; k++ {
			m := append([]byte(nil), l...)
			for j := 0; j <= k; j++ {
				m[rng.Intn(len(m))] = alphabet[rng.Intn(len(alphabet))]
			}
			agree(t, m, "mutated")
		}
	}
	// random documents of random bytes from the alphabet
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.Intn(80))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		agree(t, append([]byte(`"`), b...), "random")
	}
}

// FuzzValidJSONIsTheOldOne compares the validator with the one kept as it
// was, and both with encoding/json.
func FuzzValidJSONIsTheOldOne(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\n"]}`, `"\u1234"`, `[`, `-1.5e3`, "\"0123456789abcdef0123456789abcdef0123456789abcdef\x01\"",
		`{"parentUuid":"81855a1e-0016-4939-8b66-94d2c422acd2","x":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { agree(t, b, "fuzz") })
}
