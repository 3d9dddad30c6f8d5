package redact

import (
	"math/rand"
	"strings"
	"testing"
)

// isIdentPathRef is isIdentPath as it was, splitting with
// strings.FieldsFunc: the version that reads the parts in place must
// answer the same on every string.
func isIdentPathRef(v string) bool {
	if !strings.ContainsAny(v, ".:>") {
		return false
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == ':' || r == '-' || r == '>' })
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || isDigit(p[0]) {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !(isAlnum(p[i]) || p[i] == '_') {
				return false
			}
		}
		if classOf(p).digit > 2 {
			return false
		}
	}
	return true
}

func TestIsIdentPathSameAsFields(t *testing.T) {
	pieces := []string{"a", "b", "Z", "_", "1", "2", "3", "9x", ".", ":", "-", ">", "->", "::", "..", "é", "\xff", " ", "/", "os", "env", "KEY"}
	r := rand.New(rand.NewSource(5))
	trues := 0
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := r.Intn(9); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		v := b.String()
		want := isIdentPathRef(v)
		if got := isIdentPath(v); got != want {
			t.Fatalf("isIdentPath(%q) = %v, want %v", v, got, want)
		}
		if want {
			trues++
		}
	}
	if trues < 1000 {
		t.Fatalf("only %d identifier paths among the samples", trues)
	}
}

// hasPlaceholderPartRef is hasPlaceholderPart as it was, its format
// verbs found by a loop over every byte.
func hasPlaceholderPartRef(v string) bool {
	if placeholderPartSet.in(v) {
		return true
	}
	if i := strings.IndexByte(v, '<'); i >= 0 && strings.IndexByte(v[i:], '>') > 0 {
		return true
	}
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '%' && strings.IndexByte("svdq", v[i+1]) >= 0 && (i+2 == len(v) || !isAlnum(v[i+2])) {
			return true
		}
	}
	return v != "" && (v[0] == '<' || v[len(v)-1] == '>')
}

func TestHasPlaceholderPartSameAsLoop(t *testing.T) {
	pieces := []string{"%", "%%", "s", "v", "d", "q", "x", "A", "1", "_", "-", " ", "<", ">", "é", "ab", "%s", "%vE"}
	r := rand.New(rand.NewSource(6))
	trues := 0
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := r.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		v := b.String()
		want := hasPlaceholderPartRef(v)
		if got := hasPlaceholderPart(v); got != want {
			t.Fatalf("hasPlaceholderPart(%q) = %v, want %v", v, got, want)
		}
		if want {
			trues++
		}
	}
	if trues < 1000 {
		t.Fatalf("only %d placeholders among the samples", trues)
	}
}
