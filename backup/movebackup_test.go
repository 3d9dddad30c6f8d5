//go:build unix

package backup

import (
	"os"
	"path/filepath"
	"strings"
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
			assert.NoError(t, verifyChecksum(filepath.Dir(p), p, bf), "%s: the manifest's checksum", bf.Rel)
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
				assert.NoError(t, verifyChecksum(filepath.Dir(p), p, bf))
			}
			assert.True(t, found)
		})
	}
}

// TestMoveBackupChecksumReadAheadIsOfItsBytes: the checksum of a linked
// backup may be read ahead (HashAhead, while the move indexes the
// session), and is taken only when the file backed up is the file read,
// with the same size and time: read for a transcript a client appended to
// after it was read ahead, or for another file with the same size, it is
// read again at the backup, and every checksum is that of the bytes the
// backup holds. A sum read ahead of the file unchanged is the one the
// manifest keeps (a planted one shows it is not read twice).
func TestMoveBackupChecksumReadAheadIsOfItsBytes(t *testing.T) {
	f := newMoveFixture(t.TempDir())
	f.write(t)
	p := f.plan()
	path := func(k int) string { return filepath.Join(f.oldDir, f.ids[k]+".jsonl") }
	planted := strings.Repeat("0", 32)
	plant := func(p string, other string) *FileHash {
		fi, err := os.Stat(other)
		require.NoError(t, err)
		h := &FileHash{done: make(chan struct{}), fi: fi, n: fi.Size(), sum: planted}
		close(h.done)
		return h
	}
	for i := range p.Files {
		switch p.Files[i].From {
		case path(0): // read ahead, then appended to
			h := HashAhead(path(0))
			<-h.done
			require.NoError(t, h.err)
			fh, err := os.OpenFile(path(0), os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = fh.WriteString(`{"type":"user","cwd":"/home/u/old","n":"late"}` + "\n")
			require.NoError(t, err)
			require.NoError(t, fh.Close())
			p.Files[i].Hash = h
		case path(1): // unchanged: its sum read ahead is taken
			p.Files[i].Hash = plant(path(1), path(1))
		case path(2): // a sum of another file of the same size
			p.Files[i].Hash = plant(path(2), path(1))
		}
	}
	res, err := Move(p)
	require.NoError(t, err)
	for k, id := range f.ids {
		b, err := readBackup(res.Backups[id])
		require.NoError(t, err)
		for _, bf := range b.Files {
			if bf.Rel != id+".jsonl" {
				continue
			}
			bp := filepath.Join(res.Backups[id], filepath.FromSlash(bf.Rel))
			if k == 1 {
				assert.Equal(t, planted, bf.XXH128, "the sum read ahead of the unchanged file")
				continue
			}
			assert.NoError(t, verifyChecksum(filepath.Dir(bp), bp, bf), "%s: the checksum of the bytes backed up", bf.Rel)
			fi, err := os.Stat(bp)
			require.NoError(t, err)
			assert.Equal(t, fi.Size(), bf.Size, bf.Rel)
		}
	}
}
