//go:build !linux

package backup

import "os"

func startWriteback(*os.File, int64, int64) {}
