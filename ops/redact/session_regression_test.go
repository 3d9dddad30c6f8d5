package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Decoded JSON string values copied from
// testdata/sessions/2.1.328/secrets.jsonl. Every planted secret must be
// redacted, even the fake-looking ones (EXAMPLE, "fake", short sk-ant keys):
// the unmistakable prefix wins over the placeholder look.
var sessionStrings = []string{
	"My token is ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2 and my key is sk-ant-api03-PROMPTfakeKEY0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH. Check the db.",
	"export PGPASSWORD=hunter2-Sup3rS3cret && echo connecting to postgres://app:hunter2-Sup3rS3cret@localhost:5432/app as AKIAZZZZEXAMPLE12345",
	"connecting to postgres://app:hunter2-Sup3rS3cret@localhost:5432/app as AKIAZZZZEXAMPLE12345",
	"1\tDATABASE_URL=postgres://admin:S3cr3tPassw0rd!@db.internal.example:5432/prod\n2\tGITHUB_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n3\tANTHROPIC_API_KEY=sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-AAAAAA\n4\tAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n5\tAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n6\t",
	"DATABASE_URL=postgres://admin:S3cr3tPassw0rd!@db.internal.example:5432/prod\nGITHUB_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\nANTHROPIC_API_KEY=sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-AAAAAA\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
}

// planted secret -> the rule expected to report it
var sessionSecrets = map[string]string{
	"AKIAIOSFODNN7EXAMPLE":                     "aws-access-key-id",
	"AKIAZZZZEXAMPLE12345":                     "aws-access-key-id",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws-secret-key",
	"sk-ant-api03-FAKEfakeFAKEfake0123456789abcdefABCDEF-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH-AAAAAA": "anthropic-api-key",
	"sk-ant-api03-PROMPTfakeKEY0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH":                                 "anthropic-api-key",
	"hunter2-Sup3rS3cret":                      "", // generic-password after PGPASSWORD=, postgres-url-password in the URL
	"ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2": "github-pat",
	"ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8": "github-pat",
	"S3cr3tPassw0rd!":                          "postgres-url-password",
}

// checkAllRedacted asserts that every occurrence of every planted secret in
// text is inside one finding, and returns how many occurrences it saw.
func checkAllRedacted(t *testing.T, s *Scanner, text string) int {
	t.Helper()
	fs := s.Scan(text)
	n := 0
	for sec, rule := range sessionSecrets {
		for off := 0; ; {
			k := strings.Index(text[off:], sec)
			if k < 0 {
				break
			}
			p := off + k
			off = p + 1
			n++
			var got *Finding
			for i := range fs {
				if fs[i].Start <= p && fs[i].End >= p+len(sec) {
					got = &fs[i]
				}
			}
			if !assert.NotNil(t, got, "%q not redacted in %q\nfound %v", sec, text, describe(text, fs)) {
				continue
			}
			assert.Equal(t, Finding{p, p + len(sec), got.Rule}, *got, "%q: finding is not exactly the secret", sec)
			if rule != "" {
				assert.Equal(t, rule, got.Rule, sec)
			}
		}
	}
	return n
}

func TestSession2_1_328Secrets(t *testing.T) {
	s := mustNew(t, Options{})
	total := 0
	for _, text := range sessionStrings {
		total += checkAllRedacted(t, s, text)
	}
	assert.Equal(t, 17, total)
	// both contexts of the human password
	fs := s.Scan(sessionStrings[1])
	assert.Equal(t, []string{`generic-password "hunter2-Sup3rS3cret"`, `postgres-url-password "hunter2-Sup3rS3cret"`,
		`aws-access-key-id "AKIAZZZZEXAMPLE12345"`}, describe(sessionStrings[1], fs))
}

// The same over the whole session file, as the redact-secrets operation
// sees it: every decoded string value of every line.
func TestSession2_1_328File(t *testing.T) {
	f, err := os.Open("../../testdata/sessions/2.1.328/secrets.jsonl")
	require.NoError(t, err)
	defer f.Close()
	s := mustNew(t, Options{})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	total := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			total += checkAllRedacted(t, s, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for sc.Scan() {
		var v any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v))
		walk(v)
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, total, 20)
}
