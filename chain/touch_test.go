package chain

import (
	"runtime/debug"
	"sync"
	"testing"
)

// TestMakeTouchedRestoresTheCollector: makeTouched holds the collector off
// while it writes the pages; calls made at once (the loads of a session's
// subagent files) must leave the setting as it was, and every slice whole
// and zero.
func TestMakeTouchedRestoresTheCollector(t *testing.T) {
	was := debug.SetGCPercent(73)
	defer debug.SetGCPercent(was)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				s := makeTouched[Entry](n + k)
				if len(s) != n+k {
					t.Errorf("len %d, want %d", len(s), n+k)
					return
				}
				for i := range s {
					if s[i] != (Entry{}) {
						t.Errorf("entry %d of %d not zero", i, len(s))
						return
					}
				}
			}
		}(g * 5000)
	}
	wg.Wait()
	if got := debug.SetGCPercent(73); got != 73 {
		t.Fatalf("GC percent after makeTouched = %d, want 73", got)
	}
}
