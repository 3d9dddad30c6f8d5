package app

// hostShell: commands printed on Windows are PowerShell's (shell.go).
const hostShell = powerShell
