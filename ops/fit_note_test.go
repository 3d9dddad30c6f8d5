package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The note of --target-tokens that names the whole turns it removed read
// "1 turn in turn 1" (and "3 turns (turns 1–3)", "a line each for the
// last 1"): it names one turn as "turn N", several by count and ranges,
// and says how many of them the note in the session details.
func TestRemovedTurnsNoteWording(t *testing.T) {
	for _, c := range []struct {
		turns []int
		want  string
		n     int
	}{
		{[]int{1}, "whole turns removed: turn 1, named in a note in the session (estimate now 900)", 1},
		{[]int{4}, "whole turns removed: turn 4, named in a note in the session (estimate now 900)", 1},
		{[]int{1, 2, 3}, "whole turns removed: 3 turns (1–3), named in a note in the session, a line each (estimate now 900)", 3},
		{[]int{1, 2, 3, 7}, "whole turns removed: 4 turns (1–3, 7), named in a note in the session, a line each for the last 2 (estimate now 900)", 2},
		{[]int{1, 2, 3, 7}, "whole turns removed: 4 turns (1–3, 7), named in a note in the session, a line for the last (estimate now 900)", 1},
		{[]int{1, 3, 5, 7, 9, 11, 13}, "whole turns removed: 7 turns from 1 to 13, named in a note in the session, a line each (estimate now 900)", 7},
		{[]int{0, 0}, "whole turns removed: 2 turns, named in a note in the session, a line each (estimate now 900)", 2},
	} {
		assert.Equal(t, c.want, removedTurnsNote(c.turns, c.n, 900), "%v, %d shown", c.turns, c.n)
	}
}
