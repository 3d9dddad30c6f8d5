package backup

import (
	"strings"

	"golang.org/x/sys/unix"
)

// searchOnly opens a folder on the way of a walk below a root only to
// search it (O_PATH: what openat2 needs of it, no read permission).
const searchOnly = unix.O_PATH

// noFastBeneath turns the shortcut off (tests: the walk and the shortcut
// compared).
var noFastBeneath = false

// dirBeneathFast opens the folder parts (names below the folder root
// holds open) in one call, following no link on the way nor at its name
// and never leaving root (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS: the walk beneathDir makes one folder at a time,
// done by the kernel). It says false on any failure, a kernel without
// openat2 (before 5.6, or one a sandbox refuses) included: the walk then
// runs and says what it met, as it always has. A move of 859 files
// walked 15 times a file, 79 opens each (68,000 opens).
func dirBeneathFast(root int, parts []string) (int, bool) {
	if len(parts) == 0 || noFastBeneath {
		return -1, false
	}
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(root, strings.Join(parts, "/"), &how)
	if err != nil {
		return -1, false
	}
	return fd, true
}
