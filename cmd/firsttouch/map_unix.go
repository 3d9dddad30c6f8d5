//go:build unix

package main

import "golang.org/x/sys/unix"

// anonMap maps n bytes of fresh anonymous memory (no page touched yet).
func anonMap(n int) ([]byte, func(), error) {
	m, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return m, func() { _ = unix.Munmap(m) }, nil
}
