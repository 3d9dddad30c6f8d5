package app

import "os"

// hostShell: commands printed on Windows are PowerShell's (shell.go),
// but a POSIX shell's when ccsurgeon runs in Git Bash (or another MSYS2
// shell: MSYSTEM set), where the client's users often start it.
func hostShell() shell {
	if os.Getenv("MSYSTEM") != "" {
		return posixShell
	}
	return powerShell
}
