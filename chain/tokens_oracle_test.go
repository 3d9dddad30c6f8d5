package chain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// The token counter as it was written on gjson, kept as the oracle of
// TestCountEntryMatchesGjsonOracle: the allocation-free walk must count
// every entry the same.
func oracleCountEntry(c *counter, raw []byte) int {
	r := gjson.GetManyBytes(raw, "type", "message.content", "rendered")
	switch r[0].Str {
	case "user", "assistant":
		if !r[1].Exists() {
			return 0
		}
		c[TokOther] += calibration.PerMessage
		oracleCountContent(c, r[1], TokText)
		return len(r[1].Raw)
	case "attachment":
		r[2].ForEach(func(_, v gjson.Result) bool {
			if s := v.Get("content"); s.Type == gjson.String {
				c[TokText] += rawTokens(s.Raw, TokText, &calibration)
			}
			return true
		})
	}
	return 0
}

func oraclePromptText(raw []byte) string {
	c := gjson.GetBytes(raw, "message.content")
	if c.Type == gjson.String {
		return commandPrompt(c.Str)
	}
	var parts []string
	c.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			parts = append(parts, b.Get("text").Str)
		case "image":
			parts = append(parts, "[image]")
		}
		return true
	})
	return commandPrompt(strings.Join(parts, "\n"))
}

func oracleEntryUsage(raw []byte) (Usage, bool) {
	u := gjson.GetBytes(raw, "message.usage")
	if !u.IsObject() {
		return Usage{}, false
	}
	r := u.Get("[input_tokens,cache_creation_input_tokens,cache_read_input_tokens,output_tokens]")
	a := r.Array()
	if len(a) != 4 {
		return Usage{}, false
	}
	return Usage{Input: int(a[0].Int() + a[1].Int() + a[2].Int()), Output: int(a[3].Int())}, true
}

func oracleCountContent(c *counter, content gjson.Result, text TokenKind) {
	if content.Type == gjson.String {
		c[text] += rawTokens(content.Raw, text, &calibration)
		return
	}
	content.ForEach(func(_, b gjson.Result) bool {
		var typ string
		var body, name, source gjson.Result
		b.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "type":
				typ = v.Str
			case "text", "thinking", "data", "input", "content":
				body = v
			case "name":
				name = v
			case "source":
				source = v
			}
			return true
		})
		// a thinking block's framing goes with it (the API may drop it whole)
		if typ == "thinking" || typ == "redacted_thinking" {
			c[TokThinking] += calibration.PerBlock
		} else {
			c[TokOther] += calibration.PerBlock
		}
		switch typ {
		case "text":
			c[text] += rawTokens(body.Raw, text, &calibration)
		case "thinking":
			c[TokThinking] += rawTokens(body.Raw, TokThinking, &calibration)
		case "redacted_thinking":
			c[TokThinking] += float64(len(body.Raw)) / calibration.BytesPerToken[TokThinking]
		case "tool_use":
			c[TokToolInput] += rawTokens(name.Raw, TokToolInput, &calibration) + rawTokens(body.Raw, TokToolInput, &calibration)
		case "tool_result":
			oracleCountContent(c, body, TokToolOutput)
		case "image":
			c[TokImage] += float64(ImageTokens(source))
		case "document":
			n := len(source.Get("data").Raw)
			pages := (n + docBase64PerPage - 1) / docBase64PerPage
			if pages == 0 {
				pages = 1
			}
			c[TokDocument] += float64(pages * docTokensPerPage)
		default:
			c[TokOther] += rawTokens(b.Raw, TokOther, &calibration)
		}
		return true
	})
}

// TestCountEntryMatchesGjsonOracle: the walk over raw text counts every
// line of testdata and ../shared/corpus, and the odd shapes below, exactly
// as the gjson counter did (the estimator's calibration depends on it).
func TestCountEntryMatchesGjsonOracle(t *testing.T) {
	odd := []string{
		`{"type":"user","message":{"role":"user","content":"plain \"quoted\" \u00e9 text"}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},"bare string",42,{"type":"tool_use","name":"Bash","input":{"command":"ls  -l"}}]}}`,
		`{"type":"user","type":"assistant","message":{"content":"first type wins"}}`,
		`{"type":"user","message":{"content":"one"},"message":{"content":"two"}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"x","text":"yy"}]}}`,
		`{ "type" : "user" , "message" : { "content" : [ { "type" : "tool_result" , "content" : [ {"type":"text","text":"out"} ] } ] } }`,
		`{"type":"user","message":{"content":{"type":"text","text":"an object, not an array"}}}`,
		`{"type":"user","message":"not an object"}`,
		`{"type":"user","message":{"role":"user"}}`,
		`{"type":"attachment","rendered":[{"content":"a"},{"content":7},"x",{"other":"b"}]}`,
		`{"type":"attachment","rendered":{"one":{"content":"a"},"two":{"content":"bb"}}}`,
		`{"type":"assistant","message":{"content":[{"type":"redacted_thinking","data":"QUJD"},{"type":"thinking","thinking":"hmm\\n"},{"type":"document","source":{"data":"QUJDRA=="}},{"type":"document"},{"type":"server_tool_use","id":"x"}]}}`,
		`{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}}]}}`,
		`{"type":"system","message":{"content":"not counted"}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":5,"output_tokens":7,"cache_read_input_tokens":100}}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":5,"cache_creation_input_tokens":1,"cache_read_input_tokens":2,"output_tokens":3}}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":5.0,"cache_creation_input_tokens":"1","cache_read_input_tokens":null,"output_tokens":3,"input_tokens":9}}}`,
		`{"type":"assistant","message":{"usage":null}}`,
		`{"type":"user","message":{"content":"<command-name>/review</command-name><command-args>src/main.go</command-args>"}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"one"},{"type":"image","source":{}},{"type":"text","text":"two \u00e9"},{"type":"text","text":7}]}}`,
		`{"type":"user","message":{"content":{"a":{"type":"text","text":"in an object"}}}}`,
		`{"type":"user","message":{"content":42}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"  lots   of\n\n  space \u00e9\u00e9 and \"quotes\" \\ back"},{"type":"image"},{"type":"text","text":"second block"},{"type":"text"}]}}`,
		`{"type":"user","message":{"content":"   <command-name>/review</command-name><command-args>a long argument list</command-args>"}}`,
		`{"type":"assistant","isApiErrorMessage":true,"message":{"model":"<synthetic>"}}`,
		`{"type":"assistant","isApiErrorMessage":false,"message":{"content":"isApiErrorMessage"}}`,
		// the walk stops once what counts is read: fields after it, in every order
		`{"message":{"content":"a","usage":{"x":[1,{"y":"}"}]}},"type":"assistant","message":{"content":"bbbb"},"type":"user"}`,
		`{"type":"user","message":{"meta":{"content":"no"},"content":"yes","tail":"}]"},"rendered":[{"content":"zz"}]}`,
		`{"rendered":[{"content":"x"}],"type":"attachment","rendered":[{"content":"yyyy"}],"message":{"content":"m"}}`,
		`{"type":"attachment","message":{"content":"m"},"rendered":[{"content":"x"}]}`,
		`{"type":"system","message":{"content":"s"},"type":"user"}`,
		`{"message":{"content":"before any type"}}`,
		`{"type":"user","message":{"content":"c","content":"dd"},"type":"assistant"}`,
	}
	check := func(where string, raw []byte) {
		u, ok := EntryUsage(raw)
		wu, wok := oracleEntryUsage(raw)
		if u != wu || ok != wok {
			t.Errorf("%s: usage %+v %v, the gjson reader %+v %v", where, u, ok, wu, wok)
		}
		if a, b := IsSyntheticError(raw), bytes.Contains(raw, []byte("isApiErrorMessage")) && gjson.GetBytes(raw, "isApiErrorMessage").Bool(); a != b {
			t.Errorf("%s: synthetic error %v, the gjson reader %v", where, a, b)
		}
		if p, w := promptText(raw), oraclePromptText(raw); p != w {
			t.Errorf("%s: prompt %q, the gjson reader %q", where, p, w)
		}
		for _, n := range []int{0, 1, 7, 50, 4096} {
			if head, whole, ok := promptHead(raw, n); ok && (!strings.HasPrefix(promptText(raw), head) || whole && head != promptText(raw)) {
				t.Errorf("%s: head of %d bytes %q (whole: %v) is not a prefix of the prompt %q, or not all of it", where, n, head, whole, promptText(raw))
			}
		}
		var got, want counter
		gn := countEntry(&got, raw, &calibration)
		wn := oracleCountEntry(&want, raw)
		if got != want || gn != wn {
			t.Errorf("%s: counted %v (%d bytes), the gjson counter %v (%d bytes)", where, got, gn, want, wn)
		}
	}
	for k, s := range odd {
		check(fmt.Sprintf("odd shape %d", k), []byte(s))
	}
	n := 0
	for _, p := range corpusFiles(t) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for k, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 || !json.Valid(line) {
				continue
			}
			check(fmt.Sprintf("%s:%d", p, k+1), line)
			n++
		}
	}
	t.Logf("%d lines counted the same", n)
	require.Greater(t, n, 1000)
}
