package backup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// beneathParts are the names from root down to path, which must be below
// root (openBeneath, removeBeneath: beneath_unix.go, beneath_windows.go).
func beneathParts(root, path string) ([]string, error) {
	// both as absolute paths: a relative config dir names the same files
	if a, err := filepath.Abs(root); err == nil {
		root = a
	}
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("backup: %s is not inside %s", path, root)
	}
	return strings.Split(rel, string(filepath.Separator)), nil
}

// startRoot is the folder every step on the files of the folder dir
// starts from, following no link below it: the config dir when dir lies
// in it by no link (a folder swapped for a link after this check is then
// never followed), else dir itself (a session named by its path
// elsewhere, a new session's -o folder, or a config dir whose projects/
// is a link the user made).
func startRoot(configDir, dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	if cfg, err := filepath.Abs(configDir); err == nil && configDir != "" {
		if _, err := beneathParts(cfg, dir); err == nil && refuseSymlinkBelow(cfg, dir) == nil {
			return cfg
		}
	}
	return dir
}

// makeDirs makes the folder dir and its missing parents below root, the
// one way ccsurgeon makes a folder beneath the config dir: from root down,
// following no link (mkdirBeneath; a folder on the way swapped for a link
// is refused, *SymlinkError), so that no folder (and then no file) is made
// outside root. Each folder p made gets the mode (and as root the owner)
// of like(p), the folder it stands for; 0700 when like is nil or gives
// nil (ccsurgeon's own folders).
func makeDirs(root, dir string, like func(p string) os.FileInfo) error {
	hook("mkdir:" + dir)
	for gone := 0; ; gone++ {
		_, err := mkdirBeneath(root, dir, like)
		if err == nil {
			break
		}
		// a folder on the way, opened or just made, removed before the
		// next was made in it (another run's Unlock removes ccsurgeon's
		// folders it leaves empty): the walk again, from the root
		if !errors.Is(err, fs.ErrNotExist) || gone >= 100 {
			return err
		}
	}
	hook("made:" + dir) // (before anything is written in it)
	return nil
}

// makeDir makes the one folder dir (its parent there) below root,
// following no link on the way: a node already at dir is an error that
// is fs.ErrExist. It gets like(dir)'s mode as makeDirs.
func makeDir(root, dir string, like func(p string) os.FileInfo) error {
	hook("mkdir:" + dir)
	if err := mkdirOneBeneath(root, dir, like); err != nil {
		return err
	}
	hook("made:" + dir) // (before anything is written in it)
	return nil
}
