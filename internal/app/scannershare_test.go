package app

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/require"
)

// TestABatchBuildsOneScanner: redact-secrets (and rewrite --redact-secrets)
// over many sessions (--all, --project, several ids) compiles its rules once
// a run, not once a session: 1,000 sessions of 188 MB took 70 s, 36 s of it
// building the same scanner 1,000 times. The copies of the run's Env that
// the batch makes (one a session, run side by side) share it; other rules
// (flags or another config dir) get a scanner of their own; an Env made
// without NewEnv (a test's) builds one each time, as before.
func TestABatchBuildsOneScanner(t *testing.T) {
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard)
	env.ConfigDir = t.TempDir()
	rules := []string{"internal-token=itk_[a-z0-9]{32}"}
	got := make([]*redact.Scanner, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := *env // as eachSession does, a copy per session
			sc, err := sub.scanner(rules, nil)
			require.NoError(t, err)
			got[i] = sc
		}()
	}
	wg.Wait()
	for i, sc := range got {
		require.Same(t, got[0], sc, "session %d of the batch built its own scanner", i)
	}
	require.Equal(t, 1, env.scanners.built, "scanners built for one batch with one set of rules")

	other, err := env.scanner(rules, []string{"itk_0{32}"})
	require.NoError(t, err)
	require.NotSame(t, got[0], other, "another --allow must not get the first rules' scanner")
	elsewhere := *env
	elsewhere.ConfigDir = t.TempDir()
	third, err := elsewhere.scanner(rules, nil)
	require.NoError(t, err)
	require.NotSame(t, got[0], third, "another config dir (another rules file) must not get the first one's scanner")
	again, err := env.scanner(rules, nil)
	require.NoError(t, err)
	require.Same(t, got[0], again)
	require.Equal(t, 3, env.scanners.built)

	// a bad rule is refused each time it is asked for, as before
	_, err = env.scanner([]string{"bad=("}, nil)
	require.Error(t, err)
	_, err = env.scanner([]string{"bad=("}, nil)
	require.Error(t, err)

	plain := &Env{ConfigDir: env.ConfigDir}
	a, err := plain.scanner(rules, nil)
	require.NoError(t, err)
	b, err := plain.scanner(rules, nil)
	require.NoError(t, err)
	require.NotSame(t, a, b)
}
