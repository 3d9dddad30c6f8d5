//go:build linux && benchcpu

package chain

import (
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time of the calling thread (RUSAGE_THREAD, 1):
// what a loop cost, whatever else the machine runs meanwhile.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestScanStringCPU compares scanString with the scan as it was
// (prevScanString) in CPU time of this thread rather than wall time, for
// a machine shared with other work (where the ns/op of
// BenchmarkScanString vary 2-4x between runs): each set of scanSets
// scanned ~200 MB by each, in turn, nine rounds; it prints the median
// speedup and MB per CPU-second. A measurement, built only with its tag
// (the test run does not list it as skipped):
// go test -tags benchcpu ./chain -run ScanStringCPU -v
func TestScanStringCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, set := range scanSets(t) {
		var n int64
		for _, s := range set.strs {
			n += int64(len(s))
		}
		reps := max(1, int(200e6/n))
		var speedup, newMB, prevMB []float64
		for range 9 {
			var d [2]time.Duration
			for k, fn := range []func([]byte, int) (int, bool, bool){scanString, prevScanString} {
				t0 := threadCPU()
				for range reps {
					for _, s := range set.strs {
						fn(s, 0)
					}
				}
				d[k] = threadCPU() - t0
			}
			speedup = append(speedup, float64(d[1])/float64(d[0]))
			newMB = append(newMB, float64(n)*float64(reps)/d[0].Seconds()/1e6)
			prevMB = append(prevMB, float64(n)*float64(reps)/d[1].Seconds()/1e6)
		}
		for _, s := range [][]float64{speedup, newMB, prevMB} {
			sort.Float64s(s)
		}
		t.Logf("%-18s speedup median %.2fx (min %.2f, max %.2f); new %.0f MB/CPU-s, prev %.0f", set.name, speedup[4], speedup[0], speedup[8], newMB[4], prevMB[4])
	}
}
