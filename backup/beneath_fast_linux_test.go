package backup

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestBeneathShortcutIsTheWalk: the folder of a path below a root, opened
// in one call (openat2) and by the walk (one folder at a time, following
// no link), is the same folder, or both refuse it with the same error.
// A member per kind of path: plain, a link to a folder inside and outside
// the root at each depth, a file where a folder is, a missing folder, a
// link at the root itself (followed: a config dir may be one).
func TestBeneathShortcutIsTheWalk(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	outside := filepath.Join(tmp, "outside")
	for _, d := range []string{"a/b/c", "a/d"} {
		require.NoError(t, os.MkdirAll(filepath.Join(real, d), 0o700))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(outside, "c"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(real, "a", "file"), []byte("x"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(real, "out1")))
	require.NoError(t, os.Symlink(outside, filepath.Join(real, "a", "out2")))
	require.NoError(t, os.Symlink(filepath.Join(real, "a", "b"), filepath.Join(real, "a", "in2")))
	require.NoError(t, os.Symlink("b", filepath.Join(real, "a", "rel2")))
	linkRoot := filepath.Join(tmp, "linkroot")
	require.NoError(t, os.Symlink(real, linkRoot))
	type member struct{ name, root, path string }
	members := []member{
		{"plain", real, "a/b/c/f"},
		{"plain shallow", real, "a/f"},
		{"in the root", real, "f"},
		{"link outside at depth 1", real, "out1/c/f"},
		{"link outside at depth 2", real, "a/out2/c/f"},
		{"link inside at depth 2", real, "a/in2/c/f"},
		{"relative link at depth 2", real, "a/rel2/c/f"},
		{"link as the folder itself", real, "a/out2/f"},
		{"a file where a folder is", real, "a/file/f"},
		{"missing folder", real, "a/none/f"},
		{"root that is a link", linkRoot, "a/b/c/f"},
	}
	t.Run("the shortcut is taken", func(t *testing.T) {
		rfd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		defer unix.Close(rfd)
		fd, ok := dirBeneathFast(rfd, []string{"a", "b", "c"})
		require.True(t, ok, "openat2 refused on this kernel: every walk makes one call a folder")
		unix.Close(fd)
	})
	for _, m := range members {
		t.Run(m.name, func(t *testing.T) { walkAndShortcutAgree(t, m.root, m.path) })
	}
}

// beneathBoth opens the folder of path (below root) by the walk and by
// the shortcut: what each opened (its device and inode; nil: refused)
// and said. (The descriptor is closed once, here: an *os.File made of it
// closed it again when collected, maybe another test's by then.)
func beneathBoth(t *testing.T, root, path string) (walk, fast string, walkID, fastID *[2]uint64) {
	t.Helper()
	open := func(fast bool) (*[2]uint64, string) {
		noFastBeneath = !fast
		defer func() { noFastBeneath = false }()
		fd, base, err := beneathDir(root, path)
		if err != nil {
			return nil, err.Error()
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		require.NoError(t, unix.Fstat(fd, &st))
		return &[2]uint64{st.Dev, st.Ino}, fmt.Sprintf("ok %s", base)
	}
	walkID, walk = open(false)
	fastID, fast = open(true)
	return walk, fast, walkID, fastID
}

// walkAndShortcutAgree: the folder of path (below root, as a path
// relative to it in slashes) opened by the walk and by the shortcut is
// the same folder, or both refuse it with the same words; and making the
// folder makes the same folders, or is refused alike.
func walkAndShortcutAgree(t *testing.T, root, rel string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	walk, fast, wid, fid := beneathBoth(t, root, path)
	assert.Equal(t, walk, fast, "the shortcut says otherwise than the walk")
	if wid != nil && fid != nil {
		assert.Equal(t, *wid, *fid, "another folder opened")
	}
	mk := func(fast bool) string {
		noFastBeneath = !fast
		defer func() { noFastBeneath = false }()
		made, err := mkdirBeneath(root, filepath.Dir(path), nil)
		for _, p := range made { // undone, for the other's turn
			defer os.Remove(p)
		}
		return fmt.Sprint(len(made), err)
	}
	assert.Equal(t, mk(false), mk(true), "making the folder")
}
