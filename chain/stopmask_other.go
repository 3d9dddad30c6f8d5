//go:build !amd64

package chain

import "unsafe"

// fastMasks: no vector code here; lines are scanned without masks (the
// masks in Go cost more than they save).
const fastMasks = false

// stopMasks64 is stopMasksGo (only the tests call it here).
func stopMasks64(b *byte, n int, m *uint64) {
	stopMasksGo(unsafe.Slice(b, 64*n), unsafe.Slice(m, n))
}
