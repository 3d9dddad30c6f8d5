//go:build !linux

package backup

// findWriter finds nothing on this platform: no process's open files can
// be read here without extra privileges (macOS would need lsof's
// libproc calls per process, Windows the Restart Manager), so only the
// size and modification-time guard (a file that changed since it was
// read, or was modified in the last RecentWriteWindow) stands between a
// write and a client writing the file. --help and the README say so.
func findWriter([]string) (pid int, name, path string, ok bool) {
	return 0, "", "", false
}
