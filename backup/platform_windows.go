//go:build windows

package backup

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// errReparsePoint is the error of openNoFollow for a symlink or junction.
var errReparsePoint = errors.New("is a symlink or junction: not followed")

// openNoFollow opens path with flag without following a symlink or
// junction at its name: FILE_FLAG_OPEN_REPARSE_POINT opens the link
// itself, which is then refused. The handle shares read, write and
// delete access, as an open file on unix does: ccsurgeon's own open copy
// of a session never stops it from being replaced or removed.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	default:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_CREATE != 0 {
		access |= windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 && flag&os.O_TRUNC == 0 {
		// as os.OpenFile does: every write right but FILE_WRITE_DATA, so
		// that each write goes to the end
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.FILE_WRITE_EA |
			windows.STANDARD_RIGHTS_WRITE | windows.SYNCHRONIZE
	}
	disposition := uint32(windows.OPEN_EXISTING)
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.CREATE_NEW
	case flag&os.O_CREATE != 0:
		disposition = windows.OPEN_ALWAYS
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 && flag&os.O_CREATE != 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	h, err := windows.CreateFile(p, access, share, nil, disposition, attrs|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: errReparsePoint}
	}
	if flag&os.O_TRUNC != 0 {
		if err := windows.SetEndOfFile(h); err != nil {
			windows.CloseHandle(h)
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return os.NewFile(uintptr(h), path), nil
}

// lockRegion is where the lock is taken: far past the end of the file,
// so that a lock (mandatory on Windows) never stops another process from
// reading who holds it.
const lockRegionHigh = 0x7fffffff

// lockExclusive takes an exclusive LockFileEx lock on f without waiting:
// held is true when another process has it. Windows drops it when the
// handle is closed or the process ends.
func lockExclusive(f *os.File) (held bool, err error) {
	ol := windows.Overlapped{OffsetHigh: lockRegionHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}

// fileOwner: Windows files have no uid and gid.
func fileOwner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// linkCount is the number of names the open file f has (ok false: not
// known).
func linkCount(f *os.File, _ os.FileInfo) (n uint64, ok bool) {
	var d syscall.ByHandleFileInformation
	if syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d) != nil {
		return 0, false
	}
	return uint64(d.NumberOfLinks), true
}

// chownLike does nothing on Windows: a file's owner is its ACL's, which a
// new file in the same folder inherits.
func chownLike(*os.File, os.FileInfo) error { return nil }

// keepGroup does nothing on Windows (see chownLike).
func keepGroup(string, int) error { return nil }

// fileBasicInfo is FILE_BASIC_INFO.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// changeTime is the ChangeTime of FILE_BASIC_INFO: NTFS sets it on every
// change of the file's data or metadata.
func changeTime(path string) (time.Time, bool) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return time.Time{}, false
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return time.Time{}, false
	}
	defer windows.CloseHandle(h)
	var bi fileBasicInfo
	if windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&bi)), uint32(unsafe.Sizeof(bi))) != nil || bi.ChangeTime == 0 {
		return time.Time{}, false
	}
	ft := windows.Filetime{LowDateTime: uint32(bi.ChangeTime), HighDateTime: uint32(bi.ChangeTime >> 32)}
	return time.Unix(0, ft.Nanoseconds()), true
}

// replaceFile renames tmp over target with MoveFileEx
// (MOVEFILE_REPLACE_EXISTING, MOVEFILE_WRITE_THROUGH). Windows refuses to
// replace a file another program holds open without delete sharing: the
// rename is retried with backoff for replaceBudget, then a *Error says
// which file and why. A read-only target, or one whose permissions forbid
// replacing it, is refused at once, saying which (classifyReplace).
func replaceFile(tmp, target string) error {
	from, err := windows.UTF16PtrFromString(tmp)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(target)
	if err != nil {
		return err
	}
	return retryReplace(target, func() error {
		if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
			return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
		}
		return nil
	}, func(err error) replaceVerdict { return replaceDecision(to, err) }, time.Sleep, replaceBudget)
}

// replaceDecision classifies an error of a rename over to: its code, the
// target's attributes and whether the target opens for deletion (a
// sharing violation there is another program's handle; access denied, its
// permissions).
func replaceDecision(to *uint16, err error) replaceVerdict {
	var code windows.Errno
	if !errors.As(err, &code) {
		return replaceFail
	}
	attrs, aerr := windows.GetFileAttributes(to)
	if aerr != nil {
		attrs = winInvalidAttributes
	}
	open := uint32(0)
	if code == windows.ERROR_ACCESS_DENIED {
		h, oerr := windows.CreateFile(to, windows.DELETE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
			windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
		var oc windows.Errno
		switch {
		case oerr == nil:
			windows.CloseHandle(h)
		case errors.As(oerr, &oc):
			open = uint32(oc)
		}
	}
	return classifyReplace(uint32(code), attrs, open)
}

// isNoSpace reports a full disk or an exhausted quota.
func isNoSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, windows.ERROR_NOT_ENOUGH_QUOTA)
}

// canChangeDir: a folder's ACL says who may remove a file in it, which no
// cheap check answers; the move's own removal says so (nil here).
func canChangeDir(dir string) error { return nil }
