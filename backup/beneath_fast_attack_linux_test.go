//go:build linux

package backup

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testmount"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestBeneathShortcutIsTheWalkOnOddPaths: the paths where openat2 (the
// shortcut) and the walk (one folder at a time) could part ways: folder
// names of odd bytes, a mount point on the way and as the root, a root
// given as ".", as a relative path, with a trailing slash, through a
// chain of links; a folder on the way that its user may search but not
// list (the walk opened each folder to read it: refused where the
// shortcut went through), and one they may not search (as another user,
// by the thread's fsuid). A member per kind: each opens the same folder both ways, or
// both refuse it with the same words.
func TestBeneathShortcutIsTheWalkOnOddPaths(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	odd := []string{"a\nb", "\xff\xfe", " sp ", "-dash", strings.Repeat("x", 255), "ünï", `a\b`, "...", "a:b*?"}
	for _, n := range odd {
		require.NoError(t, os.MkdirAll(filepath.Join(real, n, "c"), 0o700))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(real, "m"), 0o700))
	type member struct{ name, root, path string }
	var members []member
	for _, n := range odd {
		v := strings.ToValidUTF8(n, "?")
		members = append(members, member{"odd name " + v[:min(len(v), 12)], real, n + "/c/f"})
	}
	members = append(members,
		member{"root with a trailing slash", real + "/", "a\nb/c/f"},
		member{"root through a chain of links", func() string {
			l1, l2 := filepath.Join(tmp, "l1"), filepath.Join(tmp, "l2")
			require.NoError(t, os.Symlink("real", l1))
			require.NoError(t, os.Symlink(l1, l2))
			return l2
		}(), "-dash/c/f"},
	)
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) { walkAndShortcutAgree(t, m.root, m.path) })
	}
	t.Run("a mount point on the way", func(t *testing.T) {
		testmount.Tmpfs(t, filepath.Join(real, "m"), "64k")
		require.NoError(t, os.MkdirAll(filepath.Join(real, "m", "in", "deep"), 0o700))
		walkAndShortcutAgree(t, real, "m/in/deep/f")
		walkAndShortcutAgree(t, filepath.Join(real, "m"), "in/deep/f")
		walkAndShortcutAgree(t, real, "m/f")
	})
	t.Run("a relative root", func(t *testing.T) {
		t.Chdir(tmp)
		walkAndShortcutAgree(t, "real", "-dash/c/f")
		walkAndShortcutAgree(t, "./real/", " sp /c/f")
	})
	t.Run("the root as .", func(t *testing.T) {
		t.Chdir(real)
		walkAndShortcutAgree(t, ".", "-dash/c/f")
	})
	if os.Geteuid() != 0 {
		return // (the members below act as another user by the fsuid: root only)
	}
	for _, mode := range []os.FileMode{0o311, 0o600, 0o000} {
		t.Run("a folder on the way of mode "+mode.String()+" as its owner, not root", func(t *testing.T) {
			asUser := filepath.Join(t.TempDir(), "u")
			require.NoError(t, os.MkdirAll(filepath.Join(asUser, "a", "b", "c"), 0o700))
			for p := asUser; p != "/"; p = filepath.Dir(p) { // reachable by the user
				if p == asUser || strings.HasPrefix(p, filepath.Clean(os.TempDir())+"/") {
					require.NoError(t, os.Chmod(p, 0o755))
				}
			}
			require.NoError(t, filepath.Walk(asUser, func(p string, _ os.FileInfo, err error) error {
				if err == nil {
					err = os.Lchown(p, 65534, 65534)
				}
				return err
			}))
			require.NoError(t, os.Chmod(filepath.Join(asUser, "a"), mode))
			defer os.Chmod(filepath.Join(asUser, "a"), 0o700)
			// the thread acts as the folder's owner (fsuid, fsgid: the
			// ones permission checks use), never as root, until it is done
			runtime.LockOSThread()
			prevGID, _ := unix.SetfsgidRetGid(65534)
			prevUID, _ := unix.SetfsuidRetUid(65534)
			walk, fast, _, _ := beneathBoth(t, asUser, filepath.Join(asUser, "a", "b", "c", "f"))
			unix.Setfsuid(prevUID)
			unix.Setfsgid(prevGID)
			runtime.UnlockOSThread()
			require.Equal(t, walk, fast, "the shortcut says otherwise than the walk")
		})
	}
}
