package chain

// fastMasks: every amd64 machine has SSE2, which stopMasks64 uses.
const fastMasks = true

// stopMasks64 writes the stop masks of the n 64-byte words at b to m
// (n words): SSE2 compares, 16 bytes at a time.
//
//go:noescape
func stopMasks64(b *byte, n int, m *uint64)
