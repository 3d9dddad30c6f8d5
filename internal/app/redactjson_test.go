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
// with printJSON's settings (no HTML escaping) at its depth, for names with quotes,
// escapes, controls, HTML characters, U+2028 and bad UTF-8, with the same
// encoder reused from one to the next.
func TestRedactionEncoderIsTheEncoders(t *testing.T) {
	odd := []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\n", "<b>&amp;</b>", "line\u2028sep", "bad\xffutf8", "ctl\x01\x1f\x7f", "é ü 😀"}
	var e redactionEncoder
	for i, s := range odd {
		for _, th := range []bool{false, true} {
			for _, num := range []uint32{0, 3, 12345} {
				rec := ops.RedactionRec{File: s, Line: i * 1000, Field: odd[(i+1)%len(odd)], Rule: odd[(i+2)%len(odd)],
					Number: num, Fingerprint: [4]byte{byte(i), 0xab, 0, 0xff}, InThinking: th}
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				enc.SetIndent("    ", "  ")
				require.NoError(t, enc.Encode(rec.Redaction()))
				require.Equal(t, string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))), string(e.encode([]byte("before"), &rec)[len("before"):]), "%+v", rec)
			}
		}
	}
}
