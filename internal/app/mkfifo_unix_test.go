//go:build unix

package app

import "syscall"

// canMkfifo: named pipes in the file system (windows has none there).
const canMkfifo = true

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }
