package ops_test

import (
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops"
)

// TestCutMiddleJustOverMaxIsNotLengthened: a string a few bytes over the
// limit would grow by the marker; it stays as it is (found by the compress
// relation on a --target-tokens result: "shortened" output was longer).
func TestCutMiddleJustOverMaxIsNotLengthened(t *testing.T) {
	for _, n := range []int{2001, 2031, 2060, 2100, 5000} {
		s := strings.Repeat("x", n)
		got, cut := ops.CutMiddle(s, 2000)
		if len(got) > len(s) || (cut && len(got) >= len(s)) || (!cut && got != s) {
			t.Errorf("%d bytes: cut=%v, %d bytes after", n, cut, len(got))
		}
	}
}
