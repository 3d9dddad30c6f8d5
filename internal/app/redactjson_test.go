package app

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops"
	"github.com/stretchr/testify/require"
)

// TestRedactionEncoderIsTheEncoders: the redactions of redact --json are
// written by hand; each is what encoding/json gives of its ops.Redaction
// with printJSON's settings (no HTML escaping), on one line (a list of a
// million secrets is a million lines, not eight million), for names with quotes,
// escapes, controls, HTML characters, U+2028 and bad UTF-8, with the same
// encoder reused from one to the next; the names' numbers in the list
// (by which the encoder keeps what it made of them) as the list gives
// them, all the same (a record made by hand), one number for two names,
// and numbers past those it keeps.
func TestRedactionEncoderIsTheEncoders(t *testing.T) {
	odd := []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\n", "<b>&amp;</b>", "line\u2028sep", "bad\xffutf8", "ctl\x01\x1f\x7f", "é ü 😀"}
	numberings := map[string]func(k int) uint32{
		"the list's":  func(k int) uint32 { return uint32(k) },
		"none":        func(int) uint32 { return 0 },
		"two a name":  func(k int) uint32 { return uint32(k / 2) },
		"past kept":   func(k int) uint32 { return maxCachedName + uint32(k%3) },
		"kept, large": func(k int) uint32 { return maxCachedName - 1 - uint32(k%2) },
	}
	for _, how := range []string{"the list's", "none", "two a name", "past kept", "kept, large"} {
		num := numberings[how]
		var e redactionEncoder
		for i, s := range odd {
			for _, th := range []bool{false, true} {
				for _, number := range []uint32{0, 3, 12345} {
					fi, fl, ru := i, (i+1)%len(odd), (i+2)%len(odd)
					rec := ops.RedactionRec{File: s, Line: i * 1000, Field: odd[fl], Rule: odd[ru],
						Number: number, Fingerprint: [4]byte{byte(i), 0xab, 0, 0xff}, InThinking: th,
						FileNum: num(fi), FieldNum: num(fl), RuleNum: num(ru)}
					var want bytes.Buffer
					enc := json.NewEncoder(&want)
					enc.SetEscapeHTML(false)
					require.NoError(t, enc.Encode(rec.Redaction()))
					require.Equal(t, string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))), string(e.encode([]byte("before"), &rec)[len("before"):]), "%s: %+v", how, rec)
				}
			}
		}
	}
}
