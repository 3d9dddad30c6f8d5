package app

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// oneLine stops joining words once it has enough, and prints what joining
// them all would: the same words, spaces and cut.
func TestOneLineOfALongPromptIsItsFirstWords(t *testing.T) {
	whole := func(s string, max int) string {
		s = strings.Join(strings.Fields(s), " ")
		if len([]rune(s)) > max {
			s = string([]rune(s)[:max-1]) + "…"
		}
		return s
	}
	long := strings.Repeat("déjà vu \n\t line ", 100000)
	for _, s := range []string{"", "   ", "one", " two  words ", "exactly ten", "exactly ten!", "ééééééééééé", "a b c d e f g h i j k", long, "x" + long} {
		for _, max := range []int{1, 2, 10, 11, 60} {
			assert.Equal(t, whole(s, max), oneLine(s, max), "%q %d", s[:min(len(s), 30)], max)
		}
	}
}
