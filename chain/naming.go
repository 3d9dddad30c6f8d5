package chain

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

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
// neither is there. It is the one rule for which project a session is
// of: doctor, ls' PROJECT, --project, move, the default session and the
// picker all ask it (RecordedCwdOf reads only the two windows).
func RecordedCwd(f *File) string {
	if c := RelocatedCwd(f); c != "" {
		return c
	}
	return HeadCwd(f)
}

// RelocatedCwd is the relocatedCwd of the last "relocated" entry in the
// last 64 KB of f ("" if none): f may be the whole file or its tail.
func RelocatedCwd(f *File) string {
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
	return ""
}

// HeadCwd is the first cwd of an entry in the first 64 KB of f ("" if
// none): f may be the whole file or its head.
func HeadCwd(f *File) string {
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

// headLineMax bounds how far RecordedCwdOf reads to finish a line that
// starts in the head window.
const headLineMax = 1 << 20

// RecordedCwdOf is RecordedCwd of the session file at path, reading only
// its head and tail windows (a 1 GB session costs as little as a small
// one); "" when neither records one or the file cannot be read.
func RecordedCwdOf(path string) string {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO named like a session never blocks it
	if err != nil {
		return ""
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	size := st.Size()
	if size <= 2*recordedWindow { // the windows cover it
		b := make([]byte, size)
		if k, _ := fh.ReadAt(b, 0); int64(k) < size {
			return ""
		}
		f, err := LoadBytes(path, b)
		if err != nil {
			return ""
		}
		defer f.Close()
		return RecordedCwd(f)
	}
	// the tail's whole lines: a line cut by the window's start is left
	// out (it starts before the last 64 KB)
	from := size - recordedWindow
	b := make([]byte, size-from+1)
	if n, _ := fh.ReadAt(b, from-1); n == len(b) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			if f, err := LoadBytes(path, b[i+1:]); err == nil {
				c := RelocatedCwd(f)
				f.Close()
				if c != "" {
					return c
				}
			}
		}
	}
	// the head: every line that starts in the first 64 KB, whole (up to
	// headLineMax)
	n := int64(recordedWindow)
	b = make([]byte, n, n+4096)
	if k, _ := fh.ReadAt(b, 0); int64(k) < n {
		return ""
	}
	for int64(len(b)) < size && b[len(b)-1] != '\n' && len(b) < headLineMax {
		chunk := make([]byte, min(64<<10, size-int64(len(b))))
		k, _ := fh.ReadAt(chunk, int64(len(b)))
		if k == 0 {
			break
		}
		if i := bytes.IndexByte(chunk[:k], '\n'); i >= 0 {
			b = append(b, chunk[:i+1]...)
			break
		}
		b = append(b, chunk[:k]...)
	}
	f, err := LoadBytes(path, b)
	if err != nil {
		return ""
	}
	defer f.Close()
	return HeadCwd(f)
}

// HiddenFrom reports whether the client, started in project, leaves out
// of its picker and of --continue a session of project's folder whose
// recorded cwd is rec: rec is another folder that exists and has the
// same slug ("my.app" and "my-app" share a project folder); such a
// session is rec's (2.1.332: "filtered from /resume: recorded cwd is a
// different directory with the same project slug", in both).
func HiddenFrom(project, rec string) bool {
	if !filepath.IsAbs(rec) || rec == project || ProjectSlug(rec) != ProjectSlug(project) {
		return false
	}
	real, err := filepath.EvalSymlinks(rec)
	if err != nil {
		return false // gone: the client keeps it where it is filed
	}
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	return !SameName(HostOS, filepath.Clean(real), filepath.Clean(project))
}

// ClientSessions are the sessions the client lists for a start in
// project (a real path, as ClientCwd gives): those of project's folder
// (ProjectDirOf) that it does not leave out (HiddenFrom), sorted by path.
//
// For a project whose folder name the client cuts (over 200 characters,
// with a hash that differs between builds), the sessions of the other
// folders that FolderHoldsProject names and that record project are
// listed too, as 2.1.332 lists them.
func ClientSessions(configDir, project string) []string {
	dir := ProjectDirOf(configDir, project)
	var out []string
	for _, p := range SessionsIn(dir) {
		if !HiddenFrom(project, RecordedCwdOf(p)) {
			out = append(out, p)
		}
	}
	if len(ProjectSlug(project)) <= 200 {
		return out
	}
	des, _ := os.ReadDir(ProjectsDir(configDir))
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	for _, d := range des {
		if !d.IsDir() || SameName(HostOS, d.Name(), filepath.Base(dir)) || !FolderHoldsProject(HostOS, d.Name(), project, names) {
			continue
		}
		for _, p := range SessionsIn(filepath.Join(ProjectsDir(configDir), d.Name())) {
			if rec := RecordedCwdOf(p); rec != "" && SameName(HostOS, filepath.Clean(rec), filepath.Clean(project)) {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
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

// EmptySessionFiles lists the files of dir that 2.1.332 takes for a
// session and that hold nothing: regular, named <uuid>.jsonl, of size 0.
// A client start that wrote nothing leaves one (2.0.50's -p --resume
// creates the file of a session id it never writes). Sorted by path.
func EmptySessionFiles(dir string) []string {
	var out []string
	for _, d := range NamedLikeSessions(dir) {
		if !d.Type().IsRegular() || !IsUUID(strings.TrimSuffix(d.Name(), ".jsonl")) {
			continue
		}
		if info, err := d.Info(); err == nil && info.Size() == 0 {
			out = append(out, filepath.Join(dir, d.Name()))
		}
	}
	return out
}

// ContinuePick is the file 'claude --continue' (2.1.332) takes for a start
// in project: the newest, by modification time, of ClientSessions and of
// the EmptySessionFiles of project's folder (its code lists every
// <uuid>.jsonl of the folder newest first and takes the first it does not
// leave out; an empty file it does not leave out, and it then starts from
// nothing). "" when there is none. 2.0.50 orders by the entries' times, so
// an empty file is never its pick.
func ContinuePick(configDir, project string) string {
	return NewestOf(append(ClientSessions(configDir, project), EmptySessionFiles(ProjectDirOf(configDir, project))...))
}

// NewestOf is the newest of paths by modification time ("" if none).
func NewestOf(paths []string) string {
	best, bestT := "", time.Time{}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && (best == "" || st.ModTime().After(bestT)) {
			best, bestT = p, st.ModTime()
		}
	}
	return best
}

// HasDrive reports whether p starts with a Windows drive: a letter, ':'
// and a separator ("C:\", "d:/"). Off Windows such a path is relative
// (a folder named "C:"), on Windows it is absolute.
func HasDrive(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}
