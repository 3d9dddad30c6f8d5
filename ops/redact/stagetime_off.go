//go:build !redactstages

package redact

// stageTiming is off: the scan's stage clock (stagetime_on.go) is built
// only with -tags redactstages; the calls under `if stageTiming` compile to
// nothing.
const stageTiming = false

const (
	stagePrefilter = -1 - iota
	stageSweep
	stageResolve
)

func stageStart() int64   { return 0 }
func stageEnd(int64, int) {}
func stageEnter() bool    { return false }
func stageLeave(bool)     {}
