package chain

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTimeIsTheParsedTimestamp: Entry.Time, which validate reads instead
// of parsing Timestamp, is what parsing Timestamp gives, for every form a
// timestamp takes (the compact one held as milliseconds, and the others
// kept as written).
func TestTimeIsTheParsedTimestamp(t *testing.T) {
	stamps := []string{
		"2026-01-05T09:00:00.000Z", "1970-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z",
		"2026-01-05T09:00:00Z", "2026-01-05T09:00:00.123456Z", "2026-01-05T10:00:00.000+01:00",
		"1969-12-31T23:59:59.000Z", "2026-13-05T09:00:00.000Z", "not a time", "",
	}
	var b strings.Builder
	for k, ts := range stamps {
		fmt.Fprintf(&b, `{"type":"user","uuid":"00000000-0000-4000-8000-%012d","parentUuid":null,"timestamp":%q,"message":{"role":"user","content":"hi"}}`+"\n", k, ts)
	}
	f, err := LoadBytes("t.jsonl", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		want, err := time.Parse(time.RFC3339Nano, e.Timestamp())
		got, ok := e.Time()
		if ok != (err == nil) || (ok && !got.Equal(want)) {
			t.Errorf("%q: Time() = %v, %v; parsing Timestamp() %q gives %v, %v", stamps[i], got, ok, e.Timestamp(), want, err)
		}
	}
}
