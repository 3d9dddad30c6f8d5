//go:build unix

package backup

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBeneathFollowsNoLinkOnTheWay: a read (CopyBeneath) or a removal
// (removeBeneath) of a file below a root, one of whose folders is a link
// to a folder elsewhere holding a file of that name, neither reads nor
// removes that file: a *SymlinkError names the link. A link at the root
// itself is followed (a config dir may be one). A member per depth of
// the link.
func TestBeneathFollowsNoLinkOnTheWay(t *testing.T) {
	for _, depth := range []string{"first", "deeper"} {
		t.Run(depth, func(t *testing.T) {
			tmp := t.TempDir()
			real := filepath.Join(tmp, "real-root")
			root := filepath.Join(tmp, "root") // a link to the real root: followed
			outside := filepath.Join(tmp, "outside")
			require.NoError(t, os.MkdirAll(filepath.Join(real, "a"), 0o700))
			require.NoError(t, os.Symlink(real, root))
			require.NoError(t, os.MkdirAll(outside, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside"), 0o600))
			link := filepath.Join(root, "b")
			if depth == "deeper" {
				link = filepath.Join(root, "a", "b")
			}
			require.NoError(t, os.Symlink(outside, link))
			path := filepath.Join(link, "f.txt")
			var se *SymlinkError
			err := CopyBeneath(root, path)(io.Discard)
			require.True(t, errors.As(err, &se), "the copy read through %s: %v", link, err)
			assert.Equal(t, link, se.Path)
			err = removeBeneath(root, path)
			require.True(t, errors.As(err, &se), "the removal went through %s: %v", link, err)
			assert.FileExists(t, filepath.Join(outside, "f.txt"))
			// and a file below the root by no link is read and removed
			ok := filepath.Join(root, "a", "ok.txt")
			require.NoError(t, os.WriteFile(ok, []byte("mine"), 0o600))
			require.NoError(t, CopyBeneath(root, ok)(io.Discard))
			require.NoError(t, removeBeneath(root, ok))
			assert.NoFileExists(t, filepath.Join(real, "a", "ok.txt"))
		})
	}
}
