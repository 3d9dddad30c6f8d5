//go:build unix

package backup

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopiesReadOnlyRegularFiles: the two readers that copy a session's
// files (CopyFrom: a move's new files, a clone's sidecars, an undo's
// saved copies; copyFileSynced: every backup) read a regular file and
// nothing else, whatever a check of the name said before: a link (to a
// file outside the config dir, to a folder), a named pipe (with no
// writer: it would wait forever; with a writer that never writes: the
// same), a socket, a device are each a *NotAFileError naming the path and
// its kind, at once. A member per reader and per kind.
func TestCopiesReadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("outside bytes"), 0o600))
	nodes := map[string]func(p string) (kind string){
		"link-to-file": func(p string) string { require.NoError(t, os.Symlink(outside, p)); return "a symbolic link" },
		"link-to-dir":  func(p string) string { require.NoError(t, os.Symlink(dir, p)); return "a symbolic link" },
		"dangling":     func(p string) string { require.NoError(t, os.Symlink(p+"-gone", p)); return "a symbolic link" },
		"fifo":         func(p string) string { require.NoError(t, syscall.Mkfifo(p, 0o600)); return "a named pipe" },
		"fifo-held-open": func(p string) string {
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			// a writer that never writes: a read would wait for it
			go func() {
				if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					t.Cleanup(func() { w.Close() })
				}
			}()
			return "a named pipe"
		},
		"socket": func(p string) string {
			l, err := net.Listen("unix", p)
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			return "a socket"
		},
		"folder": func(p string) string { require.NoError(t, os.Mkdir(p, 0o700)); return "a folder" },
	}
	readers := map[string]func(p string) error{
		"CopyFrom":    func(p string) error { return CopyFrom(p)(io.Discard) },
		"CopyBeneath": func(p string) error { return CopyBeneath(dir, p)(io.Discard) },
		"backup": func(p string) error {
			_, err := copyFileSynced(dir, p, dir, filepath.Join(dir, "copies", filepath.Base(p)))
			return err
		},
	}
	for rname, read := range readers {
		for nname, mk := range nodes {
			t.Run(rname+"/"+nname, func(t *testing.T) {
				p := filepath.Join(dir, rname+"-"+nname)
				kind := mk(p)
				done := make(chan error, 1)
				go func() { done <- read(p) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s waited on %s", rname, kind)
				}
				var na *NotAFileError
				require.True(t, errors.As(err, &na), "%s read %s: %v", rname, kind, err)
				assert.Equal(t, p, na.Path)
				assert.Equal(t, kind, na.Kind)
				_, serr := os.Lstat(filepath.Join(dir, "copies", filepath.Base(p)))
				assert.True(t, os.IsNotExist(serr), "a copy was left")
			})
		}
		t.Run(rname+"/device", func(t *testing.T) {
			var na *NotAFileError
			require.True(t, errors.As(read(os.DevNull), &na))
			assert.Equal(t, "a device", na.Kind)
		})
	}
}

// TestDiffReadsOnlyRegularFiles: diff's reader (FileOpener) reads a
// regular file and nothing else: a session file swapped for a named pipe
// after the session was located (no writer: a plain open waits forever),
// or for a device, is an error at once, not a diff that never ends.
func TestDiffReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("{}\n"), 0o600))
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, m := range []struct{ name, path string }{{"a named pipe", fifo}, {"a device", os.DevNull}} {
		t.Run(m.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := DiffStream(FileOpener(file), FileOpener(m.path), io.Discard, DiffOptions{NameA: file, NameB: m.path})
				done <- err
			}()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), "not a regular file")
			case <-time.After(5 * time.Second):
				t.Fatal("diff still waiting on it after 5 s")
			}
		})
	}
}
