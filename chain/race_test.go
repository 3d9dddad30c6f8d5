//go:build race

package chain

// raceEnabled: the race detector drops a quarter of what a sync.Pool is
// given, so a test of what the renders reuse does not hold under it.
const raceEnabled = true
