package redact

import (
	"strings"
	"testing"
)

// TestAngleBracketIsACharacterOfAPassword: in a quoted value a lone '<' or
// '>' is a character of a password like any other punctuation, in every
// syntax the generic rules read; only a <…> span marks a placeholder. A
// subtest per syntax and position, and the placeholders of the same
// syntaxes that must stay. Not here: an unquoted value ending in '>'
// (passwd=abc>), which is as often a shell redirect or the end of a
// <placeholder> opened before the value (curl -u <user:pass>).
func TestAngleBracketIsACharacterOfAPassword(t *testing.T) {
	s := mustNew(t, Options{})
	values := map[string]string{
		"end":    "Xk9#mQ2~pL7?>",
		"middle": "Xk9m>Q2pL7w!",
		"lt":     "Xk9mQ2<pL7w!",
		"both":   "Xk9>mQ2<pL7w",
		"plain":  "Xk9m>Q2pL7",
	}
	syntaxes := map[string]string{
		"code-assign":  `password = "%s"`,
		"json":         `{"password": "%s"}`,
		"yaml-quoted":  `password: "%s"`,
		"shell-export": `export DB_PASSWORD='%s'`,
		"cli-flag":     `mysql --password='%s' -h db`,
	}
	for sn, syn := range syntaxes {
		for vn, v := range values {
			t.Run(sn+"/"+vn, func(t *testing.T) {
				text := strings.Replace(syn, "%s", v, 1)
				if out := redactAll(s, text); strings.Contains(out, v) {
					t.Errorf("%s: left in place: %s", text, out)
				}
			})
		}
	}
	for _, text := range []string{
		`password = "<PASSWORD>"`,
		`password = "<your-db-password>"`,
		`{"password": "<redacted>"}`,
		`password: "<%= ENV['DB_PASSWORD'] %>"`,
		`export DB_PASSWORD='<set me>'`,
		`passwd=<password>`,
	} {
		t.Run("placeholder/"+text, func(t *testing.T) {
			if out := redactAll(s, text); out != text {
				t.Errorf("a placeholder was reported: %s -> %s", text, out)
			}
		})
	}
}
