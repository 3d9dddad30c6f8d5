package harness

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// PickerRow is a session as the client's resume picker (`claude --resume`
// with no id, in the TUI) lists it: its title (the first or last prompt, or
// a title) and the line below it (the time, then " · " and the rest:
// 2.1.x the size, 2.0.x the message count and the git branch).
type PickerRow struct{ Title, Meta string }

// pickerMeta starts the line below a picker row's title: the time of the
// session, as Intl.RelativeTimeFormat("en") writes it in the clients.
// 2.1.332 writes 0 seconds "now"; 2.0.50 writes it "in 0 sec." (style
// short, numeric always), so a session written less than a second before
// the picker read it is listed so; a time a little ahead of the clock is
// "in N seconds". A row whose time line matched none of these was not
// parsed: that was the flake of TestPickerAfterChangeInPlace/2.0.50 (the
// newest session's row "in 0 sec. · 2 messages · -").
var pickerMeta = regexp.MustCompile(`^(now|in \d+ (sec\.|min\.|hr\.|(second|minute|hour|day|week|month|year)s?)|\d+ (sec\.|min\.|hr\.|(second|minute|hour|day|week|month|year)s?) ago) · `)

// PickerEmpty is a mark for WaitPicker and Env.Picker: 2.1.x's picker
// listing no session (its text on the screen and no row).
const PickerEmpty = "No sessions in this project yet"

// PickerRows parses a picker screen into its rows, from the top: a line
// that starts like a row's time line, and the non-empty line above it.
func PickerRows(screen string) []PickerRow {
	var rows []PickerRow
	prev := ""
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "❯"))
		if pickerMeta.MatchString(l) {
			rows = append(rows, PickerRow{prev, l})
		}
		if l != "" {
			prev = l
		}
	}
	return rows
}

// missingMarks returns the marks that no parsed row's title holds (for
// PickerEmpty: unless the screen says so and no row parses).
func missingMarks(screen string, rows []PickerRow, marks []string) []string {
	var missing []string
	for _, m := range marks {
		found := false
		if m == PickerEmpty {
			found = strings.Contains(screen, PickerEmpty) && len(rows) == 0
		}
		for _, r := range rows {
			found = found || strings.Contains(r.Title, m)
		}
		if !found {
			missing = append(missing, m)
		}
	}
	return missing
}

// PickerQuiet is how long a picker screen must stay the same before it is
// read: the clients load sessions and titles after the first frame.
const PickerQuiet = 2 * time.Second

// WaitPicker waits until the picker is settled for what a test asserts on
// it: each mark is in the title of a row that parses (PickerEmpty: the
// empty picker), and the screen has not changed for PickerQuiet, polled
// again and again. A screen that holds a mark outside a parsed row is not
// settled: the test would read fewer rows than the screen shows. On
// timeout the error names the marks without a row and prints the screen
// and the rows parsed from it.
func (t *TUI) WaitPicker(timeout time.Duration, marks ...string) ([]PickerRow, string, error) {
	what := "picker rows " + strings.Join(marks, "+")
	s, err := t.WaitStable(what, timeout, PickerQuiet, func(s string) bool {
		return len(missingMarks(s, PickerRows(s), marks)) == 0
	})
	rows := PickerRows(s)
	if err != nil {
		return rows, s, fmt.Errorf("the picker has no settled row for %q (rows parsed from the last screen: %q): %w", missingMarks(s, rows, marks), rows, err)
	}
	t.Snapshot("picker")
	return rows, s, nil
}

// Picker opens the picker of client c (`--resume` with no id) in the env's
// cwd, waits with WaitPicker until it is settled for marks, and returns its
// rows from the top and its screen; the client is quit (and has exited)
// before it returns. captureDir receives the screens (see TUI.CaptureDir).
func (e *Env) Picker(c Client, captureDir string, timeout time.Duration, marks ...string) ([]PickerRow, string, error) {
	tui, err := e.StartTUI(c, 200, 50, "--resume")
	if err != nil {
		return nil, "", err
	}
	tui.CaptureDir = captureDir
	defer func() {
		// let the client exit before the next start or the temp dir's
		// removal: 2.0.50 writes the titles it asked for while it quits
		_ = tui.Keys("Escape")
		if tui.WaitExit(20*time.Second) != nil {
			tui.Close()
			time.Sleep(2 * time.Second)
		}
		tui.Close()
	}()
	return tui.WaitPicker(timeout, marks...)
}
