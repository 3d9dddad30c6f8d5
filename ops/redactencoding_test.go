package ops

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The prefilter runs on raw JSON string tokens: every anchor of every
// rule, written as the client's JSON writer writes it (a quote as \", a
// slash as \/ by writers that escape it), must still reach the scan
// (MayHold on the raw token, or hidesAnchor sends the token to be decoded).
func TestEscapedAnchorsReachTheScan(t *testing.T) {
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	for _, r := range sc.Rules() {
		for _, a := range r.Anchors {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode("some text "+a+" more text"))
			tok := string(bytes.TrimSpace(b.Bytes()))
			v := tok[1 : len(tok)-1]
			assert.True(t, sc.MayHold(tok) || hidesAnchor(v), "%s: anchor %q is hidden in %s", r.ID, a, tok)
			slashed := bytes.ReplaceAll([]byte(tok), []byte("/"), []byte(`\/`))
			assert.True(t, sc.MayHold(string(slashed)) || hidesAnchor(string(slashed[1:len(slashed)-1])), "%s: anchor %q is hidden in %s", r.ID, a, slashed)
		}
	}
}
