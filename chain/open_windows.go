//go:build windows

package chain

import (
	"os"

	"golang.org/x/sys/windows"
)

// openShared opens path for reading as LoadFile keeps it open, sharing
// delete access as well as read and write. os.Open shares only read and
// write, and Windows refuses to rename a file over one that a handle
// without delete sharing holds open: a session loaded to be changed in
// place (it stays open until the new file is renamed over it) made every
// such change fail, ccsurgeon blocking its own rename.
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// FILE_FLAG_BACKUP_SEMANTICS opens a folder too (as os.Open does), so
	// that LoadFile can say it is one
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return nodeOnly(path, os.NewFile(uintptr(h), path))
}
