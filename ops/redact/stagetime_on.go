//go:build redactstages

package redact

import "time"

// The scan's stage clock, for BenchmarkScanPerRule (go test -tags
// redactstages): the time of the top-level Scan's prefilter, its encoded
// sweep (with the scans of what it decodes), each rule (by index) and the
// overlap resolution. Not safe for concurrent scans: a benchmark's only.
const stageTiming = true

const (
	stagePrefilter = -1 - iota
	stageSweep
	stageResolve
	stageCount = 3
)

var (
	stageNanos []int64 // stageCount + rule index
	stageCalls []int64
	stageDepth int
)

func stageStart() int64 {
	if stageDepth != 1 {
		return 0
	}
	return time.Now().UnixNano()
}

// stageEnd adds the time since t0 to stage st (a rule index, or one of the
// stage constants); nested scans (depth > 1) are counted in their caller's stage.
func stageEnd(t0 int64, st int) {
	if stageDepth != 1 {
		return
	}
	i := st + stageCount
	for len(stageNanos) <= i {
		stageNanos = append(stageNanos, 0)
		stageCalls = append(stageCalls, 0)
	}
	stageNanos[i] += time.Now().UnixNano() - t0
	stageCalls[i]++
}

func stageEnter() bool { stageDepth++; return true }
func stageLeave(bool)  { stageDepth-- }

func resetStages() { stageNanos, stageCalls = nil, nil }
