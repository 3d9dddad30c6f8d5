package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pickerScreen is a picker screen of 2.0.50 as tmux captures it, with the
// newest session's time line as given.
func pickerScreen(newestMeta string) string {
	return "────────\n\nResume Session\n\n" +
		"❯ Say NEW-MARK\n  " + newestMeta + "\n\n" +
		"  Deploy with GITHUB_TOKEN=[REDACTED:github-pat:1] OLD-MARK\n  1 second ago · 2 messages · -\n\n" +
		"  A to show all projects · / to search · Esc to exit\n\n\n"
}

// TestPickerRowsEveryTimeForm: every form the clients write a row's time
// in parses, so a row is never left out of what a test reads. The flake of
// TestPickerAfterChangeInPlace/2.0.50 (CI, both marks on the screen, one
// row read): 2.0.50 writes a session less than a second old "in 0 sec."
// (Intl.RelativeTimeFormat, style short, numeric always).
func TestPickerRowsEveryTimeForm(t *testing.T) {
	for _, meta := range []string{
		"in 0 sec. · 2 messages · -", // 2.0.50, under a second
		"now · 1.2KB",                // 2.1.332, under a second
		"in 2 seconds · 2 messages · -",
		"1 second ago · 2 messages · -",
		"3 seconds ago · 2 messages · -",
		"1 day ago · 3.4KB",
		"5 minutes ago · 4 messages · main",
		"2 weeks ago · 10KB",
	} {
		rows := PickerRows(pickerScreen(meta))
		require.Len(t, rows, 2, "%q: %v", meta, rows)
		assert.Equal(t, PickerRow{"Say NEW-MARK", meta}, rows[0])
		assert.Equal(t, "Deploy with GITHUB_TOKEN=[REDACTED:github-pat:1] OLD-MARK", rows[1].Title)
		assert.Empty(t, missingMarks(pickerScreen(meta), rows, []string{"OLD-MARK", "NEW-MARK"}))
	}
}

// TestPickerNotSettledWhileAMarkHasNoRow: a mark on the screen outside a
// parsed row (a row still drawn, a time form not known) keeps WaitPicker
// waiting, and the timeout names it; the empty picker is settled only
// with no row.
func TestPickerNotSettledWhileAMarkHasNoRow(t *testing.T) {
	s := pickerScreen("in a moment · 2 messages · -")
	rows := PickerRows(s)
	require.Len(t, rows, 1)
	assert.Equal(t, []string{"NEW-MARK"}, missingMarks(s, rows, []string{"OLD-MARK", "NEW-MARK"}))

	empty := "Resume Session\n\n  " + PickerEmpty + "\n"
	assert.Empty(t, missingMarks(empty, PickerRows(empty), []string{PickerEmpty}))
	assert.Equal(t, []string{PickerEmpty}, missingMarks(s+PickerEmpty, rows, []string{PickerEmpty}))
}
