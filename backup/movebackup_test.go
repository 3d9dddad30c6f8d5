//go:build unix

package backup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveBacksUpByLink: a move's backup of a file it moves is the file
// itself under a second name (a hard link), not a copy: the old name goes
// at the end of the move, so the backup is the only name the original's
// bytes keep, and a copy wrote (and fsynced) the whole session once more
// for nothing (a third of move's time on a chain of a million entries).
// The backup still says what the original was (size, checksum, mode) and
// restores it byte for byte.
func TestMoveBacksUpByLink(t *testing.T) {
	f := newMoveFixture(t.TempDir())
	f.write(t)
	before := map[string]os.FileInfo{}
	for rel := range f.files() {
		fi, err := os.Lstat(filepath.Join(f.oldDir, rel))
		require.NoError(t, err)
		before[rel] = fi
	}
	res, err := Move(f.plan())
	require.NoError(t, err)
	for _, id := range f.ids {
		bdir := res.Backups[id]
		require.NotEmpty(t, bdir)
		b, err := readBackup(bdir)
		require.NoError(t, err)
		require.NotEmpty(t, b.Files)
		for _, bf := range b.Files {
			p := filepath.Join(bdir, filepath.FromSlash(bf.Rel))
			fi, err := os.Lstat(p)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before[bf.Rel], fi), "%s: the backup is the original file, linked", bf.Rel)
			assert.Equal(t, f.files()[bf.Rel], readString(t, p), "%s: the original's bytes", bf.Rel)
			assert.NoError(t, verifySHA256(p, bf.SHA256), "%s: the manifest's checksum", bf.Rel)
			assert.Equal(t, before[bf.Rel].Mode().Perm(), bf.Mode, "%s: the original's mode", bf.Rel)
			assert.Equal(t, before[bf.Rel].Size(), bf.Size)
		}
	}
}

// TestMoveBackupHoldsNoLinesAppendedAfterIt: a line a client appends to
// the old file after the move's point of no return is carried over to the
// new file (TestMoveKeepsLinesAppendedDuringTheMove); the backup, the old
// file under a second name, must still be the session as it was backed
// up, or restore refuses it as damaged and the move cannot be undone.
func TestMoveBackupHoldsNoLinesAppendedAfterIt(t *testing.T) {
	for _, step := range []string{"move-after-commit-mark", "move-after-edits"} {
		t.Run(step, func(t *testing.T) {
			f := newMoveFixture(t.TempDir())
			f.write(t)
			rel := f.ids[0] + ".jsonl"
			from := filepath.Join(f.oldDir, rel)
			setHook(t, func(s string) {
				if s == step {
					a, err := os.OpenFile(from, os.O_WRONLY|os.O_APPEND, 0)
					require.NoError(t, err)
					_, err = a.WriteString(`{"type":"user","cwd":"/home/u/old","late":true}` + "\n")
					require.NoError(t, err)
					require.NoError(t, a.Close())
				}
			})
			res, err := Move(f.plan())
			require.NoError(t, err)
			b, err := readBackup(res.Backups[f.ids[0]])
			require.NoError(t, err)
			found := false
			for _, bf := range b.Files {
				if bf.Rel != rel {
					continue
				}
				found = true
				p := filepath.Join(res.Backups[f.ids[0]], rel)
				assert.Equal(t, f.files()[rel], readString(t, p), "the backup is the session as it was backed up")
				assert.NoError(t, verifySHA256(p, bf.SHA256))
			}
			assert.True(t, found)
		})
	}
}
