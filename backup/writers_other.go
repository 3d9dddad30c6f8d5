//go:build !linux

package backup

// WriterCheck says how ccsurgeon tells that another process is writing a
// session file on this platform: here no process's open files can be read
// without extra privileges, so only the size and modification-time guard
// (a file that changed since it was read, or was modified in the last
// RecentWriteWindow) stands between a write and a client writing the file.
const WriterCheck = "mtime"

// findWriter finds nothing on this platform.
func findWriter([]string) (pid int, name, path string, ok bool) {
	return 0, "", "", false
}
