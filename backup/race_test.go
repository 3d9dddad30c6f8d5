//go:build race

package backup

// raceEnabled shrinks the fault-injection test under the race detector.
const raceEnabled = true
