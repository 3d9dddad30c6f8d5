package chain

import (
	"math/rand"
	"testing"
)

// TestCompactFormsRoundTrip: what the index holds compactly reads back as
// written, and what it cannot hold so is kept as it is.
func TestCompactFormsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 20000; k++ {
		var id ID
		rng.Read(id[:])
		s := id.String()
		got, ok := parseID(s)
		if !ok || got != id || got.String() != s {
			t.Fatalf("uuid %s: %v %v", s, got, ok)
		}
		ms := rng.Int63n(253402300799999 - 0) // 1970 .. 9999-12-31T23:59:59.999
		ts := formatMillis(ms)
		back, ok := parseMillis(ts)
		if !ok || back != ms {
			t.Fatalf("timestamp %s: %d, want %d (%v)", ts, back, ms, ok)
		}
	}
	for _, s := range []string{"", "A0B1C2D3-0000-4000-8000-000000000000", "a0b1c2d3-0000-4000-8000-00000000000", "a0b1c2d3_0000-4000-8000-000000000000", "agent-test-hash-123"} {
		if _, ok := parseID(s); ok {
			t.Errorf("%q read as a canonical uuid", s)
		}
	}
	for _, s := range []string{"", "2026-01-05T09:00:00Z", "2026-01-05T09:00:00.000+00:00", "2026-02-30T09:00:00.000Z", "1969-12-31T23:59:59.999Z", "2026-01-05T24:00:00.000Z", "2026-01-05t09:00:00.000Z"} {
		if _, ok := parseMillis(s); ok {
			t.Errorf("%q read as a compact timestamp", s)
		}
	}
	// every value comes back through the entry, compact or not
	for _, line := range []string{
		`{"type":"user","uuid":"A0B1C2D3-0000-4000-8000-000000000000","parentUuid":"x","timestamp":"2026-01-05T09:00:00Z","sessionId":"s","message":{"role":"user","content":"hi","id":"m"}}`,
		`{"type":"assistant","uuid":"a0b1c2d3-0000-4000-8000-000000000000","parentUuid":"a0b1c2d3-0000-4000-8000-000000000001","timestamp":"2026-01-05T09:00:00.123Z","message":{"role":"assistant","id":"msg_1","content":[{"type":"text","text":"x"}]}}`,
		`{"type":"user","uuid":"a0b1c2d3-0000-4000-8000-000000000002","uuid":"other","message":{"content":[{"type":"text","text":"prompt"}],"id":"msg_2"}}`,
	} {
		var e Entry
		if !parseEnvelope(&e, []byte(line)) {
			t.Fatalf("not parsed: %s", line)
		}
		var want plainEntry
		oracleParseEnvelope(&want, []byte(line))
		if got := plain(&e); got.UUID != want.UUID || got.ParentUUID != want.ParentUUID || got.Timestamp != want.Timestamp ||
			got.MsgID != want.MsgID || got.TextHead != want.TextHead || got.Type != want.Type || got.SessionID != want.SessionID || got.Role != want.Role {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, want)
		}
	}
}
