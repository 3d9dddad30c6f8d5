package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/require"
)

// TestCompressLineWalksAnyOrder: the cut walks a line once (the message's
// content where it lies, each block's fields as they pass), so what it
// finds must not depend on the order of the fields or on the spaces
// between them: a block whose "type" comes last (Go's sorted keys), the
// toolUseResult before the message, a key twice (the first counts, as
// gjson reads it), a message that is not an object, a content that is a
// string, spaces and newlines around every token, an image. Each line is
// cut as the gjson oracle cuts it, by every cut compress makes.
func TestCompressLineWalksAnyOrder(t *testing.T) {
	long := func(c byte) string { return strings.Repeat(string(c)+`\n`, 1500) }
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + strings.Repeat("A", 3000) + `"}}`
	env := `"type":"user","uuid":"%s","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z"`
	bodies := []string{
		`"message":{"role":"user","content":[{"tool_use_id":"a","type":"tool_result","content":"` + long('x') + `"}]},"toolUseResult":{"stdout":"` + long('y') + `","interrupted":false}`,
		`"toolUseResult":{"type":"text","file":{"filePath":"/a","content":"` + long('f') + `"}},"message":{"content":[{"content":"` + long('z') + `","is_error":false,"tool_use_id":"b","type":"tool_result"}],"role":"user"}`,
		`"message":{"content":[{"id":"t","input":{"command":"` + long('c') + `","n":3,"old_string":"` + long('o') + `"},"name":"Bash","type":"tool_use"}],"role":"assistant"}`,
		`"message":{"content":[{"type":"tool_result","type":"text","content":"` + long('d') + `","content":"short","tool_use_id":"c"}]}`,
		`"message":{"content":[{"type":"tool_use","input":{"a":"` + long('i') + `"},"input":{"b":"` + long('j') + `"}}]},"message":{"content":[{"type":"tool_result","content":"` + long('k') + `"}]}`,
		`"message":"not an object","toolUseResult":"` + long('s') + `"`,
		`"message":{"role":"user","content":"` + long('p') + `"},"toolUseResult":{"stdout":"a"}`,
		`"message" : { "role" : "user" , "content" : [ { "tool_use_id" : "e" , "type" : "tool_result" , "content" : [ { "type" : "text" , "text" : "` + long('w') + `" } , ` + img + ` ] } ] } , "toolUseResult" : { "stdout" : "` + long('v') + `" }`,
		`"message":{"content":[` + img + `,{"type":"text","text":"` + long('t') + `"},3,"str",{"content":"` + long('q') + `"},{"type":"tool_result","content":[` + img + `,{"text":"` + long('r') + `","type":"text"}]}]}`,
		`"message":{"content":[]},"toolUseResult":[1,2]`,
	}
	var lines []string
	for k, b := range bodies {
		lines = append(lines, "{"+fmt.Sprintf(env, fmt.Sprintf("00000000-0000-4000-8000-%012d", k))+","+b+"}")
	}
	f, err := chain.LoadBytes("order.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
	require.NoError(t, err)
	require.Len(t, f.Entries, len(lines))
	cuts := []entryCut{
		{Max: DefaultMaxResult, Text: true, Images: true},
		{Max: DefaultMaxResult, Text: true},
		{Images: true},
		{Max: 500, Text: true},
		{Max: 100, Text: true},
	}
	changed := 0
	for i := range f.Entries {
		e := &f.Entries[i]
		raw := []byte(lines[i])
		for _, c := range cuts {
			want, wantCuts, wantChanged := oracleCompress(e, append([]byte(nil), raw...), c)
			got, gotCuts, gotChanged := compressLine(raw, c)
			where := fmt.Sprintf("line %d, cut %+v", i+1, c)
			require.Equal(t, wantChanged, gotChanged, where)
			require.Equal(t, wantCuts, gotCuts, where)
			require.Equal(t, string(want), string(got), where)
			if gotChanged {
				changed++
				_, _, parts, _ := planCuts(nil, raw, c, true)
				replayed, ok := replayCuts(nil, raw, parts, c)
				require.True(t, ok, where)
				require.Equal(t, string(got), string(replayed), where+": replayed plan")
			}
		}
	}
	require.Greater(t, changed, 20)
}
