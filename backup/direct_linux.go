package backup

import (
	"os"
	"syscall"
)

// setDirect turns O_DIRECT on or off for the open file f (fcntl F_SETFL;
// a file system without direct I/O refuses it being turned on).
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		fl, err := fcntl(fd, syscall.F_GETFL, 0)
		if err != nil {
			ferr = err
			return
		}
		if on {
			fl |= syscall.O_DIRECT
		} else {
			fl &^= syscall.O_DIRECT
		}
		_, ferr = fcntl(fd, syscall.F_SETFL, fl)
	}); err != nil {
		return err
	}
	return ferr
}

func fcntl(fd uintptr, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// reserve allocates n bytes of the file f's blocks from off (fallocate,
// mode 0: the file's size grows to off+n; its new bytes read as zeros).
func reserve(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), 0, off, n)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
