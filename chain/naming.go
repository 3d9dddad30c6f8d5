package chain

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tidwall/gjson"
)

// The client's naming rules on each OS, as pure functions of the target
// OS (a GOOS value) so that tests on Linux cover the macOS and Windows
// rules too. HostOS is the OS this process names things for.
var HostOS = runtime.GOOS

// ConfigDirFor is the config dir the client uses on goos:
// $CLAUDE_CONFIG_DIR everywhere, else <home>/.claude, home being
// %USERPROFILE% on Windows (node's os.homedir() reads it first) and $HOME
// elsewhere. An unset home gives ".claude" (relative, as the client).
func ConfigDirFor(goos string, getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home := getenv("HOME")
	if goos == "windows" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return ".claude"
	}
	if goos == "windows" {
		return strings.TrimRight(home, `\/`) + `\.claude`
	}
	return path.Join(home, ".claude")
}

// FoldsCase reports whether goos's default file system matches names
// without regard to case: APFS on macOS and NTFS on Windows do, so there
// "-Users-me-Proj" and "-Users-me-proj" are one project folder.
func FoldsCase(goos string) bool { return goos == "darwin" || goos == "windows" }

// SameName reports whether two names (or paths) name the same file on
// goos's default file system: equal, or equal but for case where it folds
// case. Two names that differ only by case are one target when writing.
func SameName(goos, a, b string) bool {
	return a == b || FoldsCase(goos) && strings.EqualFold(a, b)
}

// HasPrefixFor is strings.HasPrefix, without regard to case where goos
// folds case (a session id prefix typed in capitals finds the file).
func HasPrefixFor(goos, s, prefix string) bool {
	if FoldsCase(goos) {
		return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
	}
	return strings.HasPrefix(s, prefix)
}

// ProjectFolderName is the name under <config-dir>/projects/ of the
// project folder of cwd (a path in goos's own form: "C:\Users\me\proj" on
// Windows) given the names already there: the client's slug (ProjectSlug:
// the rule is the same on every OS), or where goos folds case the existing
// folder whose name differs from it only by case (an exact match first),
// since the file system would give that folder for the slug anyway.
func ProjectFolderName(goos, cwd string, existing []string) string {
	slug := ProjectSlug(cwd)
	if !FoldsCase(goos) {
		return slug
	}
	found := ""
	for _, n := range existing {
		if n == slug {
			return n
		}
		if found == "" && strings.EqualFold(n, slug) {
			found = n
		}
	}
	if found != "" {
		return found
	}
	return slug
}

// ProjectDirOf is the project folder of cwd under configDir on this OS
// (ProjectFolderName with the folders that exist).
func ProjectDirOf(configDir, cwd string) string {
	var names []string
	if FoldsCase(HostOS) {
		des, _ := os.ReadDir(ProjectsDir(configDir))
		for _, d := range des {
			names = append(names, d.Name())
		}
	}
	return filepath.Join(ProjectsDir(configDir), ProjectFolderName(HostOS, cwd, names))
}

// ClientCwd is the working directory as the client records it for the
// folder it is started in: the real path, every symlink resolved (the
// client takes realpath(cwd()); on macOS /tmp and /var are links to
// /private/…, so a project under them lives in "-private-tmp-…").
func ClientCwd() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		return real, nil
	}
	return wd, nil
}

// recordedWindow is how much of the head and of the tail of a transcript
// the client reads to learn the session's working directory.
const recordedWindow = 64 << 10

// RecordedCwd is the working directory the client takes a session to
// belong to, as 2.1.328 reads it (internal/harness/FINDINGS.md, "What the
// resume picker needs") and 2.1.332 too (its code, read with strings:
// iZ(tail,"relocated","relocatedCwd") ?? ISe(head,"cwd")): the relocatedCwd of the last "relocated" entry in
// the file's last 64 KB (the client writes one when /cd moves a session to
// another project folder), else the first cwd in its first 64 KB. "" when
// neither is there.
func RecordedCwd(f *File) string {
	for i := len(f.Entries) - 1; i >= 0; i-- {
		e := &f.Entries[i]
		if e.Off+int64(e.Len) < f.Size-recordedWindow {
			break
		}
		if e.Kind != KindEntry || e.Type() != "relocated" {
			continue
		}
		if raw, err := f.Raw(i); err == nil {
			if c := gjson.GetBytes(raw, "relocatedCwd"); c.Type == gjson.String && c.Str != "" {
				return c.Str
			}
		}
	}
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Off >= recordedWindow {
			break
		}
		if e.Kind != KindEntry {
			continue
		}
		if raw, err := f.Raw(i); err == nil {
			if c := gjson.GetBytes(raw, "cwd"); c.Type == gjson.String && c.Str != "" {
				return c.Str
			}
		}
	}
	return ""
}

// FolderHoldsProject reports whether the client (2.1.332) looks for the
// sessions of cwd in the project folder named folder, on goos: the folder
// of its slug (ProjectFolderName, case folded where goos folds case), or,
// for a name the client cuts (over 200 characters), any folder named by
// the same first 200 characters, '-' and another hash: the hash differs
// between builds, and the client lists such a folder when a session in it
// records cwd (as the session at hand does).
func FolderHoldsProject(goos, folder, cwd string, existing []string) bool {
	if SameName(goos, folder, ProjectFolderName(goos, cwd, existing)) {
		return true
	}
	slug := ProjectSlug(cwd)
	const maxLen = 200
	if len(slug) <= maxLen {
		return false
	}
	return HasPrefixFor(goos, folder, slug[:maxLen]+"-")
}
