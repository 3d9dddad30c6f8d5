package cli

import (
	"encoding/json"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a new user met in the first hour with the three most-asked tasks
// (where did my session go, my session no longer fits, share it without
// my keys), each pinned from the command line.

// TestTokenCountInScientificNotation: "--target-tokens 1.5e5" (a whole
// number written as a spreadsheet or a script prints it) was refused with
// "want a whole number, 1 or more", which it is; and a number written in
// a form the flag does not read ("150 000", "150000.0") got only "see
// --help" as its hint, while the forms it reads are three words.
func TestTokenCountInScientificNotation(t *testing.T) {
	for typed, full := range map[string]int{"1.5e5": 150000, "1.5E5": 150000, "2e5": 200000, "1e6": 1000000, "1.25e+5": 125000} {
		out, errs, code := cliRun(t, "--json", "compress", example, "--target-tokens", typed, "--dry-run")
		require.Equal(t, 0, code, "%s: %s", typed, errs)
		var r app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		assert.Equal(t, full, r.ResumeTokens.Target, typed)
	}
	// what is no whole number stays refused, and the hint says how to write one
	for _, typed := range []string{"1.5e-1", "1.23456e2", "150 000", "150000.0", "150.000", "1,50,000", "1.5k5"} {
		out, errs, code := cliRun(t, "compress", example, "--target-tokens", typed, "--dry-run")
		assert.Equal(t, 2, code, "%s: %s", typed, errs)
		assert.Empty(t, out, typed)
		assert.Equal(t, "ccsurgeon: --target-tokens \""+typed+"\": want a whole number, 1 or more\n"+
			"ccsurgeon: hint: write it as 150000, 150k, 1.5M, 150,000 or 1.5e5\n", errs, typed)
	}
	// what is no number at all keeps the pointer to --help
	_, errs, _ := cliRun(t, "compress", example, "--target-tokens", "lots", "--dry-run")
	assert.Contains(t, errs, "ccsurgeon: hint: see 'ccsurgeon compress-old-turns --help'\n")
}
