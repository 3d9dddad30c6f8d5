package ops

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/internal/testcorpus"
	"github.com/stretchr/testify/require"
)

// TestPromptLineHeadMatchesGjsonOracle: the head of a prompt read from
// the head of its raw text is the one of the text decoded whole, on every
// line of testdata and the corpus, and on prompts made of the pieces that
// meet the edge of what is decoded first: escapes of every kind, \u and
// surrogates, spaces of several bytes (U+3000, U+00A0), runs of spaces,
// invalid UTF-8, a string or a text block, a text that is not a string.
func TestPromptLineHeadMatchesGjsonOracle(t *testing.T) {
	files := testcorpus.JSONLFiles(t, filepath.Join("..", "testdata"))
	if corpus := testcorpus.Optional(t); corpus != "" {
		files = append(files, testcorpus.JSONLFiles(t, corpus)...)
	}
	lines, fast := 0, 0
	check := func(b []byte, what string) {
		for _, n := range []int{1, 5, promptRunes + 1, 400} {
			want := promptLineHeadGjson(b, n) // the text decoded whole
			require.Equal(t, want, promptLineHead(b, n), "%s (n %d): %.300s", what, n, b)
			if _, ok := promptLineHeadFast(b, n); ok {
				fast++
			}
		}
		lines++
	}
	for _, p := range files {
		f, err := chain.LoadFile(p)
		if err != nil {
			continue
		}
		for i := range f.Entries {
			if f.Entries[i].Type() != "user" {
				continue
			}
			raw, err := f.Raw(i)
			require.NoError(t, err)
			check(raw, p)
		}
	}
	pieces := []string{"word ", "a", "  ", "\\n", "\\t\\t", "\\r\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "é", "日本", "\u3000", "\u00a0", "\\u3000",
		"\\u00e9", "\\ud83d\\ude42", "\\ud83d", "\\x", "\xff", "\xe3\x80", "🙂", strings.Repeat("x", 300), strings.Repeat(" ", 200), strings.Repeat("\\n", 100)}
	rng := rand.New(rand.NewSource(4))
	for k := 0; k < 4000; k++ {
		var sb strings.Builder
		for m := rng.Intn(60); m > 0; m-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := `"` + sb.String() + `"`
		var line string
		switch rng.Intn(4) {
		case 0:
			line = `{"type":"user","message":{"role":"user","content":` + text + `}}`
		case 1:
			line = `{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}},{"type":"text","text":` + text + `},{"type":"text","text":"no"}]}}`
		case 2:
			line = `{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]},"uuid":"u"}`
		default:
			line = `{"type":"user","message":{"role":"user","content":[{"text":` + text + `,"type":"text"}]}}`
		}
		check([]byte(line), "made")
	}
	t.Logf("%d lines the same (%d of the 4 heads of each read the fast way)", lines, fast)
	require.Greater(t, fast, lines, "most heads are read from the head of the text")
}
