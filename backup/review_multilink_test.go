//go:build unix

package backup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveBacksUpAFileWithAnotherNameByCopy: a move's backup is the old
// file under a second name (TestMoveBacksUpByLink), safe because the move
// removes the old name: no one writes that file again. A session file
// that already has another name (a hard link the user made, the same
// transcript in a second folder) is still written through that name after
// the move; a backup that is that file changes with it (restore refuses
// it as damaged), and the cut of the lines carried over to the new file
// took them from the other name. Such a file is backed up by copy: the
// backup verifies after the other name grows, and the other name keeps
// every line the client wrote.
func TestMoveBacksUpAFileWithAnotherNameByCopy(t *testing.T) {
	f := newMoveFixture(t.TempDir())
	f.write(t)
	rel := f.ids[0] + ".jsonl"
	from := filepath.Join(f.oldDir, rel)
	other := filepath.Join(t.TempDir(), "also.jsonl")
	require.NoError(t, os.Link(from, other))
	const late = `{"type":"user","cwd":"/home/u/old","late":true}` + "\n"
	setHook(t, func(s string) {
		if s == "move-after-edits" {
			a, err := os.OpenFile(from, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = a.WriteString(late)
			require.NoError(t, err)
			require.NoError(t, a.Close())
		}
	})
	res, err := Move(f.plan())
	require.NoError(t, err)
	TestHook = nil
	assert.True(t, readString(t, other) == f.files()[rel]+late, "the other name keeps the line written during the move")

	// the client goes on through the other name
	a, err := os.OpenFile(other, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = a.WriteString(`{"type":"user","after":true}` + "\n")
	require.NoError(t, err)
	require.NoError(t, a.Close())

	b, err := readBackup(res.Backups[f.ids[0]])
	require.NoError(t, err)
	found := false
	for _, bf := range b.Files {
		if bf.Rel == rel {
			found = true
			p := filepath.Join(res.Backups[f.ids[0]], rel)
			assert.NoError(t, verifyChecksum(filepath.Dir(p), p, bf), "the backup is the session as it was backed up")
		}
	}
	assert.True(t, found)
}
