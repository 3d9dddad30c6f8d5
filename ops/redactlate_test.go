package ops

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/ccsurgeon/ccsurgeon/ops/redact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A line rewritten as the result is written is held, until the writer
// takes it, in a buffer of the power-of-two class of its own length, not
// of the input line's length plus slack: the secrets shape's 9 KB lines
// become 5–8 KB, and a few hundred of them are in flight, so a buffer of
// the bigger class doubled what the write held and kept the heap at the
// memory limit (the collector ran every few milliseconds). Members: a
// line that shrinks below the class of its input, one that stays in it,
// one whose placeholders are longer than its secrets.
func TestRedactLateLineHasTheRoomOfItsOwnLength(t *testing.T) {
	sc, err := redact.New(redact.Options{})
	require.NoError(t, err)
	key := func(k int) string { // 108 bytes, replaced by a placeholder of about 30
		return fmt.Sprintf("sk-ant-api03-X8sC1utB05w3ncRGRN82i2NFk7tYz9aWCamSeBFzGvxEqcCl-xBYlvtggssiyVZ5muNnG7jiLsjGyjvzZk5s%06dAA", k)
	}
	short := func(k int) string { // 20 bytes, replaced by a longer placeholder
		return fmt.Sprintf("AKIAGZMIEGPCRY%06d", k)
	}
	cases := []struct {
		name string
		text func() string
	}{
		{"shrinks-below-its-class", func() string {
			var b strings.Builder
			for k := 0; b.Len() < 9000; k++ {
				fmt.Fprintf(&b, "ANTHROPIC_API_KEY=%s\\nsome words in between ", key(k))
			}
			return b.String()
		}},
		{"stays-in-its-class", func() string {
			return strings.Repeat("plain words ", 300) + "ANTHROPIC_API_KEY=" + key(1)
		}},
		{"placeholders-longer-than-secrets", func() string {
			var b strings.Builder
			for k := 0; b.Len() < 3000; k++ {
				fmt.Fprintf(&b, "aws_access_key_id = %s\\n", short(k))
			}
			return b.String()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "3c1d2e4f-0000-4000-8000-00000000beef.jsonl")
			line := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + c.text() + `"},"uuid":"5cef7761-0000-4000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"3c1d2e4f-0000-4000-8000-00000000beef"}` + "\n"
			require.NoError(t, os.WriteFile(p, []byte(line), 0o600))
			s, err := chain.Load(p)
			require.NoError(t, err)
			defer s.Close()
			tx := NewTxn(s)
			require.NoError(t, RedactSecrets{Scanner: sc}.Apply(tx))
			fn := tx.late[s.Main][0]
			require.NotNil(t, fn, "the line is rewritten as it is written")
			out, err := fn(0, []byte(strings.TrimSuffix(line, "\n")))
			require.NoError(t, err)
			require.NotContains(t, string(out), "ANTHROPIC_API_KEY="+key(1)[:20])
			require.Contains(t, string(out), "[REDACTED:")
			class := 1 << max(10, bits.Len(uint(len(out)-1)))
			assert.LessOrEqual(t, cap(out), class, "a line of %d bytes (input %d) held in a buffer of %d", len(out), len(line)-1, cap(out))
		})
	}
}
