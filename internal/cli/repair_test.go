package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepairCommandSaysWhatItCannotFix: two answers in a row (the prompt
// between them deleted) is an error repair has no safe fix for: it says
// so and why, exits 1 as validate does, and writes nothing.
func TestRepairCommandSaysWhatItCannotFix(t *testing.T) {
	clean := malLines()
	m := newMalEnv(t)
	p := m.write(t, join([]string{clean[0], clean[1], clean[2], malLine("assistant", 5, 3, `[{"type":"text","text":"done"}]`)}, "\n"))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	h0 := hashTree(t, m.root)
	r := runWithRepair(t, "--config-dir", m.cfg, "repair", malSession)
	checkRun(t, "repair", r, want{1, "line 4: not fixed: two assistant messages in a row", "ccsurgeon: 1 problem left that repair has no safe fix for; nothing was written"})
	assert.Contains(t, r.stdout, "repair has no safe fix for the 1 problem above")
	assert.Empty(t, changes(h0, hashTree(t, m.root)), "repair changed a file")
}

// Trial finding (2026-11-23): repair with nothing to fix printed JSON
// without the keys every other command prints then (session_id,
// nothing_to_change), and exits 0 on a sound session.
func TestRepairNothingToFixReportsAsEveryCommand(t *testing.T) {
	m := safeEnv(t)
	h0 := hashTree(t, m.root)
	r := m.cli(t, "--json", "repair", malSession)
	require.Equal(t, 0, r.code, r.stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.Equal(t, true, out["nothing_to_change"])
	assert.Equal(t, malSession, out["session_id"])
	assert.NotEmpty(t, out["path"])
	// the same keys as strip-thinking's when it finds nothing
	r2 := m.cli(t, "--json", "drop-tool-calls", malSession, "--tool", "Nope")
	require.Equal(t, 0, r2.code, r2.stderr)
	var out2 map[string]any
	require.NoError(t, json.Unmarshal([]byte(r2.stdout), &out2))
	for _, k := range []string{"session_id", "path", "nothing_to_change"} {
		assert.Equal(t, out2[k], out[k], k)
	}
	assert.Empty(t, changes(h0, hashTree(t, m.root)))
}

// Trial finding (2026-11-23): with -o - (the result to stdout), --dry-run
// and --diff printed nothing at all, and --json dropped its summary. A
// preview writes no session, so it prints as without -o; a result on
// stdout leaves the JSON summary to stderr.
func TestOutputToStdoutWithPreviewsAndJSON(t *testing.T) {
	m := safeEnv(t)
	for _, preview := range [][]string{{"--dry-run"}, {"--diff"}, {"--json", "--dry-run"}} {
		global, local := []string{}, []string{}
		for _, a := range preview {
			if a == "--json" {
				global = append(global, a)
			} else {
				local = append(local, a)
			}
		}
		base := append(append(append([]string{}, global...), "strip-thinking", malSession), local...)
		want := m.cli(t, base...)
		require.Equal(t, 0, want.code, want.stderr)
		require.NotEmpty(t, want.stdout)
		got := m.cli(t, append(base, "-o", "-")...)
		require.Equal(t, 0, got.code, got.stderr)
		assert.Equal(t, want.stdout, got.stdout, "%v -o -", preview)
	}
	r := m.cli(t, "--json", "strip-thinking", malSession, "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"hi there"`, "stdout holds the session")
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &sum), "stderr: %s", r.stderr)
	assert.Equal(t, "-", sum["path"])
	assert.Equal(t, "strip-thinking", sum["operation"])
}

// Trial finding (issue 28): repair that fixed something but left errors it
// has no safe fix for exited 0 while it listed them as 'not fixed:'; the
// README says 1 whenever errors stay. The fix is written, the errors are
// listed, and the exit status says they stay, with and without --json.
func TestRepairExitsOneWhenErrorsStayAfterFixing(t *testing.T) {
	clean := malLines()
	for _, args := range [][]string{{"repair", malSession}, {"--json", "repair", malSession}} {
		m := newMalEnv(t)
		// two answers in a row (no safe fix), and a torn last line (fixed)
		p := m.write(t, join([]string{clean[0], clean[1], clean[2], malLine("assistant", 5, 3, `[{"type":"text","text":"done"}]`), `{"type":"user","mess`}, "\n"))
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(p, old, old))
		h0 := hashTree(t, m.root)
		r := runWithRepair(t, append([]string{"--config-dir", m.cfg}, args...)...)
		assert.Equal(t, 1, r.code, "%v: errors stay: %s%s", args, r.stdout, r.stderr)
		if args[0] == "--json" {
			assert.Contains(t, r.stdout, `"code": "consecutive-assistant",`, args)
			assert.Contains(t, r.stdout, `"fixed": false`, args)
		} else {
			assert.Contains(t, r.stdout, "not fixed: two assistant messages in a row", args)
		}
		assert.NotEmpty(t, changes(h0, hashTree(t, m.root)), "%v: the torn line is fixed and written", args)
	}
}

// Issue 28's repair remark: repair that leaves errors it has no safe fix
// for exits 1, and an exit 1 is an error: one 'ccsurgeon: …' line on
// stderr saying how many are left, and a hint that runs as printed (the
// hint checker runs it), whatever else is asked (--json, -q, -o -,
// --dry-run), with nothing fixed (nothing written) or some fixed. stdout
// is as it was: scripts read it.
func TestRepairLeftErrorsSayItOnStderr(t *testing.T) {
	clean := malLines()
	twoAnswers := malLine("assistant", 5, 3, `[{"type":"text","text":"done"}]`)
	sessions := map[string]string{
		"none fixed": join([]string{clean[0], clean[1], clean[2], twoAnswers}, "\n"),
		"some fixed": join([]string{clean[0], clean[1], clean[2], twoAnswers, `{"type":"user","mess`}, "\n"),
	}
	for _, shape := range []string{"none fixed", "some fixed"} {
		for _, args := range [][]string{
			{"repair", malSession}, {"--json", "repair", malSession}, {"-q", "repair", malSession},
			{"repair", malSession, "-o", "-"}, {"repair", malSession, "--dry-run"},
		} {
			what := fmt.Sprintf("%s: %v", shape, args)
			m := newMalEnv(t)
			p := m.write(t, sessions[shape])
			old := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(p, old, old))
			h0 := hashTree(t, m.root)
			r := m.cli(t, args...)
			checkRun(t, what, r, want{1, "", "ccsurgeon: 1 problem left that repair has no safe fix for"})
			assert.Regexp(t, `(?m)^ccsurgeon: hint: .*'ccsurgeon [^']+'`, r.stderr, "%s: a hint with a command", what)
			switch {
			case args[0] == "--json":
				var out map[string]any
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), "%s: stdout is the JSON it was", what)
				assert.Contains(t, r.stdout, `"fixed": false`, what)
			case args[len(args)-1] == "-":
				// the session on stdout, the fixes on stderr (unless -q)
				assert.Contains(t, r.stderr, "not fixed: two assistant messages in a row", what)
			default:
				assert.Contains(t, r.stdout, "not fixed: two assistant messages in a row", what)
			}
			written := len(changes(h0, hashTree(t, m.root))) > 0
			inPlace := !slices.Contains(args, "-o") && !slices.Contains(args, "--dry-run")
			wantWritten := shape == "some fixed" && inPlace
			assert.Equal(t, wantWritten, written, "%s: written", what)
		}
	}
}
