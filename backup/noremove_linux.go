package backup

import "golang.org/x/sys/unix"

// removalBarred says why the file at path may not be removed by anyone
// (its append-only or immutable attribute, chattr +a/+i: unlink fails,
// even as root), "" when nothing in the file bars it.
func removalBarred(path string) string {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, 0, &st) != nil {
		return ""
	}
	switch has := st.Attributes & st.Attributes_mask; {
	case has&unix.STATX_ATTR_IMMUTABLE != 0:
		return "immutable"
	case has&unix.STATX_ATTR_APPEND != 0:
		return "append-only"
	}
	return ""
}
