package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A string value is scanned decoded, however its JSON spells it: a secret
// written as the client's JSON writer writes it, with every slash as \/, or
// with every letter as a \u escape, is found in the line as Scan finds it
// in the plain text (the prefilter once ran on the raw token first, and an
// escape could hide an anchor from it).
func TestEscapedSecretsAreScannedDecoded(t *testing.T) {
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	o := RedactSecrets{Scanner: sc}
	texts := []string{
		"export GITHUB_TOKEN=ghp_Pysq3N267L1vqkgnBsUje9FqBZonjaaWDcXM\nnext",
		"DATABASE_URL=postgres://app:JCo9AZmMTu3yTV0p7opM@db.internal:5432/app",
		"curl -u\"admin:Zq8vLm3NpW5xR2tK\" https://api.example.com/v1",
		"aws_access_key_id = AKIAGZMIEGPCRY2LVFCP\naws_secret_access_key = aoS/rv42314bPlMp39SNSKDxTek/ZVJ1XoRI6nrD",
		"ANTHROPIC_API_KEY=sk-ant-api03-X8sC1utB05w3ncRGRN82i2NFk7tYz9aWCamSeBFzGvxEqcCl-xBYlvtggssiyVZ5muNnG7jiLsjGyjvzZk5s0VyRU7FG7AA",
	}
	for _, text := range texts {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(text))
		tok := string(bytes.TrimSpace(b.Bytes()))
		want := sc.Scan(text)
		require.NotEmpty(t, want, "%q", text)
		var letters strings.Builder
		inner := tok[1 : len(tok)-1]
		for k, c := range inner {
			if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && (k == 0 || inner[k-1] != '\\') {
				fmt.Fprintf(&letters, "\\u%04x", c)
			} else {
				letters.WriteRune(c)
			}
		}
		for _, spelled := range []string{tok, strings.ReplaceAll(tok, "/", `\/`), `"` + letters.String() + `"`} {
			line := `{"type":"user","message":{"role":"user","content":` + spelled + `}}`
			hits := o.scanLine([]byte(line), false)
			require.Len(t, hits, 1, "%s", line)
			assert.Equal(t, want, hits[0].finds, "%s", line)
		}
	}
}
