package redact_test

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
)

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// mapTo derives n characters of set from key: the fuzzer picks the secret,
// and the secret always looks like a real, random token (the scanner rightly
// ignores low-entropy look-alikes such as ghp_aaaa…: the first crasher,
// testdata/fuzz/FuzzPlanted/f03f4aff4883ff58, was such a token).
func mapTo(key []byte, n int, set string) string {
	b := make([]byte, 0, n)
	for block := 0; len(b) < n; block++ {
		sum := sha256.Sum256(append([]byte{byte(block)}, key...))
		for _, c := range sum {
			if len(b) < n {
				b = append(b, set[int(c)%len(set)])
			}
		}
	}
	return string(b)
}

// FuzzPlanted plants a GitHub token and an AWS access key id, separated by
// a space from fuzz-provided text on each side, into a one-entry session:
// after redact-secrets neither secret may survive in the written bytes.
func FuzzPlanted(f *testing.F) {
	f.Add("see the token ", []byte("abc"), " in config", "aws")
	f.Add("", []byte{}, "", "")
	f.Add("export GITHUB_TOKEN=", []byte("\x00\xff"), "\n", "AWS_ACCESS_KEY_ID=")
	f.Add("password: ", []byte("zzzz"), "\"}", "url https://user:")
	f.Add("ghp_", []byte("0000"), "AKIA", "ghp_")
	sc, err := redact.New(redact.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, before string, key []byte, after, middle string) {
		gh := "ghp_" + mapTo(key, 36, alnum)
		aws := "AKIA" + mapTo(append([]byte("aws"), key...), 16, upperDigits)
		text := before + " " + gh + " " + middle + " " + aws + " " + after
		// direct scan: both secrets covered by a finding
		fs := sc.Scan(text)
		for _, sec := range []string{gh, aws} {
			at := strings.Index(text, sec)
			covered := false
			for _, fd := range fs {
				if fd.Start <= at && fd.End >= at+len(sec) {
					covered = true
				}
			}
			if !covered {
				t.Fatalf("Scan does not cover %q in %q: %+v", sec, text, fs)
			}
		}
		// through the operation, on a one-entry session
		line, err := json.Marshal(map[string]any{
			"type": "user", "uuid": "aaaaaaaa-0000-0000-0000-000000000001", "parentUuid": nil,
			"sessionId": "f0f0f0f0-1111-2222-3333-444444444444",
			"message":   map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "f0f0f0f0-1111-2222-3333-444444444444.jsonl")
		if err := os.WriteFile(p, append(line, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := chain.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tx := ops.NewTxn(s)
		if err := (ops.Pipeline{ops.RedactSecrets{Scanner: sc}}).Apply(tx); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := tx.Render(s.Main)(&sb); err != nil {
			t.Fatal(err)
		}
		out := sb.String()
		for _, sec := range []string{gh, aws, gh[4:], aws[4:]} {
			if strings.Contains(out, sec) {
				t.Fatalf("secret %q survived redaction:\n%s", sec, out)
			}
		}
		if !json.Valid([]byte(strings.TrimSpace(out))) {
			t.Fatalf("redacted line is not JSON: %s", out)
		}
	})
}
