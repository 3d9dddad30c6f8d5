//go:build darwin || freebsd || netbsd

package backup

import "syscall"

// removalBarred says why the file at path may not be removed by anyone
// (its user or system immutable or append-only flag, chflags uchg/uappnd/
// schg/sappnd: unlink fails), "" when nothing in the file bars it.
func removalBarred(path string) string {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return ""
	}
	const uImmutable, uAppend, sImmutable, sAppend = 0x2, 0x4, 0x20000, 0x40000
	switch {
	case st.Flags&(uImmutable|sImmutable) != 0:
		return "immutable"
	case st.Flags&(uAppend|sAppend) != 0:
		return "append-only"
	}
	return ""
}
