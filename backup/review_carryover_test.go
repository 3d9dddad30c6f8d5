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

// TestMoveKilledAroundTheCarryOverKeepsTheLineAndTheBackup: a line a
// client appended to the old file during a move lands, once its name is
// removed, only in the inode the move's backup is (a hard link). A move
// killed after that removal and before the line was carried over to the
// new file and cut from the backup again left the line in the backup
// alone (the next run found no old name and did nothing): the moved
// session lacked the line, and the backup, longer than its manifest
// says, was refused by restore as damaged. The next run must finish that
// step: the line in the new file once, the backup as backed up.
func TestMoveKilledAroundTheCarryOverKeepsTheLineAndTheBackup(t *testing.T) {
	type killed struct{}
	// cut short: the kill came while the lines were written to the new
	// file, part of them there
	for _, step := range []string{"move-old-removed", "move-carried-over", "move-carried-over cut short"} {
		t.Run(step, func(t *testing.T) {
			f := newMoveFixture(t.TempDir())
			f.write(t)
			rel := f.ids[0] + ".jsonl"
			from := filepath.Join(f.oldDir, rel)
			const late = `{"type":"user","cwd":"/home/u/old","late":true}` + "\n"
			setHook(t, func(s string) {
				switch s {
				case "move-after-edits":
					a, err := os.OpenFile(from, os.O_WRONLY|os.O_APPEND, 0)
					require.NoError(t, err)
					_, err = a.WriteString(late)
					require.NoError(t, err)
					require.NoError(t, a.Close())
				case strings.Fields(step)[0]:
					if strings.HasSuffix(step, "cut short") {
						to := filepath.Join(f.newDir, rel)
						fi, err := os.Stat(to)
						require.NoError(t, err)
						require.NoError(t, os.Truncate(to, fi.Size()-20))
					}
					if _, err := os.Lstat(from); os.IsNotExist(err) { // at this file's step
						panic(killed{}) // the run stops here, as a kill would stop it
					}
				}
			})
			func() {
				defer func() {
					_, ok := recover().(killed)
					require.True(t, ok, "the move reached %s", step)
				}()
				Move(f.plan())
			}()
			TestHook = nil

			msgs, err := RecoverMoves(f.cfg)
			require.NoError(t, err)
			t.Log(msgs)
			got := readString(t, filepath.Join(f.newDir, rel))
			assert.True(t, got == relocate(f.files()[rel])+late, "the moved session is the moved copy and the appended line, once; it ends %q", got[max(0, len(got)-100):])
			l, err := List(f.cfg, f.ids[0])
			require.NoError(t, err)
			require.Len(t, l, 1)
			for _, bf := range l[0].Files {
				if bf.Rel != rel {
					continue
				}
				p := filepath.Join(l[0].Dir, rel)
				b := readString(t, p)
				assert.True(t, b == f.files()[rel], "the backup is the session as it was backed up: %d bytes, %d backed up; it ends %q", len(b), len(f.files()[rel]), b[max(0, len(b)-100):])
				assert.NoError(t, verifyChecksum(filepath.Dir(p), p, bf), "restore takes the backup")
			}
		})
	}
}
