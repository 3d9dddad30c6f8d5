package cli

import (
	"bytes"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// startHeapProfile, for developers (CCSURGEON_HEAPPROFILE=FILE), keeps the
// heap profile taken when the live heap was at its largest and writes it
// to FILE when stop is called: what a command holds at its peak, where a
// profile at exit shows what is left (read it with go tool pprof
// -sample_index=inuse_space). The live heap is read every 5 ms; the
// profile is as of the last collection, as every heap profile is.
func startHeapProfile(path string) (stop func()) {
	var (
		mu   sync.Mutex
		best []byte
		max  uint64
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if live := sample[0].Value.Uint64(); live > max+max/50 {
				var b bytes.Buffer
				if pprof.Lookup("heap").WriteTo(&b, 0) == nil {
					mu.Lock()
					max, best = live, b.Bytes()
					mu.Unlock()
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		if best != nil {
			_ = os.WriteFile(path, best, 0o644)
		}
	}
}
