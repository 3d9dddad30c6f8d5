package ops_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// fitExtraEnv names more sessions for TestTargetTokensFloorFamily: a
// file, or a folder whose *.jsonl are taken (a user's session that broke
// the promise, kept outside the repository).
const fitExtraEnv = "CCSURGEON_FIT_SESSIONS"

// TestTargetTokensFloorFamily: --target-tokens keeps its word and its
// refusal works as printed, at and around each session's floor (the
// smallest target it names), on every real session we have
// (testdata/sessions, the corpus, and $CCSURGEON_FIT_SESSIONS):
//
//	(a) a refusal's floor, run as printed, is met;
//	(b) any target at or above the floor is met (no refusal above it);
//	(c) every written result's count by info's estimator on the written
//	    bytes is at most the target, and is the figure printed;
//	(d) a refusal's "after every cut the estimate is X" is above the
//	    target (never a refusal whose own figure fits).
//
// Each failure names its member: the session, the target, the figures.
func TestTargetTokensFloorFamily(t *testing.T) {
	paths := specSessions(t)
	if v := os.Getenv(fitExtraEnv); v != "" {
		st, err := os.Stat(v)
		require.NoError(t, err, "%s=%s", fitExtraEnv, v)
		if st.IsDir() {
			more, err := filepath.Glob(filepath.Join(v, "*.jsonl"))
			require.NoError(t, err)
			paths = append(paths, more...)
		} else {
			paths = append(paths, v)
		}
	} // unset: no extra member (the sessions below are the test; these are a user's additions)
	// the shape of the new user's session of issue 30 (8 prompts, each
	// answered through a dozen reads of a long log, the usage the mock
	// reports), made from the entries each client family wrote
	names := map[string]string{}
	for _, version := range []string{"2.1.328", "2.0.50"} {
		p := agenticSession(t, version, t.TempDir(), agenticOpts{Prompts: 8, Exchanges: 12, ResultBytes: 50_000, MockUsage: true, Seed: 30})
		names[p] = "agentic-mock-usage-" + version
		paths = append(paths, p)
	}
	cases, refusals := 0, 0
	for _, path := range paths {
		name := testcorpus.Name(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if n, ok := names[path]; ok {
			name = n
		}
		t.Run(name, func(t *testing.T) {
			s, err := chain.Load(path)
			require.NoError(t, err)
			defer s.Close()
			fit := func(target int) (*ops.Txn, error) {
				return ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: target, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
			}
			// written is info's count of what tx writes
			written := func(tx *ops.Txn) int {
				var buf bytes.Buffer
				require.NoError(t, tx.Render(s.Main)(&buf))
				rf, err := chain.LoadBytes(path, buf.Bytes())
				require.NoError(t, err)
				return rf.ResumeTokens().Total()
			}
			// check runs target and holds the result to (c) and (d); it
			// returns the refusal, if any
			check := func(target int, why string) *ops.TargetError {
				cases++
				tx, err := fit(target)
				var te *ops.TargetError
				if errors.As(err, &te) {
					refusals++
					if te.Total <= target {
						t.Errorf("(d) %s: target %d (%s) refused with its own figure %d at or below it (floor named %d): %v", name, target, why, te.Total, te.Floor, err)
					}
					if te.Floor <= target {
						t.Errorf("(d) %s: target %d (%s) refused naming a floor %d at or below it: %v", name, target, why, te.Floor, err)
					}
					return te
				}
				require.NoError(t, err, "%s: target %d (%s)", name, target, why)
				got := written(tx)
				if got > target {
					t.Errorf("(c) %s: target %d (%s) met by the running count, but info counts the written result at %d", name, target, why, got)
				}
				if printed := tx.Report.Tokens.After; printed != got {
					t.Errorf("(c) %s: target %d (%s): printed %d, info counts the written result at %d", name, target, why, printed, got)
				}
				return nil
			}
			te := check(1, "a target nothing meets")
			if te == nil {
				return // (a session that fits 1 token: nothing to refuse)
			}
			floor := te.Floor
			// (a) run as printed
			if again := check(floor, "the floor a target of 1 named"); again != nil {
				t.Errorf("(a) %s: the floor %d named by a refusal, run as printed, is refused again naming %d (estimate after every cut %d)", name, floor, again.Floor, again.Total)
			}
			// around the floor: below it is refused (and names the same
			// floor), at or above it is met
			for _, d := range []int{-100, -1, 1, 2, 50, 500, floor / 10, floor / 2} {
				target := floor + d
				if target < 1 || d == 0 {
					continue
				}
				why := fmt.Sprintf("the floor %+d", d)
				got := check(target, why)
				switch {
				case got != nil && target >= floor:
					t.Errorf("(b) %s: target %d (%s, floor %d) refused, naming %d (estimate after every cut %d)", name, target, why, floor, got.Floor, got.Total)
				case got != nil:
					if again := check(got.Floor, fmt.Sprintf("the floor a target of %d named", target)); again != nil {
						t.Errorf("(a) %s: the floor %d named at target %d, run as printed, is refused again naming %d", name, got.Floor, target, again.Floor)
					}
				}
			}
		})
	}
	t.Logf("%d (session, target) cases, %d refused", cases, refusals)
}

// TestFitNotesOneTokenFormat: the cut notes give their token figures in
// the one format the rest of the output uses (chain.HumanTokens: "736k",
// "3,276"), not raw ("736435 tokens fewer (estimate now 207439)" beside
// "945k -> 150k").
func TestFitNotesOneTokenFormat(t *testing.T) {
	path := agenticSession(t, "2.1.328", t.TempDir(), agenticOpts{Prompts: 8, Exchanges: 12, ResultBytes: 50_000, MockUsage: true, Seed: 30})
	s, err := chain.Load(path)
	require.NoError(t, err)
	defer s.Close()
	tx, err := ops.FitWithin(s, ops.Pipeline{ops.FitTokens{Target: 60_000, KeepTurns: ops.DefaultKeepTurns}}, func() *ops.Txn { return ops.NewTxn(s) })
	require.NoError(t, err)
	figure := regexp.MustCompile(`([0-9][0-9,.]*[kM]?) tokens fewer \(estimate now ([0-9][0-9,.]*[kM]?)\)|\(estimate now ([0-9][0-9,.]*[kM]?)\)`)
	seen := 0
	for _, n := range tx.Report.Notes {
		for _, m := range figure.FindAllStringSubmatch(n, -1) {
			for _, f := range m[1:] {
				if f == "" {
					continue
				}
				seen++
				var raw int
				if _, err := fmt.Sscan(f, &raw); err == nil && raw >= 1000 && !strings.ContainsAny(f, ",kM") {
					t.Errorf("note %q: %s is a raw figure, not chain.HumanTokens's", n, f)
				}
			}
		}
	}
	require.Positive(t, seen, "the notes give token figures: %q", tx.Report.Notes)
}
