//go:build !linux

package backup

import (
	"errors"
	"os"
)

// setDirect: direct writes are Linux's here (elsewhere plain writes).
func setDirect(_ *os.File, on bool) error {
	if on {
		return errors.ErrUnsupported
	}
	return nil
}

// reserve: no direct writes here, nothing to allocate ahead.
func reserve(*os.File, int64, int64) error { return errors.ErrUnsupported }
