//go:build linux || darwin

package ops

import (
	"syscall"
	"testing"
	"time"
)

// discardAt is a positional writer that keeps nothing (the disk left out).
type discardAt struct{}

func (discardAt) Write(p []byte) (int, error)            { return len(p), nil }
func (discardAt) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamFile measures a plain clone's whole stream of the file
// named by CCSURGEON_BENCH_FILE (read from the page cache, checked,
// renamed on every core), its writes discarded: the CPU a clone spends
// besides the disk (cpu-ms/op) and the wall without it.
func BenchmarkStreamFile(b *testing.B) {
	f := benchSessionFile(b)
	fi, _ := f.Stat()
	r := benchRemapper()
	b.SetBytes(fi.Size())
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		if _, err := r.Stream(discardAt{}, f, fi.Size()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
