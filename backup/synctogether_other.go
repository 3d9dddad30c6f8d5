//go:build !linux

package backup

import (
	"errors"
	"os"
)

// syncsTogether: one syncfs for files written together is Linux's (here
// each file is fsynced).
func syncsTogether() bool { return false }

func syncfs1(int) error { return errors.ErrUnsupported }

func localDisk(int64) bool { return false }

// syncGroup: never opened here (syncsTogether is false).
type syncGroup struct{}

func openSyncGroup(string, []string) (*syncGroup, error) { return nil, errors.ErrUnsupported }

func (*syncGroup) add(*os.File, string) error { return errors.ErrUnsupported }

func (*syncGroup) addDirs(string, []string) error { return errors.ErrUnsupported }

func (*syncGroup) sync() error { return errors.ErrUnsupported }

func (*syncGroup) close() {}
