//go:build linux

package backup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsurgeon/ccsurgeon/internal/testmount"
	"github.com/stretchr/testify/require"
)

// TestNewFolderNotLeftWhenItsMarkCannotBeWritten: NewFiles.Folder makes a
// folder and then writes the mark that lets the next run sweep it; on a
// full disk the mark fails, and the folder it made must go with it (it was
// left, unmarked: no sweep ever removed it). Seen as a 1-in-100 failure of
// TestNewSessionOnAFullDisk, whose main transcript filled the disk while
// the copies' folders were being made.
func TestNewFolderNotLeftWhenItsMarkCannotBeWritten(t *testing.T) {
	root := t.TempDir()
	testmount.Tmpfs(t, root, "64k")
	proj := filepath.Join(root, "projects", "-p")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	// fill the disk
	f, err := os.Create(filepath.Join(root, "fill"))
	require.NoError(t, err)
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	require.NoError(t, f.Close())
	nf := BeginNew(root, filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl"))
	defer nf.Done()
	dir := filepath.Join(proj, "11111111-2222-4333-8444-555555555555")
	err = nf.Folder(dir)
	require.Error(t, err, "the mark was written on a full disk")
	_, serr := os.Lstat(dir)
	require.True(t, os.IsNotExist(serr), "the folder was left without its mark: %v", serr)
}
