package ops_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Lines that are not JSON entries are scanned too, as text: a torn last
// line (what a crash leaves) and a line nested deeper than the JSON limit.
// --check must fail on them and -o must not copy their secrets.
func TestRedactSecretsScansLinesThatAreNotJSON(t *testing.T) {
	const ghp = "ghp_R4wL1neT0kenZ9y8X7w6V5u4T3s2R1q0P9o8"
	const aws = "AKIA2E0A8F3B244C9986"
	base, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl"))
	require.NoError(t, err)
	torn := `{"parentUuid":"5cef7761-0000-4000-8000-000000000001","type":"user","message":{"role":"user","content":"deploy with GITHUB_TOKEN=` + ghp + ` and aws key ` + aws + ` then`
	deep := `{"type":"user","nested":` + strings.Repeat("[", 10001) + `"token ` + ghp + `"` + strings.Repeat("]", 10001) + "}\n"
	for _, c := range []struct{ name, tail string }{
		{"torn-last-line", torn},
		{"nested-too-deep", deep},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "3c1d2e4f-0000-4000-8000-00000000beef.jsonl")
			require.NoError(t, os.WriteFile(src, append(append([]byte{}, base...), c.tail...), 0o600))
			env := &app.Env{ConfigDir: filepath.Join(dir, "config"), Quiet: true, Out: io.Discard, Err: io.Discard, In: strings.NewReader("")}

			err := env.RunRedactCheck(src, app.OpSpec{})
			var ce *app.Error
			require.True(t, errors.As(err, &ce), "--check must fail: %v", err)
			assert.Equal(t, 1, ce.ExitCode())

			out := filepath.Join(dir, "share.jsonl")
			require.NoError(t, env.RunOps(src, app.OpSpec{Redact: true}, app.Dest{Output: out}))
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.NotContains(t, string(b), ghp)
			assert.NotContains(t, string(b), aws[4:])
			assert.Contains(t, string(b), "[REDACTED:github-pat:1]")
			// the rest of the session is copied unchanged
			assert.True(t, strings.HasPrefix(string(b), string(base)), "the valid lines changed")

			// the redacted copy passes --check
			assert.NoError(t, env.RunRedactCheck(out, app.OpSpec{}))
		})
	}
}

// A secret outside any JSON string of a broken line cannot be replaced
// without changing what a repair would make of the line: it is reported
// (--check fails, the write names it in a note), never silently kept.
func TestRedactSecretsReportsWhatItCannotReplace(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "3c1d2e4f-0000-4000-8000-00000000cafe.jsonl")
	bad := "not json: PGPASSWORD=S3cr3tPassw0rd123 psql -h db"
	require.NoError(t, os.WriteFile(src, append(append([]byte{}, base...), bad...), 0o600))
	var buf bytes.Buffer
	env := &app.Env{ConfigDir: filepath.Join(dir, "config"), Quiet: true, JSON: true, Out: &buf, Err: io.Discard, In: strings.NewReader("")}

	var ce *app.Error
	require.True(t, errors.As(env.RunRedactCheck(src, app.OpSpec{}), &ce))
	assert.Equal(t, 1, ce.ExitCode())

	buf.Reset()
	require.NoError(t, env.RunOps(src, app.OpSpec{Redact: true}, app.Dest{Output: filepath.Join(dir, "share.jsonl")}))
	var res app.WriteResult
	require.NoError(t, json.Unmarshal(buf.Bytes(), &res))
	require.Len(t, res.Redactions, 1)
	assert.Equal(t, "generic-password", res.Redactions[0].Rule)
	assert.Empty(t, res.Redactions[0].Placeholder, "not replaced")
	assert.Contains(t, strings.Join(res.Notes, "\n"), "cannot be replaced")
}

// What is not a secret in a string that holds one is written as the line
// had it: escapes keep their spelling (\/, \u003c, \u00e9) and a lone
// surrogate (a JavaScript string cut in a pair) is not made U+FFFD.
func TestRedactSecretsKeepsTheRestOfTheStringByteForByte(t *testing.T) {
	const ghp = "ghp_R4wL1neT0kenZ9y8X7w6V5u4T3s2R1q0P9o8"
	base, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(base), "\n")
	k := -1
	for i, l := range lines {
		if gjson.Get(l, "type").Str == "user" && gjson.Get(l, "message.content").Type == gjson.String {
			k = i
			break
		}
	}
	require.GreaterOrEqual(t, k, 0)
	for _, text := range []string{
		`a \u003c b \/ c \u00e9 \"q\" \n token ` + ghp + ` end`,
		`lone \udc00 then ` + ghp + `\ud83d\ude00 after`,
		ghp + `\u0020\u00e9`,
	} {
		l, err := sjson.SetRaw(strings.TrimSuffix(lines[k], "\n"), "message.content", `"`+text+`"`)
		require.NoError(t, err)
		in := append([]string{}, lines...)
		in[k] = l + "\n"
		dir := t.TempDir()
		src := filepath.Join(dir, "3c1d2e4f-0000-4000-8000-00000000beef.jsonl")
		require.NoError(t, os.WriteFile(src, []byte(strings.Join(in, "")), 0o600))
		env := &app.Env{ConfigDir: filepath.Join(dir, "config"), Quiet: true, Out: io.Discard, Err: io.Discard, In: strings.NewReader("")}
		out := filepath.Join(dir, "share.jsonl")
		require.NoError(t, env.RunOps(src, app.OpSpec{Redact: true}, app.Dest{Output: out}))
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		want := strings.Replace(in[k], ghp, "[REDACTED:github-pat:1]", 1)
		got := strings.SplitAfter(string(b), "\n")
		require.Len(t, got, len(in))
		assert.Equal(t, want, got[k], "%s", text)
		assert.Equal(t, strings.Join(in[:k], ""), strings.Join(got[:k], ""))
		assert.Equal(t, strings.Join(in[k+1:], ""), strings.Join(got[k+1:], ""))
	}
}

// Every encoding: a string is scanned as the client decodes it (a \u
// escape or \/ inside a secret does not hide it), object keys are scanned
// as well as values, and a secret where a placeholder cannot go (a
// structural field such as cwd, which the client reads) is reported so
// that --check fails. Each case is one member of the family; the subtest
// names which broke.
func TestRedactSecretsEveryEncoding(t *testing.T) {
	const ghp = "ghp_R4wL1neT0kenZ9y8X7w6V5u4T3s2R1q0P9o8"
	const pw = "Zq7vR2mK9xW4pL8n"
	base, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "2.1.328", "multi-turn.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(base), "\n")
	k := -1
	for i, l := range lines {
		if gjson.Get(l, "type").Str == "user" && gjson.Get(l, "message.content").Type == gjson.String {
			k = i
			break
		}
	}
	require.GreaterOrEqual(t, k, 0)
	esc := func(s string) string { // every byte as \u00XX
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, `\u%04x`, s[i])
		}
		return b.String()
	}
	for _, c := range []struct {
		name, path, raw  string // raw JSON set at path of the user entry
		secret, replaced string // the secret as the client decodes it, and the line's bytes after redaction ("" = not replaced)
	}{
		{"first character as \\u escape", "message.content", `"token \u0067` + ghp[1:] + ` end"`, ghp, `"token [REDACTED:github-pat:1] end"`},
		{"every character as \\u escape", "message.content", `"` + esc(ghp) + `"`, ghp, `"[REDACTED:github-pat:1]"`},
		{"upper-case \\u escape", "message.content", `"\u0047ITHUB_TOKEN=` + ghp + `"`, ghp, `"\u0047ITHUB_TOKEN=[REDACTED:github-pat:1]"`},
		{"escaped solidus in a URL", "message.content", `"psql postgres:\/\/admin:` + pw + `@db.internal:5432\/app"`, pw, `"psql postgres:\/\/admin:[REDACTED:postgres-url-password:1]@db.internal:5432\/app"`},
		{"escape inside the keyword", "message.content", `"export DB_PASS\u0057ORD=` + pw + `"`, pw, `"export DB_PASS\u0057ORD=[REDACTED:generic-password:1]"`},
		{"object key", "toolUseResult", `{"` + ghp + `":1,"ok":true}`, ghp, `{"[REDACTED:github-pat:1]":1,"ok":true}`},
		{"object key with an escape", "toolUseResult", `{"\u0067` + ghp[1:] + `":1}`, ghp, `{"[REDACTED:github-pat:1]":1}`},
		{"nested key", "toolUseResult", `{"a":[{"b":{"` + ghp + `":"x"}}]}`, ghp, `{"a":[{"b":{"[REDACTED:github-pat:1]":"x"}}]}`},
		{"document block with a text source", "message.content", `[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"token ` + ghp + `"}}]`, ghp, `[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"token [REDACTED:github-pat:1]"}}]`},
		// encodings inside the decoded string (issue 31, ops/redact/encoded.go): the encoded
		// span is replaced
		{"JSON text with a \\u escape inside a string", "toolUseResult", `"{\"token\": \"\\u0067` + ghp[1:] + `\"}"`, ghp, `"{\"token\": \"[REDACTED:encoded-secret:1]\"}"`},
		{"base64 of a JSON credential", "message.content", `"GCP_SA_KEY=` + base64.StdEncoding.EncodeToString([]byte(`{"user":"ci","token":"`+ghp+`"}`)) + `"`, ghp, `"GCP_SA_KEY=[REDACTED:encoded-secret:1]"`},
		{"JSON percent-encoded in a URL", "message.content", `"GET /cb?state=%7B%22token%22%3A%22` + ghp + `%22%7D"`, ghp, `"GET /cb?state=%7B%22token%22%3A%22[REDACTED:encoded-secret:1]%22%7D"`},
		{"structural field: reported, not replaced", "cwd", `"/home/u/` + ghp + `"`, ghp, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := sjson.SetRaw(strings.TrimSuffix(lines[k], "\n"), c.path, c.raw)
			require.NoError(t, err)
			var v any
			require.NoError(t, json.Unmarshal([]byte(l), &v), "the test line is JSON")
			require.Contains(t, l, c.raw)
			in := append([]string{}, lines...)
			in[k] = l + "\n"
			dir := t.TempDir()
			src := filepath.Join(dir, "3c1d2e4f-0000-4000-8000-00000000beef.jsonl")
			require.NoError(t, os.WriteFile(src, []byte(strings.Join(in, "")), 0o600))
			env := &app.Env{ConfigDir: filepath.Join(dir, "config"), Quiet: true, Out: io.Discard, Err: io.Discard, In: strings.NewReader("")}

			var ce *app.Error
			require.True(t, errors.As(env.RunRedactCheck(src, app.OpSpec{}), &ce), "--check passed a session holding %s", c.secret)
			assert.Equal(t, 1, ce.ExitCode())

			out := filepath.Join(dir, "share.jsonl")
			var buf bytes.Buffer
			env.JSON, env.Out = true, &buf
			require.NoError(t, env.RunOps(src, app.OpSpec{Redact: true}, app.Dest{Output: out}))
			env.JSON, env.Out = false, io.Discard
			var res app.WriteResult
			require.NoError(t, json.Unmarshal(buf.Bytes(), &res), buf.String())
			require.Len(t, res.Redactions, 1, "one secret reported")
			if c.replaced == "" {
				assert.Empty(t, res.Redactions[0].Placeholder, "reported as not replaced")
				assert.True(t, res.NothingToChange, "nothing else to change: an identical copy")
				b, err := os.ReadFile(out)
				require.NoError(t, err)
				assert.Equal(t, strings.Join(in, ""), string(b))
				assert.Contains(t, strings.Join(res.Notes, "\n"), "cannot be replaced")
				assert.Error(t, env.RunRedactCheck(out, app.OpSpec{}), "--check of the copy still fails")
				return
			}
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			got := strings.SplitAfter(string(b), "\n")
			require.Len(t, got, len(in))
			assert.Equal(t, strings.Replace(in[k], c.raw, c.replaced, 1), got[k], "only the secret's bytes changed")
			assert.Equal(t, strings.Join(in[:k], ""), strings.Join(got[:k], ""))
			assert.Equal(t, strings.Join(in[k+1:], ""), strings.Join(got[k+1:], ""))
			assert.NoError(t, env.RunRedactCheck(out, app.OpSpec{}), "the redacted copy passes --check")
		})
	}
}
