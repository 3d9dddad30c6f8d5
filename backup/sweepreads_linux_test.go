package backup

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestSweepReadsNothingThroughAFolderSwappedForALink: SweepProject (the
// next run's clean-up of a killed new session, before every new session
// and every in-place change) reads a killed creation's list
// (.<id>.jsonl.ccsurgeon-files), the files it names and the marks of its
// folders (.ccsurgeon-incomplete), and lists the project folder and
// file-history/. The project folder swapped for a link to a folder
// outside the config dir as the sweep starts, holding a file of each of
// those kinds, must have nothing there opened or read: the sweep reads
// from the config dir down, following no link (it removed nothing there
// already: TestOwnSweepsRemoveNothingThroughAFolderSwappedForALink). Seen
// by inotify on the outside folders (an open or a read of a file, a
// listing of a folder); the failure names each file and what was done.
func TestSweepReadsNothingThroughAFolderSwappedForALink(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "cfg")
	proj := filepath.Join(cfg, "projects", "-p")
	require.NoError(t, os.MkdirAll(proj, 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "file-history"), 0o700))
	outside := filepath.Join(root, "outside")
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	pid := strconv.Itoa(dead.Process.Pid)
	const newID = "0b0e0a2c-1111-4222-8333-944455556666"
	agent := "agent-0123abcd-a1eb358aa10f9c9a1.jsonl"
	// what one who can write the outside folder puts there: a killed
	// creation's list naming a file beside it, its folder with its mark
	planted := map[string]string{
		"." + newID + ".jsonl" + newFilesSuffix:     pid + "\n" + filepath.Join(proj, newID+".jsonl") + "\n" + filepath.Join(proj, agent) + "\n",
		agent:                                       `{"type":"user"}` + "\n",
		filepath.Join(newID, incompleteMarker):      pid + "\n" + filepath.Join(proj, newID+".jsonl") + "\n",
		filepath.Join("unmarked", "notes.txt"):      "a file\n",
		filepath.Join(newID+"-b", incompleteMarker): "garbled",
	}
	swapped := false
	fd := -1
	watched := map[int32]string{}
	setHook(t, func(step string) {
		if swapped || step != "sweep-temps:"+proj {
			return
		}
		swapped = true
		require.NoError(t, os.Rename(proj, filepath.Join(root, "moved-away")))
		for rel, body := range planted {
			p := filepath.Join(outside, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		}
		require.NoError(t, os.Symlink(outside, proj))
		var err error
		fd, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		require.NoError(t, err)
		for _, d := range []string{outside, filepath.Join(outside, newID), filepath.Join(outside, newID+"-b"), filepath.Join(outside, "unmarked")} {
			wd, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN|unix.IN_ACCESS)
			require.NoError(t, err)
			watched[int32(wd)] = d
		}
	})
	did := SweepProject(cfg, proj)
	TestHook = nil
	require.True(t, swapped, "the sweep never came to %s", proj)
	defer unix.Close(fd)
	t.Logf("the sweep says: %q", did)
	buf := make([]byte, 64<<10)
	n, _ := unix.Read(fd, buf)
	seen := map[string]bool{}
	for off := 0; off+unix.SizeofInotifyEvent <= n; {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		name := ""
		if ev.Len > 0 {
			b := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			for i, c := range b {
				if c == 0 {
					b = b[:i]
					break
				}
			}
			name = string(b)
		}
		what := "opened"
		if ev.Mask&unix.IN_ACCESS != 0 {
			what = "read"
		}
		if name == "" {
			what += " (the folder: listed)"
		}
		seen[filepath.Join(watched[ev.Wd], name)+": "+what] = true
		off += unix.SizeofInotifyEvent + int(ev.Len)
	}
	for _, s := range slices.Sorted(maps.Keys(seen)) {
		t.Errorf("the sweep, through %s swapped for a link, read outside the config dir: %s", proj, s)
	}
}
