//go:build !unix

package app

import "errors"

// canMkfifo: windows has no named pipes in the file system (they live in
// \\.\pipe\), so no member plants one.
const canMkfifo = false

func mkfifo(string) error { return errors.New("no named pipes here") }
