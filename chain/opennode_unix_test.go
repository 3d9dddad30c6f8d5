//go:build unix

package chain

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionReadersOpenOnlyFilesAndFolders: what every command reads a
// transcript through (LoadFile, the loader; OpenShared, the streams and
// the readers of a file's head or tail) opens a regular file (or a
// folder, which LoadFile refuses in its own words), and a name that leads
// to anything else once the session was located is an error at once,
// naming it: a named pipe with no writer (a plain open waits forever), a
// device (/dev/zero would be read without end), a socket. A member per
// reader and per kind.
func TestSessionReadersOpenOnlyFilesAndFolders(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	sock := filepath.Join(dir, "s.jsonl")
	l, err := net.Listen("unix", sock)
	if err == nil {
		defer l.Close()
	}
	kinds := []struct{ name, path, says string }{
		{"a named pipe", fifo, "a named pipe"},
		{"a device", "/dev/zero", "a device"},
	}
	if err == nil {
		// (open(2) refuses a socket itself: any error, at once)
		kinds = append(kinds, struct{ name, path, says string }{"a socket", sock, ""})
	}
	readers := []struct {
		name string
		open func(p string) error
	}{
		{"LoadFile", func(p string) error {
			f, err := LoadFile(p)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"OpenShared", func(p string) error {
			fh, err := OpenShared(p)
			if err == nil {
				fh.Close()
			}
			return err
		}},
	}
	for _, r := range readers {
		for _, k := range kinds {
			t.Run(r.name+"/"+k.name, func(t *testing.T) {
				done := make(chan error, 1)
				go func() { done <- r.open(k.path) }()
				select {
				case err := <-done:
					require.Error(t, err)
					if k.says != "" {
						assert.Contains(t, err.Error(), "is not a regular file ("+k.says+")")
					}
				case <-time.After(5 * time.Second):
					t.Fatal("still opening it after 5 s")
				}
			})
		}
	}
	// the readers of a file's head answer no at once
	heads := []struct {
		name string
		read func(p string) bool
	}{
		{"IsSubagentTranscript", IsSubagentTranscript},
		{"firstSessionIDIs", func(p string) bool { return firstSessionIDIs(p, "x") }},
	}
	for _, r := range heads {
		for _, k := range kinds {
			t.Run(r.name+"/"+k.name, func(t *testing.T) {
				done := make(chan bool, 1)
				go func() { done <- r.read(k.path) }()
				select {
				case got := <-done:
					require.False(t, got)
				case <-time.After(5 * time.Second):
					t.Fatal("still opening it after 5 s")
				}
			})
		}
	}
	// a regular file and a folder open as before; the file without the
	// flag that kept the open from waiting
	file := filepath.Join(dir, "a.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("{}\n"), 0o600))
	for _, p := range []string{file, dir} {
		fh, err := OpenShared(p)
		require.NoError(t, err, p)
		if p == file {
			rc, err := fh.SyscallConn()
			require.NoError(t, err)
			var fl int
			require.NoError(t, rc.Control(func(fd uintptr) {
				r, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
				fl = int(r)
			}))
			assert.Zero(t, fl&syscall.O_NONBLOCK, "O_NONBLOCK left on the file")
		}
		fh.Close()
	}
}
