package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccsurgeon/ccsurgeon/backup"
	"github.com/ccsurgeon/ccsurgeon/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoreReadsNoNodeSwappedIntoItsBackup: a restore checks each file
// of the backup against its checksum, then copies it back. A backup file
// swapped after that check (as the restore backs up the session as it is
// now) for a link to a file outside the config dir must not have the
// outside file's bytes copied into the session, and a named pipe must not
// hang the restore: refused, naming the file (a *NotAFileError), and the
// session as it was. A member per kind of node.
func TestRestoreReadsNoNodeSwappedIntoItsBackup(t *testing.T) {
	kinds := []string{"link"}
	if canMkfifo {
		kinds = append(kinds, "fifo")
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			e := newMoveEnv(t, "subagent", "old")
			env := &Env{ConfigDir: e.cfg, Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Quiet: true}
			require.NoError(t, env.RunOps(e.id, OpSpec{Drop: true, DropTools: []string{"Agent"}}, Dest{Force: true}))
			proj := filepath.Join(e.cfg, "projects", chain.ProjectSlug(e.old))
			before, err := os.ReadFile(filepath.Join(proj, e.id+".jsonl"))
			require.NoError(t, err)
			var backups []string
			all, _ := filepath.Glob(filepath.Join(backup.BackupsRoot(e.cfg), "*", "*"))
			for _, b := range all {
				if fi, err := os.Stat(b); err == nil && fi.IsDir() {
					backups = append(backups, b)
				}
			}
			require.Len(t, backups, 1)
			victim := filepath.Join(backups[0], e.id+".jsonl")
			secret := filepath.Join(e.root, "outside-secret.txt")
			var once sync.Once
			backup.TestHook = func(s string) {
				if s == "backup-copying" {
					once.Do(func() { swapNode(t, victim, kind, secret) })
				}
			}
			defer func() { backup.TestHook = nil }()
			done := make(chan struct{})
			go func() {
				defer close(done)
				err = env.RunRestore(e.id, "", true)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				if f, oerr := os.OpenFile(victim, os.O_WRONLY, 0); oerr == nil {
					f.Close()
				}
				<-done
				t.Fatalf("the restore waited on a named pipe in its backup, until let go; then said: %v", err)
			}
			backup.TestHook = nil
			require.Error(t, err, "the restore went on with a %s in its backup", kind)
			var na *backup.NotAFileError
			require.True(t, errors.As(err, &na), "not a typed refusal: %T %v", err, err)
			assert.Equal(t, victim, na.Path)
			after, rerr := os.ReadFile(filepath.Join(proj, e.id+".jsonl"))
			require.NoError(t, rerr)
			assert.False(t, strings.Contains(string(after), "SSSSSSSS"), "the outside file's bytes were copied into the session")
			assert.Equal(t, string(before), string(after), "the refused restore changed the session")
		})
	}
}
