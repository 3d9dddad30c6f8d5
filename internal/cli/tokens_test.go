package cli

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetTokensFlags: compress and rewrite take --target-tokens, report
// the estimate before and after against the target, and refuse an
// unreachable one with a one-line reason and a hint, writing nothing.
func TestTargetTokensFlags(t *testing.T) {
	cfg := t.TempDir()
	path := installSession(t, cfg, "-work-p", "testdata/sessions/2.1.328/tools.jsonl")
	for _, args := range [][]string{
		{"compress", path, "--target-tokens", "1000000"},
		{"rewrite", path, "--target-tokens", "1000000"},
	} {
		out, errs, code := cliRun(t, append([]string{"--config-dir", cfg, "--json"}, append(args, "--dry-run")...)...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
		var r app.WriteResult
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		require.NotNil(t, r.ResumeTokens, "%v", args)
		assert.Equal(t, 1000000, r.ResumeTokens.Target)
		assert.Positive(t, r.ResumeTokens.Before)
		assert.LessOrEqual(t, r.ResumeTokens.After, r.ResumeTokens.Before)
	}
	out, errs, code := cliRun(t, "--config-dir", cfg, "compress", path, "--target-tokens", "1000000", "--dry-run")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\ntokens on resume \(estimate\): [0-9,k]+ -> [0-9,k]+ \(.*context window\); target 1.00M\n`, out)
	// out of reach with no other flag: what blocks is the system prompt
	// and the last exchange, and the hint's target works as printed
	_, errs, code = cliRun(t, "--config-dir", cfg, "compress", path, "--target-tokens", "100")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^ccsurgeon: cannot fit 100 tokens: after every cut .*system prompt and tools ~[0-9,]+, the last prompt and its answer ~[0-9,]+.*\nccsurgeon: hint: `, errs)
	m := regexp.MustCompile(`give a --target-tokens of at least (\d+): 'ccsurgeon [^']*' shows what that cuts\n$`).FindStringSubmatch(errs)
	require.NotNil(t, m, errs)
	_, errs2, code := cliRun(t, "--config-dir", cfg, "compress", path, "--target-tokens", m[1], "--dry-run")
	assert.Equal(t, 0, code, "the target the hint names fits: %s", errs2)
	// the recent context kept by request: the hint names those flags
	_, errs, code = cliRun(t, "--config-dir", cfg, "compress", path, "--target-tokens", "100", "--keep-turns", "1", "--keep-exchanges", "2")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "without touching the recent context (the last turn and 2 tool exchanges, kept by --keep-turns and --keep-exchanges)")
	assert.Regexp(t, `\nccsurgeon: hint: leave out --keep-turns and --keep-exchanges .*give a --target-tokens of at least [0-9]+\n$`, errs)
	// rewrite names its recent turns with --compress-old-turns: a hint of
	// --keep-turns sent the user to an unknown flag
	_, errs, code = cliRun(t, "--config-dir", cfg, "rewrite", path, "--target-tokens", "100", "--compress-old-turns", "2")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "hint: leave out --compress-old-turns and --keep-exchanges")
	assert.NotContains(t, errs, "--keep-turns")
	_, errs, code = cliRun(t, "--config-dir", cfg, "compress", path, "--target-tokens", "1000", "--max-result", "1KB")
	assert.Equal(t, 2, code, errs)
}
