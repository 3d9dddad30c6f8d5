package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/tidwall/gjson"
)

// The note's line count is what the line adds to a prompt, by the count
// info makes of the message (MessageTokens): checked on every prompt and
// text of testdata, cut as the note cuts them, and on strings of every
// kind of character the estimator tells apart.
func TestNoteLineTokensIsTheMessageCount(t *testing.T) {
	msg := func(text string) []byte {
		return []byte(`{"role":"user","content":` + string(EncodeString(text)) + `}`)
	}
	want := func(text string) int {
		return chain.MessageTokens(msg(text)).Total() - chain.MessageTokens(msg("")).Total()
	}
	texts := []string{"", "a", "\n", "turn 1: \"fix the build\", no tool calls", "é", "日本語のテキスト", "emoji 😀 pair", "tab\there", `quote " and \ backslash`, "\u2028 line separator", "<html>&amp;</html>", "\x01 control", strings.Repeat("x", 5000)}
	for _, s := range testdataTexts(t) {
		texts = append(texts, s, clipRunes(s, 60), clipRunes(s, 24))
	}
	for _, s := range texts {
		for _, line := range []string{s, "\nturn 12: " + string(EncodeString(s))} {
			if got, w := noteLineTokens(line), want(line); got != w {
				t.Errorf("noteLineTokens(%.80q) = %d, the message count says %d", line, got, w)
			}
		}
	}
}

// A line of the note shows the same prompt from the head of its words
// (fieldsHead) as from all of them: on every prompt and text of
// testdata, and on spaces, invalid bytes and lengths around the cut.
func TestNoteLinePromptHead(t *testing.T) {
	texts := []string{"", " ", "a", "  lead and trail  ", "tab\tnew\nline\r\n", "nbsp\u00a0and\u2003em space", "\xe2 broken \xc2\xa0 bytes \xff", "日本語 の テキスト", strings.Repeat("é", 61), strings.Repeat("x ", 30), strings.Repeat("x ", 31), strings.Repeat("ab ", 20) + "c", strings.Repeat("w", 60) + " ", strings.Repeat("w", 60) + " z"}
	texts = append(texts, testdataTexts(t)...)
	for _, s := range texts {
		all := strings.Join(strings.Fields(s), " ")
		head := fieldsHead(s, promptRunes+1)
		for _, n := range []int{promptRunes, 24} {
			if got, want := clipRunes(head, n), clipRunes(all, n); got != want {
				t.Errorf("the note shows %q of %.80q, from all its words %q", got, s, want)
			}
		}
	}
}

// testdataTexts is every prompt, text block and tool output given as a
// string in the sessions of testdata.
func testdataTexts(t *testing.T) []string {
	var texts []string
	files, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, path := range []string{"message.content", "message.content.0.text", "message.content.0.content"} {
				if v := gjson.Get(line, path); v.Type == gjson.String {
					texts = append(texts, v.Str)
				}
			}
		}
	}
	if len(texts) < 100 {
		t.Fatalf("only %d texts: testdata/sessions not found", len(texts))
	}
	return texts
}
