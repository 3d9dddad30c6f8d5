package app

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInfoLeadsWithResumeTokens: info opens with the tokens a resume
// sends and their share of the model's window; --json carries them as
// resume_tokens; no source proposes dropping every call of a tool.
func TestInfoLeadsWithResumeTokens(t *testing.T) {
	paths := []string{"../../testdata/sessions/2.1.328/tools.jsonl"}
	if corpus := testcorpus.Optional(t); corpus != "" {
		paths = append(paths, filepath.Join(corpus, "ccviewer", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"))
	}
	for _, p := range paths {
		var out, errb bytes.Buffer
		env := &Env{ConfigDir: t.TempDir(), Out: &out, Err: &errb}
		require.NoError(t, env.RunInfo(InfoOptions{Session: p}), errb.String())
		lines := strings.Split(out.String(), "\n")
		require.GreaterOrEqual(t, len(lines), 3)
		assert.True(t, strings.HasPrefix(lines[2], "resume "), "third line, after session and path: %q", lines[2])
		assert.Contains(t, lines[2], "context window")
		assert.NotContains(t, out.String(), "drop-tool-calls")

		out.Reset()
		env.JSON = true
		require.NoError(t, env.RunInfo(InfoOptions{Session: p}))
		var r InfoReport
		require.NoError(t, json.Unmarshal(out.Bytes(), &r))
		assert.Positive(t, r.ResumeTokens)
		assert.Equal(t, r.Resume.Tokens, r.ResumeTokens)
		assert.Equal(t, 200_000, r.Resume.ContextWindow)
		assert.InDelta(t, float64(r.ResumeTokens)/200_000, r.Resume.WindowShare, 1e-9)
		sum := r.Resume.Overhead
		for _, n := range r.Resume.ByKind {
			sum += n
		}
		assert.Equal(t, r.ResumeTokens, sum, "by_kind and overhead add up to the total")
		var raw map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
		for _, k := range []string{"resume_tokens", "resume", "token_sources", "bloat"} {
			assert.Contains(t, raw, k)
		}
	}
}

// TestInfoThinkingFollowsTheModel: info says whose thinking its count
// holds, by the session's last recorded model: 2.0.50's multi-turn
// session (claude-sonnet-4-5, which keeps only the last turn's thinking)
// leaves the earlier turns' thinking out and says so, in its text and in
// --json (thinking_kept, thinking_dropped); 2.1.328's (claude-opus-5-5)
// counts all of it. The thinking source strip-thinking would cut holds
// only what the count sees.
func TestInfoThinkingFollowsTheModel(t *testing.T) {
	for _, c := range []struct {
		path, model, kept string
	}{
		{"../../testdata/sessions/2.0.50/multi-turn.jsonl", "claude-sonnet-4-5-20250929", "last_turn"},
		{"../../testdata/sessions/2.1.328/multi-turn.jsonl", "claude-opus-5-5", "all"},
	} {
		var out, errb bytes.Buffer
		env := &Env{ConfigDir: t.TempDir(), Out: &out, Err: &errb, JSON: true}
		require.NoError(t, env.RunInfo(InfoOptions{Session: c.path}), errb.String())
		var r InfoReport
		require.NoError(t, json.Unmarshal(out.Bytes(), &r))
		assert.Equal(t, c.model, r.Resume.Model, c.path)
		assert.Equal(t, c.kept, r.Resume.ThinkingKept, c.path)
		assert.Positive(t, r.Resume.ByKind["thinking"], "%s: the last turn's thinking counts", c.path)
		if c.kept == "all" {
			assert.Zero(t, r.Resume.ThinkingDropped, c.path)
		} else {
			assert.Positive(t, r.Resume.ThinkingDropped, c.path)
		}
		for _, src := range r.TokenSources {
			if strings.HasPrefix(src.What, "thinking") {
				assert.Equal(t, r.Resume.ByKind["thinking"], src.Tokens, "%s: %s", c.path, src.What)
			}
		}
		out.Reset()
		env.JSON = false
		require.NoError(t, env.RunInfo(InfoOptions{Session: c.path}), errb.String())
		assert.Equal(t, c.kept == "last_turn", strings.Contains(out.String(), "keeps only the last turn's"), "%s:\n%s", c.path, out.String())
	}
}

// TestInfoSourcesAddUpToTheEstimate (trial finding, 2026-11-28): the rows
// of "what a resume sends" are the estimate, each token in one row: on a
// session of pasted logs they added up to 58k of 210k, the old prompts
// and answers in none, so the biggest lever the rows showed saved 724
// tokens. A member per session (the examples, and the corpus's when it is
// there); the failure names the session and the rows.
func TestInfoSourcesAddUpToTheEstimate(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/sessions/*/*.jsonl")
	if corpus := testcorpus.Optional(t); corpus != "" {
		_ = filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	require.NotEmpty(t, paths)
	read := 0
	defer func() {
		assert.GreaterOrEqual(t, read, 10, "sessions read of %d", len(paths))
		t.Logf("%d sessions of %d read", read, len(paths))
	}()
	for _, p := range paths {
		var out, errb bytes.Buffer
		env := &Env{ConfigDir: t.TempDir(), Out: &out, Err: &errb, JSON: true}
		if err := env.RunInfo(InfoOptions{Session: p}); err != nil {
			t.Logf("%s: %v", p, err) // not a session info reads (its own tests say which)
			continue
		}
		read++
		var r InfoReport
		require.NoError(t, json.Unmarshal(out.Bytes(), &r), p)
		sum := 0
		var rows []string
		for _, s := range r.TokenSources {
			sum += s.Tokens
			rows = append(rows, s.What)
			if s.Command == "" && !strings.HasPrefix(s.What, "system prompt") {
				assert.Contains(t, s.CutBy, "--target-tokens", "%s: %q has neither a command nor a budget that cuts it", p, s.What)
			}
		}
		assert.Equal(t, r.ResumeTokens, sum, "%s: the rows %q", p, rows)
	}
}
