package redact

import (
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/labelled"
)

// devKeySets are the development sets of the key-material and encoded
// families: every miss and every reported non-secret is named, by kind
// and text (they are what the rules are written against; the blind sets
// are never listed).
var devKeySets = []struct{ path, set string }{
	{"testdata/dev-keys-encoded.txt", "dev-keys-encoded"},
	{"testdata/dev-keys-encoded2.txt", "dev-keys-encoded2"},
}

func TestDevKeysEncodedEveryExample(t *testing.T) {
	s := mustNew(t, Options{})
	for _, ps := range devKeySets {
		exs, err := labelled.Load(ps.path, ps.set)
		if err != nil {
			t.Fatal(err)
		}
		if labelled.BlindSets[ps.set] {
			t.Fatalf("%s is blind: its misses are not listed", ps.set)
		}
		n, found := 0, 0
		for _, e := range exs {
			out := redactAll(s, e.Text)
			if !e.TP {
				if out != e.Text {
					t.Errorf("%s %s: non-secret reported: %s", ps.set, e.Kind, trunc(out))
				}
				continue
			}
			n++
			if labelled.Caught(e, out) {
				found++
				continue
			}
			t.Errorf("%s %s: missed: %s", ps.set, e.Kind, trunc(out))
		}
		t.Logf("%s: %d of %d secrets redacted", ps.set, found, n)
	}
}

func trunc(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 260 {
		return s[:260] + "…"
	}
	return s
}
